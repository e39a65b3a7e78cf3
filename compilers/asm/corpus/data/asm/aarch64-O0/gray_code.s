	.arch armv8-a
	.file	"gray_code.c"
	.text
	.align	2
	.global	gray_code
	.type	gray_code, %function
gray_code:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	lsr	x1, x0, 1
	ldr	x0, [sp, 8]
	eor	x0, x1, x0
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	gray_code, .-gray_code
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
