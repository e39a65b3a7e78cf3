	.arch armv8-a
	.file	"sum_of_gcds.c"
	.text
	.align	2
	.type	g2, %function
g2:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bge	.L2
	ldr	x0, [sp, 8]
	neg	x0, x0
	str	x0, [sp, 8]
.L2:
	ldr	x0, [sp]
	cmp	x0, 0
	bge	.L4
	ldr	x0, [sp]
	neg	x0, x0
	str	x0, [sp]
	b	.L4
.L5:
	ldr	x0, [sp, 8]
	ldr	x1, [sp]
	sdiv	x2, x0, x1
	ldr	x1, [sp]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 24]
	ldr	x0, [sp]
	str	x0, [sp, 8]
	ldr	x0, [sp, 24]
	str	x0, [sp]
.L4:
	ldr	x0, [sp]
	cmp	x0, 0
	bne	.L5
	ldr	x0, [sp, 8]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	g2, .-g2
	.align	2
	.global	sum_of_gcds
	.type	sum_of_gcds, %function
sum_of_gcds:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	xzr, [sp, 40]
	str	xzr, [sp, 32]
	b	.L8
.L9:
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x2, [x0]
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	mov	x1, x0
	mov	x0, x2
	bl	g2
	mov	x1, x0
	ldr	x0, [sp, 40]
	add	x0, x0, x1
	str	x0, [sp, 40]
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 32]
.L8:
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	ldr	x1, [sp, 16]
	cmp	x1, x0
	bgt	.L9
	ldr	x0, [sp, 40]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE1:
	.size	sum_of_gcds, .-sum_of_gcds
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
