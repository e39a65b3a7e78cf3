	.arch armv8-a
	.file	"ackermann_small.c"
	.text
	.align	2
	.type	ack, %function
ack:
.LFB0:
	.cfi_startproc
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	str	x19, [sp, 16]
	.cfi_offset 19, -32
	str	x0, [sp, 40]
	str	x1, [sp, 32]
	ldr	x0, [sp, 40]
	cmp	x0, 0
	bne	.L2
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	b	.L3
.L2:
	ldr	x0, [sp, 32]
	cmp	x0, 0
	bne	.L4
	ldr	x0, [sp, 40]
	sub	x0, x0, #1
	mov	x1, 1
	bl	ack
	b	.L3
.L4:
	ldr	x0, [sp, 40]
	sub	x19, x0, #1
	ldr	x0, [sp, 32]
	sub	x0, x0, #1
	mov	x1, x0
	ldr	x0, [sp, 40]
	bl	ack
	mov	x1, x0
	mov	x0, x19
	bl	ack
.L3:
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	ack, .-ack
	.align	2
	.global	ackermann_small
	.type	ackermann_small, %function
ackermann_small:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x0, [sp, 24]
	ldr	x1, [sp, 24]
	mov	x0, 2
	bl	ack
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE1:
	.size	ackermann_small, .-ackermann_small
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
