	.arch armv8-a
	.file	"max3.c"
	.text
	.align	2
	.global	max3
	.type	max3, %function
max3:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x0, [sp, 24]
	str	x0, [sp, 40]
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 40]
	cmp	x1, x0
	ble	.L2
	ldr	x0, [sp, 16]
	str	x0, [sp, 40]
.L2:
	ldr	x1, [sp, 8]
	ldr	x0, [sp, 40]
	cmp	x1, x0
	ble	.L3
	ldr	x0, [sp, 8]
	str	x0, [sp, 40]
.L3:
	ldr	x0, [sp, 40]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	max3, .-max3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
