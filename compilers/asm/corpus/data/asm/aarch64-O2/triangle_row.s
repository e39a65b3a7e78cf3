	.arch armv8-a
	.file	"triangle_row.c"
	.text
	.align	2
	.p2align 4,,11
	.global	triangle_row
	.type	triangle_row, %function
triangle_row:
.LFB0:
	.cfi_startproc
	mov	x4, x0
	tbnz	x0, #63, .L4
	add	x5, x0, 1
	mov	x2, 0
	mov	x0, 0
	mov	x1, 1
	.p2align 3,,7
.L3:
	sub	x3, x4, x2
	add	x0, x0, x1
	add	x2, x2, 1
	mul	x1, x3, x1
	udiv	x1, x1, x2
	cmp	x2, x5
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	triangle_row, .-triangle_row
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
