	.arch armv8-a
	.file	"tri_kind.c"
	.text
	.align	2
	.p2align 4,,11
	.global	tri_kind
	.type	tri_kind, %function
tri_kind:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	mov	x3, x0
	ccmp	x1, 0, 4, gt
	mov	x0, 0
	ccmp	x2, 0, 4, gt
	bgt	.L9
.L1:
	ret
	.p2align 2,,3
.L9:
	add	x4, x3, x1
	mov	x0, 0
	cmp	x4, x2
	ble	.L1
	add	x4, x1, x2
	cmp	x4, x3
	ble	.L1
	add	x4, x3, x2
	cmp	x4, x1
	ble	.L1
	cmp	x3, x1
	mov	x0, 3
	cset	w4, eq
	cmp	x1, x2
	cset	w1, eq
	cmp	w4, 0
	ccmp	w1, 0, 4, ne
	bne	.L1
	cmp	w4, 0
	ccmp	x3, x2, 4, eq
	ccmp	w1, 0, 0, ne
	cset	x0, ne
	add	x0, x0, 1
	ret
	.cfi_endproc
.LFE0:
	.size	tri_kind, .-tri_kind
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
