	.arch armv8-a
	.file	"prefix_sum.c"
	.text
	.align	2
	.global	prefix_sum
	.type	prefix_sum, %function
prefix_sum:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	str	xzr, [sp, 24]
	str	xzr, [sp, 16]
	b	.L2
.L3:
	ldr	x0, [sp, 16]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x1, [sp, 24]
	str	x1, [x0]
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L2:
	ldr	x1, [sp, 16]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L3
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	prefix_sum, .-prefix_sum
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
