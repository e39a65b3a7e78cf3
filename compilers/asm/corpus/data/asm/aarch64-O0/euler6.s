	.arch armv8-a
	.file	"euler6.c"
	.text
	.align	2
	.global	euler6
	.type	euler6, %function
euler6:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	str	xzr, [sp, 40]
	str	xzr, [sp, 32]
	mov	x0, 1
	str	x0, [sp, 24]
	b	.L2
.L3:
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 40]
	ldr	x0, [sp, 24]
	mul	x0, x0, x0
	ldr	x1, [sp, 32]
	add	x0, x1, x0
	str	x0, [sp, 32]
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L2:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L3
	ldr	x0, [sp, 40]
	mul	x1, x0, x0
	ldr	x0, [sp, 32]
	sub	x0, x1, x0
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	euler6, .-euler6
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
