	.arch armv8-a
	.file	"digit_sum.c"
	.text
	.align	2
	.p2align 4,,11
	.global	digit_sum
	.type	digit_sum, %function
digit_sum:
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
	umulh	x1, x2, x4
	lsr	x1, x1, 3
	add	x3, x1, x1, lsl 2
	sub	x3, x2, x3, lsl 1
	mov	x2, x1
	add	x0, x0, x3
	cbnz	x1, .L3
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	digit_sum, .-digit_sum
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
