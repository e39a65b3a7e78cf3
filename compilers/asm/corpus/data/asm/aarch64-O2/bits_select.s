	.arch armv8-a
	.file	"bits_select.c"
	.text
	.align	2
	.p2align 4,,11
	.global	bits_select
	.type	bits_select, %function
bits_select:
.LFB0:
	.cfi_startproc
	eor	x0, x0, x1
	and	x0, x0, x2
	eor	x0, x0, x1
	ret
	.cfi_endproc
.LFE0:
	.size	bits_select, .-bits_select
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
