	.arch armv8-a
	.file	"isqrt.c"
	.text
	.align	2
	.global	isqrt
	.type	isqrt, %function
isqrt:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bge	.L2
	mov	x0, -1
	b	.L3
.L2:
	str	xzr, [sp, 24]
	b	.L4
.L5:
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L4:
	ldr	x0, [sp, 24]
	add	x1, x0, 1
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	mul	x0, x1, x0
	ldr	x1, [sp, 8]
	cmp	x1, x0
	bge	.L5
	ldr	x0, [sp, 24]
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	isqrt, .-isqrt
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
