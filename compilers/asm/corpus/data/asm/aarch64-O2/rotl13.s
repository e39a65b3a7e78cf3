	.arch armv8-a
	.file	"rotl13.c"
	.text
	.align	2
	.p2align 4,,11
	.global	rotl13
	.type	rotl13, %function
rotl13:
.LFB0:
	.cfi_startproc
	ror	x0, x0, 51
	ret
	.cfi_endproc
.LFE0:
	.size	rotl13, .-rotl13
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
