	.arch armv8-a
	.file	"gray_code.c"
	.text
	.align	2
	.p2align 4,,11
	.global	gray_code
	.type	gray_code, %function
gray_code:
.LFB0:
	.cfi_startproc
	eor	x0, x0, x0, lsr 1
	ret
	.cfi_endproc
.LFE0:
	.size	gray_code, .-gray_code
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
