	.arch armv8-a
	.file	"quadrant.c"
	.text
	.align	2
	.global	quadrant
	.type	quadrant, %function
quadrant:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	blt	.L2
	ldr	x0, [sp]
	cmp	x0, 0
	blt	.L3
	mov	x0, 1
	b	.L5
.L3:
	mov	x0, 4
	b	.L5
.L2:
	ldr	x0, [sp]
	cmp	x0, 0
	blt	.L6
	mov	x0, 2
	b	.L5
.L6:
	mov	x0, 3
.L5:
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	quadrant, .-quadrant
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
