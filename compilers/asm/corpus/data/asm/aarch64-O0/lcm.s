	.arch armv8-a
	.file	"lcm.c"
	.text
	.align	2
	.global	lcm
	.type	lcm, %function
lcm:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
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
	bge	.L3
	ldr	x0, [sp]
	neg	x0, x0
	str	x0, [sp]
.L3:
	ldr	x0, [sp, 8]
	cmp	x0, 0
	beq	.L4
	ldr	x0, [sp]
	cmp	x0, 0
	bne	.L5
.L4:
	mov	x0, 0
	b	.L6
.L5:
	ldr	x0, [sp, 8]
	str	x0, [sp, 40]
	ldr	x0, [sp]
	str	x0, [sp, 32]
	b	.L7
.L8:
	ldr	x0, [sp, 40]
	ldr	x1, [sp, 32]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 32]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 24]
	ldr	x0, [sp, 32]
	str	x0, [sp, 40]
	ldr	x0, [sp, 24]
	str	x0, [sp, 32]
.L7:
	ldr	x0, [sp, 32]
	cmp	x0, 0
	bne	.L8
	ldr	x1, [sp, 8]
	ldr	x0, [sp, 40]
	sdiv	x1, x1, x0
	ldr	x0, [sp]
	mul	x0, x1, x0
.L6:
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	lcm, .-lcm
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
