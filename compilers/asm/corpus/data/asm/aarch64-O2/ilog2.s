	.arch armv8-a
	.file	"ilog2.c"
	.text
	.align	2
	.p2align 4,,11
	.global	ilog2
	.type	ilog2, %function
ilog2:
.LFB0:
	.cfi_startproc
	mov	x1, x0
	mov	x0, -1
	cbz	x1, .L1
	.p2align 3,,7
.L3:
	lsr	x1, x1, 1
	add	x0, x0, 1
	cbnz	x1, .L3
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	ilog2, .-ilog2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
