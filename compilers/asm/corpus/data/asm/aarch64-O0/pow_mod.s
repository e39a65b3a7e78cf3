	.arch armv8-a
	.file	"pow_mod.c"
	.text
	.align	2
	.global	pow_mod
	.type	pow_mod, %function
pow_mod:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #64
	.cfi_def_cfa_offset 64
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x0, [sp, 8]
	cmp	x0, 1
	bgt	.L2
	mov	x0, 0
	b	.L3
.L2:
	ldr	x0, [sp, 24]
	ldr	x1, [sp, 8]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 8]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 56]
	ldr	x0, [sp, 56]
	cmp	x0, 0
	bge	.L4
	ldr	x1, [sp, 56]
	ldr	x0, [sp, 8]
	add	x0, x1, x0
	str	x0, [sp, 56]
.L4:
	mov	x0, 1
	str	x0, [sp, 48]
	ldr	x0, [sp, 16]
	cmp	x0, 0
	csneg	x0, x0, x0, ge
	str	x0, [sp, 40]
	b	.L5
.L7:
	ldr	x0, [sp, 40]
	and	x0, x0, 1
	cmp	x0, 0
	beq	.L6
	ldr	x1, [sp, 48]
	ldr	x0, [sp, 56]
	mul	x0, x1, x0
	ldr	x1, [sp, 8]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 8]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 48]
.L6:
	ldr	x0, [sp, 56]
	mul	x0, x0, x0
	ldr	x1, [sp, 8]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 8]
	mul	x1, x2, x1
	sub	x0, x0, x1
	str	x0, [sp, 56]
	ldr	x0, [sp, 40]
	asr	x0, x0, 1
	str	x0, [sp, 40]
.L5:
	ldr	x0, [sp, 40]
	cmp	x0, 0
	bgt	.L7
	ldr	x0, [sp, 48]
.L3:
	add	sp, sp, 64
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	pow_mod, .-pow_mod
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
