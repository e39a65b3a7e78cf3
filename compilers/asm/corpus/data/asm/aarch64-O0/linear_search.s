	.arch armv8-a
	.file	"linear_search.c"
	.text
	.align	2
	.global	linear_search
	.type	linear_search, %function
linear_search:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	str	xzr, [sp, 40]
	b	.L2
.L5:
	ldr	x0, [sp, 40]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 8]
	cmp	x1, x0
	bne	.L3
	ldr	x0, [sp, 40]
	b	.L4
.L3:
	ldr	x0, [sp, 40]
	add	x0, x0, 1
	str	x0, [sp, 40]
.L2:
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	blt	.L5
	mov	x0, -1
.L4:
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	linear_search, .-linear_search
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
