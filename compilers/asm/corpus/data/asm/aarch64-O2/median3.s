	.arch armv8-a
	.file	"median3.c"
	.text
	.align	2
	.p2align 4,,11
	.global	median3
	.type	median3, %function
median3:
.LFB0:
	.cfi_startproc
	mov	x3, x0
	mov	x0, x1
	cmp	x3, x1
	cset	w1, le
	cmp	w1, 0
	ccmp	x0, x2, 0, ne
	ble	.L2
	cmp	x3, x0
	cset	w4, ge
	cmp	w4, 0
	ccmp	x0, x2, 1, ne
	bge	.L2
	cmp	w4, 0
	mov	x0, x3
	ccmp	x3, x2, 0, ne
	ble	.L2
	cmp	w1, 0
	ccmp	x3, x2, 1, ne
	csel	x0, x2, x3, lt
.L2:
	ret
	.cfi_endproc
.LFE0:
	.size	median3, .-median3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
