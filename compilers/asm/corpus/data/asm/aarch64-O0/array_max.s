	.arch armv8-a
	.file	"array_max.c"
	.text
	.align	2
	.global	array_max
	.type	array_max, %function
array_max:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp]
	cmp	x0, 0
	bgt	.L2
	mov	x0, 0
	b	.L3
.L2:
	ldr	x0, [sp, 8]
	ldr	x0, [x0]
	str	x0, [sp, 24]
	mov	x0, 1
	str	x0, [sp, 16]
	b	.L4
.L6:
	ldr	x0, [sp, 16]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 24]
	cmp	x1, x0
	bge	.L5
	ldr	x0, [sp, 16]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x0, [x0]
	str	x0, [sp, 24]
.L5:
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L4:
	ldr	x1, [sp, 16]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L6
	ldr	x0, [sp, 24]
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	array_max, .-array_max
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
