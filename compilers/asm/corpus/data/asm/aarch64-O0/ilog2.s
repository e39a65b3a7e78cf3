	.arch armv8-a
	.file	"ilog2.c"
	.text
	.align	2
	.global	ilog2
	.type	ilog2, %function
ilog2:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	mov	x0, -1
	str	x0, [sp, 24]
	b	.L2
.L3:
	ldr	x0, [sp, 8]
	lsr	x0, x0, 1
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
	.size	ilog2, .-ilog2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
