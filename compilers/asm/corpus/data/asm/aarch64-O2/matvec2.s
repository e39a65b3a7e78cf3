	.arch armv8-a
	.file	"matvec2.c"
	.text
	.align	2
	.p2align 4,,11
	.global	matvec2
	.type	matvec2, %function
matvec2:
.LFB0:
	.cfi_startproc
	ldp	x3, x5, [x0]
	ldp	x2, x4, [x1]
	ldp	x0, x6, [x0, 16]
	mul	x5, x4, x5
	madd	x3, x2, x3, x5
	mul	x4, x4, x6
	madd	x0, x2, x0, x4
	stp	x3, x0, [x1, 16]
	sub	x0, x3, x0
	ret
	.cfi_endproc
.LFE0:
	.size	matvec2, .-matvec2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
