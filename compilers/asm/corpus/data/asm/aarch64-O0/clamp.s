	.arch armv8-a
	.file	"clamp.c"
	.text
	.align	2
	.global	clamp
	.type	clamp, %function
clamp:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	bge	.L2
	ldr	x0, [sp, 16]
	b	.L3
.L2:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L4
	ldr	x0, [sp, 8]
	b	.L3
.L4:
	ldr	x0, [sp, 24]
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	clamp, .-clamp
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
