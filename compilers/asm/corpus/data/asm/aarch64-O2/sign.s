	.arch armv8-a
	.file	"sign.c"
	.text
	.align	2
	.p2align 4,,11
	.global	sign
	.type	sign, %function
sign:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	lsr	x0, x0, 63
	cset	w1, gt
	sub	w0, w1, w0
	sxtw	x0, w0
	ret
	.cfi_endproc
.LFE0:
	.size	sign, .-sign
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
