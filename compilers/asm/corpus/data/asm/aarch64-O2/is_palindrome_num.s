	.arch armv8-a
	.file	"is_palindrome_num.c"
	.text
	.align	2
	.p2align 4,,11
	.global	is_palindrome_num
	.type	is_palindrome_num, %function
is_palindrome_num:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	blt	.L5
	beq	.L6
	mov	x5, -3689348814741910324
	mov	x3, x0
	mov	x2, 0
	movk	x5, 0xcccd, lsl 0
	.p2align 3,,7
.L4:
	umulh	x1, x3, x5
	add	x2, x2, x2, lsl 2
	lsr	x1, x1, 3
	add	x4, x1, x1, lsl 2
	sub	x4, x3, x4, lsl 1
	mov	x3, x1
	add	x2, x4, x2, lsl 1
	cbnz	x1, .L4
.L3:
	cmp	x0, x2
	cset	x0, eq
	ret
	.p2align 2,,3
.L5:
	mov	x0, 0
	ret
	.p2align 2,,3
.L6:
	mov	x2, 0
	b	.L3
	.cfi_endproc
.LFE0:
	.size	is_palindrome_num, .-is_palindrome_num
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
