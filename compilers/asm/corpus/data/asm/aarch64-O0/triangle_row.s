	.arch armv8-a
	.file	"triangle_row.c"
	.text
	.align	2
	.global	triangle_row
	.type	triangle_row, %function
triangle_row:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	mov	x0, 1
	str	x0, [sp, 40]
	str	xzr, [sp, 32]
	str	xzr, [sp, 24]
	b	.L2
.L3:
	ldr	x1, [sp, 32]
	ldr	x0, [sp, 40]
	add	x0, x1, x0
	str	x0, [sp, 32]
	ldr	x1, [sp, 8]
	ldr	x0, [sp, 24]
	sub	x1, x1, x0
	ldr	x0, [sp, 40]
	mul	x1, x1, x0
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	sdiv	x0, x1, x0
	str	x0, [sp, 40]
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L2:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L3
	ldr	x0, [sp, 32]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	triangle_row, .-triangle_row
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
