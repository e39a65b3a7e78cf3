	.arch armv8-a
	.file	"tri_kind.c"
	.text
	.align	2
	.global	tri_kind
	.type	tri_kind, %function
tri_kind:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x0, [sp, 24]
	cmp	x0, 0
	ble	.L2
	ldr	x0, [sp, 16]
	cmp	x0, 0
	ble	.L2
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bgt	.L3
.L2:
	mov	x0, 0
	b	.L4
.L3:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x1, x0
	ldr	x1, [sp, 8]
	cmp	x1, x0
	bge	.L5
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 8]
	add	x0, x1, x0
	ldr	x1, [sp, 24]
	cmp	x1, x0
	bge	.L5
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	add	x0, x1, x0
	ldr	x1, [sp, 16]
	cmp	x1, x0
	blt	.L6
.L5:
	mov	x0, 0
	b	.L4
.L6:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	bne	.L7
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	bne	.L7
	mov	x0, 3
	b	.L4
.L7:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	beq	.L8
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	beq	.L8
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	bne	.L9
.L8:
	mov	x0, 2
	b	.L4
.L9:
	mov	x0, 1
.L4:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	tri_kind, .-tri_kind
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
