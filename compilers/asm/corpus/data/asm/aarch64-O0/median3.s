	.arch armv8-a
	.file	"median3.c"
	.text
	.align	2
	.global	median3
	.type	median3, %function
median3:
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
	bgt	.L2
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L3
.L2:
	ldr	x1, [sp, 8]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	bgt	.L4
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 24]
	cmp	x1, x0
	bgt	.L4
.L3:
	ldr	x0, [sp, 16]
	b	.L5
.L4:
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 24]
	cmp	x1, x0
	bgt	.L6
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L7
.L6:
	ldr	x1, [sp, 8]
	ldr	x0, [sp, 24]
	cmp	x1, x0
	bgt	.L8
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	bgt	.L8
.L7:
	ldr	x0, [sp, 24]
	b	.L5
.L8:
	ldr	x0, [sp, 8]
.L5:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	median3, .-median3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
