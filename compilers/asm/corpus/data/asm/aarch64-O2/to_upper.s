	.arch armv8-a
	.file	"to_upper.c"
	.text
	.align	2
	.p2align 4,,11
	.global	to_upper
	.type	to_upper, %function
to_upper:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L5
	mov	x2, x0
	mov	x0, 0
	add	x4, x2, x1
	.p2align 3,,7
.L4:
	ldrb	w1, [x2]
	sub	w3, w1, #97
	sub	w1, w1, #32
	and	w3, w3, 255
	cmp	w3, 25
	bhi	.L3
	add	x0, x0, 1
	strb	w1, [x2]
.L3:
	add	x2, x2, 1
	cmp	x2, x4
	bne	.L4
	ret
	.p2align 2,,3
.L5:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	to_upper, .-to_upper
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
