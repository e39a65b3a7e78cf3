	.arch armv8-a
	.file	"rle_count.c"
	.text
	.align	2
	.p2align 4,,11
	.global	rle_count
	.type	rle_count, %function
rle_count:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	cmp	x1, 1
	beq	.L5
	mov	x2, x0
	mov	x0, 1
	sub	x4, x2, #1
	add	x4, x4, x1
	.p2align 3,,7
.L3:
	ldrb	w3, [x2, 1]
	ldrb	w1, [x2], 1
	cmp	w3, w1
	cinc	x0, x0, ne
	cmp	x4, x2
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.p2align 2,,3
.L5:
	mov	x0, x1
	ret
	.cfi_endproc
.LFE0:
	.size	rle_count, .-rle_count
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
