	.arch armv8-a
	.file	"euler2.c"
	.text
	.align	2
	.p2align 4,,11
	.global	euler2
	.type	euler2, %function
euler2:
.LFB0:
	.cfi_startproc
	lsl	x4, x0, 5
	sub	x4, x4, x0
	add	x4, x0, x4, lsl 2
	mov	x0, 0
	lsl	x4, x4, 3
	cmp	x4, 0
	ble	.L1
	mov	x2, 2
	mov	x1, 1
	b	.L4
	.p2align 2,,3
.L6:
	mov	x2, x3
.L4:
	add	x3, x0, x1
	tst	x1, 1
	csel	x0, x3, x0, eq
	add	x3, x2, x1
	mov	x1, x2
	cmp	x4, x2
	bge	.L6
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	euler2, .-euler2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
