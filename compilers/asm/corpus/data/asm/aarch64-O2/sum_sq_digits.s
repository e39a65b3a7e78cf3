	.arch armv8-a
	.file	"sum_sq_digits.c"
	.text
	.align	2
	.p2align 4,,11
	.global	sum_sq_digits
	.type	sum_sq_digits, %function
sum_sq_digits:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	csneg	x2, x0, x0, ge
	mov	x0, 0
	beq	.L1
	mov	x4, -3689348814741910324
	movk	x4, 0xcccd, lsl 0
	.p2align 3,,7
.L3:
	umulh	x3, x2, x4
	lsr	x1, x3, 3
	add	x1, x1, x1, lsl 2
	sub	x1, x2, x1, lsl 1
	lsr	x2, x3, 3
	madd	x0, x1, x1, x0
	cbnz	x2, .L3
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	sum_sq_digits, .-sum_sq_digits
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
