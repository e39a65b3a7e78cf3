	.arch armv8-a
	.file	"gcd.c"
	.text
	.align	2
	.global	gcd
	.type	gcd, %function
gcd:
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
	.size	gcd, .-gcd
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
