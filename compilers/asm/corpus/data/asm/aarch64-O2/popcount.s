	.arch armv8-a
	.file	"popcount.c"
	.text
	.align	2
	.p2align 4,,11
	.global	popcount
	.type	popcount, %function
popcount:
.LFB0:
	.cfi_startproc
	mov	x1, x0
	mov	x0, 0
	cbz	x1, .L1
	.p2align 3,,7
.L3:
	sub	x2, x1, #1
	add	x0, x0, 1
	ands	x1, x1, x2
	bne	.L3
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	popcount, .-popcount
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
