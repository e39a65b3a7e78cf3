	.arch armv8-a
	.file	"max3.c"
	.text
	.align	2
	.p2align 4,,11
	.global	max3
	.type	max3, %function
max3:
.LFB0:
	.cfi_startproc
	cmp	x1, x2
	csel	x1, x1, x2, ge
	cmp	x1, x0
	csel	x0, x1, x0, ge
	ret
	.cfi_endproc
.LFE0:
	.size	max3, .-max3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
