	.arch armv8-a
	.file	"min3.c"
	.text
	.align	2
	.p2align 4,,11
	.global	min3
	.type	min3, %function
min3:
.LFB0:
	.cfi_startproc
	cmp	x1, x2
	csel	x1, x1, x2, le
	cmp	x1, x0
	csel	x0, x1, x0, le
	ret
	.cfi_endproc
.LFE0:
	.size	min3, .-min3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
