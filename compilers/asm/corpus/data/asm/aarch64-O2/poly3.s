	.arch armv8-a
	.file	"poly3.c"
	.text
	.align	2
	.p2align 4,,11
	.global	poly3
	.type	poly3, %function
poly3:
.LFB0:
	.cfi_startproc
	mul	x3, x0, x0
	lsl	x1, x0, 3
	sub	x1, x1, x0
	neg	x2, x3, lsl 2
	mul	x0, x3, x0
	sub	x2, x2, x3
	add	x0, x0, x0, lsl 1
	add	x0, x0, x2
	add	x0, x0, x1
	sub	x0, x0, #11
	ret
	.cfi_endproc
.LFE0:
	.size	poly3, .-poly3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
