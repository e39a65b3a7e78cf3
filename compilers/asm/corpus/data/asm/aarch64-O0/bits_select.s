	.arch armv8-a
	.file	"bits_select.c"
	.text
	.align	2
	.global	bits_select
	.type	bits_select, %function
bits_select:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	and	x1, x1, x0
	ldr	x0, [sp, 8]
	mvn	x2, x0
	ldr	x0, [sp, 16]
	and	x0, x2, x0
	orr	x0, x1, x0
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	bits_select, .-bits_select
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
