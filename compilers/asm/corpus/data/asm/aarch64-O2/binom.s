	.arch armv8-a
	.file	"binom.c"
	.text
	.align	2
	.p2align 4,,11
	.global	binom
	.type	binom, %function
binom:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ccmp	x1, x0, 0, ge
	bgt	.L4
	cbz	x1, .L5
	sub	x4, x0, x1
	add	x2, x1, 1
	mov	x1, 1
	mov	x0, x1
	.p2align 3,,7
.L3:
	add	x3, x1, x4
	mul	x0, x3, x0
	sdiv	x0, x0, x1
	add	x1, x1, 1
	cmp	x1, x2
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.p2align 2,,3
.L5:
	mov	x0, 1
	ret
	.cfi_endproc
.LFE0:
	.size	binom, .-binom
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
