	.arch armv8-a
	.file	"mod_pos.c"
	.text
	.align	2
	.global	mod_pos
	.type	mod_pos, %function
mod_pos:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp]
	cmp	x0, 0
	bne	.L2
	mov	x0, 0
	b	.L3
.L2:
	ldr	x0, [sp, 8]
	ldr	x1, [sp]
	sdiv	x2, x0, x1
	ldr	x1, [sp]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 24]
	ldr	x0, [sp, 24]
	cmp	x0, 0
	bge	.L4
	ldr	x0, [sp]
	cmp	x0, 0
	csneg	x0, x0, x0, ge
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 24]
.L4:
	ldr	x0, [sp, 24]
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	mod_pos, .-mod_pos
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
