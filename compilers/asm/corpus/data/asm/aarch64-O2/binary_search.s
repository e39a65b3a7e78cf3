	.arch armv8-a
	.file	"binary_search.c"
	.text
	.align	2
	.p2align 4,,11
	.global	binary_search
	.type	binary_search, %function
binary_search:
.LFB0:
	.cfi_startproc
	mov	x6, x0
	cmp	x1, 1
	ble	.L2
	add	x3, x0, 8
	add	x0, x0, x1, lsl 3
	.p2align 3,,7
.L4:
	ldp	x4, x5, [x3, -8]
	cmp	x5, x4
	bge	.L3
	str	x4, [x3]
.L3:
	add	x3, x3, 8
	cmp	x0, x3
	bne	.L4
	sub	x3, x1, #1
.L11:
	mov	x1, 0
	b	.L10
	.p2align 2,,3
.L16:
	add	x1, x0, 1
	cmp	x3, x1
	blt	.L6
.L10:
	sub	x0, x3, x1
	add	x0, x1, x0, asr 1
	ldr	x4, [x6, x0, lsl 3]
	cmp	x4, x2
	beq	.L1
	blt	.L16
	sub	x3, x0, #1
	cmp	x3, x1
	bge	.L10
.L6:
	mov	x0, -1
.L1:
	ret
	.p2align 2,,3
.L2:
	bne	.L6
	mov	x3, 0
	b	.L11
	.cfi_endproc
.LFE0:
	.size	binary_search, .-binary_search
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
