	.arch armv8-a
	.file	"count_equal.c"
	.text
	.align	2
	.global	count_equal
	.type	count_equal, %function
count_equal:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	str	xzr, [sp, 40]
	str	xzr, [sp, 32]
	b	.L2
.L3:
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 8]
	cmp	x1, x0
	cset	w0, eq
	and	w0, w0, 255
	and	x0, x0, 255
	ldr	x1, [sp, 40]
	add	x0, x1, x0
	str	x0, [sp, 40]
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 32]
.L2:
	ldr	x1, [sp, 32]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	blt	.L3
	ldr	x0, [sp, 40]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_equal, .-count_equal
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
