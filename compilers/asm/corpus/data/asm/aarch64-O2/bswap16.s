	.arch armv8-a
	.file	"bswap16.c"
	.text
	.align	2
	.p2align 4,,11
	.global	bswap16
	.type	bswap16, %function
bswap16:
.LFB0:
	.cfi_startproc
	ubfiz	x1, x0, 8, 8
	ubfx	x0, x0, 8, 8
	orr	x0, x1, x0
	ret
	.cfi_endproc
.LFE0:
	.size	bswap16, .-bswap16
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
