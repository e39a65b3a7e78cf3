	.arch armv8-a
	.file	"sum_of_gcds.c"
	.text
	.align	2
	.p2align 4,,11
	.global	sum_of_gcds
	.type	sum_of_gcds, %function
sum_of_gcds:
.LFB1:
	.cfi_startproc
	cmp	x1, 1
	ble	.L6
	add	x6, x0, x1, lsl 3
	add	x5, x0, 8
	mov	x0, 0
	.p2align 3,,7
.L5:
	ldp	x2, x1, [x5, -8]
	cmp	x2, 0
	csneg	x2, x2, x2, ge
	cmp	x1, 0
	csneg	x1, x1, x1, ge
	beq	.L7
	.p2align 3,,7
.L4:
	udiv	x4, x2, x1
	mov	x3, x1
	msub	x1, x4, x1, x2
	mov	x2, x3
	cbnz	x1, .L4
	add	x5, x5, 8
	add	x0, x0, x3
	cmp	x6, x5
	bne	.L5
.L1:
	ret
	.p2align 2,,3
.L7:
	mov	x3, x2
	add	x5, x5, 8
	add	x0, x0, x3
	cmp	x6, x5
	bne	.L5
	b	.L1
.L6:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE1:
	.size	sum_of_gcds, .-sum_of_gcds
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
