	.arch armv8-a
	.file	"is_sorted.c"
	.text
	.align	2
	.global	is_sorted
	.type	is_sorted, %function
is_sorted:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	mov	x0, 1
	str	x0, [sp, 24]
	b	.L2
.L5:
	ldr	x0, [sp, 24]
	lsl	x0, x0, 3
	sub	x0, x0, #8
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x1, [x0]
	ldr	x0, [sp, 24]
	lsl	x0, x0, 3
	ldr	x2, [sp, 8]
	add	x0, x2, x0
	ldr	x0, [x0]
	cmp	x1, x0
	ble	.L3
	mov	x0, 0
	b	.L4
.L3:
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L2:
	ldr	x1, [sp, 24]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L5
	mov	x0, 1
.L4:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	is_sorted, .-is_sorted
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
