	.arch armv8-a
	.file	"quadrant.c"
	.text
	.align	2
	.p2align 4,,11
	.global	quadrant
	.type	quadrant, %function
quadrant:
.LFB0:
	.cfi_startproc
	tbz	x0, #63, .L7
	lsr	x0, x1, 63
	add	x0, x0, 2
	ret
	.p2align 2,,3
.L7:
	cmp	x1, 0
	mov	x0, 4
	csinc	x0, x0, xzr, lt
	ret
	.cfi_endproc
.LFE0:
	.size	quadrant, .-quadrant
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
