	.arch armv8-a
	.file	"popcount.c"
	.text
	.align	2
	.global	popcount
	.type	popcount, %function
popcount:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	xzr, [sp, 24]
	b	.L2
.L3:
	ldr	x0, [sp, 8]
	sub	x0, x0, #1
	ldr	x1, [sp, 8]
	and	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L2:
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bne	.L3
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	popcount, .-popcount
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
