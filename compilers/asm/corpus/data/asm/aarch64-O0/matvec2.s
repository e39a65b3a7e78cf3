	.arch armv8-a
	.file	"matvec2.c"
	.text
	.align	2
	.global	matvec2
	.type	matvec2, %function
matvec2:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp, 8]
	ldr	x1, [x0]
	ldr	x0, [sp]
	ldr	x0, [x0]
	mul	x1, x1, x0
	ldr	x0, [sp, 8]
	add	x0, x0, 8
	ldr	x2, [x0]
	ldr	x0, [sp]
	add	x0, x0, 8
	ldr	x0, [x0]
	mul	x0, x2, x0
	add	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 8]
	add	x0, x0, 16
	ldr	x1, [x0]
	ldr	x0, [sp]
	ldr	x0, [x0]
	mul	x1, x1, x0
	ldr	x0, [sp, 8]
	add	x0, x0, 24
	ldr	x2, [x0]
	ldr	x0, [sp]
	add	x0, x0, 8
	ldr	x0, [x0]
	mul	x0, x2, x0
	add	x0, x1, x0
	str	x0, [sp, 16]
	ldr	x0, [sp]
	add	x0, x0, 16
	ldr	x1, [sp, 24]
	str	x1, [x0]
	ldr	x0, [sp]
	add	x0, x0, 24
	ldr	x1, [sp, 16]
	str	x1, [x0]
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	sub	x0, x1, x0
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	matvec2, .-matvec2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
