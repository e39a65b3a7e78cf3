	.arch armv8-a
	.file	"histogram4.c"
	.text
	.align	2
	.global	histogram4
	.type	histogram4, %function
histogram4:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	str	xzr, [sp, 40]
	b	.L2
.L3:
	ldr	x0, [sp, 40]
	lsl	x0, x0, 3
	ldr	x1, [sp, 16]
	add	x0, x1, x0
	str	xzr, [x0]
	ldr	x0, [sp, 40]
	add	x0, x0, 1
	str	x0, [sp, 40]
.L2:
	ldr	x0, [sp, 40]
	cmp	x0, 3
	ble	.L3
	str	xzr, [sp, 32]
	b	.L4
.L5:
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	and	x0, x0, 3
	lsl	x0, x0, 3
	ldr	x1, [sp, 16]
	add	x0, x1, x0
	ldr	x1, [x0]
	add	x1, x1, 1
	str	x1, [x0]
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 32]
.L4:
	ldr	x1, [sp, 32]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	blt	.L5
	ldr	x0, [sp, 8]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	histogram4, .-histogram4
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
