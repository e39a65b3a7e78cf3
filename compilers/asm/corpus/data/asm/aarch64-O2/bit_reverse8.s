	.arch armv8-a
	.file	"bit_reverse8.c"
	.text
	.align	2
	.p2align 4,,11
	.global	bit_reverse8
	.type	bit_reverse8, %function
bit_reverse8:
.LFB0:
	.cfi_startproc
	mov	x1, x0
	mov	w2, 8
	mov	x0, 0
	.p2align 3,,7
.L2:
	mov	x3, x1
	subs	w2, w2, #1
	bfi	x3, x0, 1, 63
	lsr	x1, x1, 1
	mov	x0, x3
	bne	.L2
	ret
	.cfi_endproc
.LFE0:
	.size	bit_reverse8, .-bit_reverse8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
