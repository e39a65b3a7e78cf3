	.arch armv8-a
	.file	"insertion_sort.c"
	.text
	.align	2
	.global	insertion_sort
	.type	insertion_sort, %function
insertion_sort:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	str	x1, [sp]
	mov	x0, 1
	str	x0, [sp, 40]
	b	.L2
.L6:
	ldr	x0, [sp, 40]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x0, [x0]
	str	x0, [sp, 24]
	ldr	x0, [sp, 40]
	sub	x0, x0, #1
	str	x0, [sp, 32]
	b	.L3
.L5:
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x1, x1, x0
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	lsl	x0, x0, 3
	ldr	x2, [sp, 8]
	add	x0, x2, x0
	ldr	x1, [x1]
	str	x1, [x0]
	ldr	x0, [sp, 32]
	sub	x0, x0, #1
	str	x0, [sp, 32]
.L3:
	ldr	x0, [sp, 32]
	cmp	x0, 0
	blt	.L4
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 24]
	cmp	x1, x0
	blt	.L5
.L4:
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	lsl	x0, x0, 3
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldr	x1, [sp, 24]
	str	x1, [x0]
	ldr	x0, [sp, 40]
	add	x0, x0, 1
	str	x0, [sp, 40]
.L2:
	ldr	x1, [sp, 40]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L6
	ldr	x0, [sp]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	insertion_sort, .-insertion_sort
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
