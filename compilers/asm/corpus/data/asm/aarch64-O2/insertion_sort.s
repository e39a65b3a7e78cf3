	.arch armv8-a
	.file	"insertion_sort.c"
	.text
	.align	2
	.p2align 4,,11
	.global	insertion_sort
	.type	insertion_sort, %function
insertion_sort:
.LFB0:
	.cfi_startproc
	mov	x10, x0
	mov	x0, x1
	cmp	x1, 1
	ble	.L10
	add	x7, x10, 8
	add	x9, x10, x1, lsl 3
	mov	x8, 0
	.p2align 3,,7
.L6:
	ldr	x6, [x7]
	mov	x3, x8
	mov	x2, x7
	b	.L3
	.p2align 2,,3
.L5:
	str	x4, [x2]
	sub	x2, x5, #8
	cmn	x3, #1
	beq	.L8
.L3:
	ldr	x4, [x2, -8]
	sub	x3, x3, #1
	mov	x5, x2
	cmp	x4, x6
	bgt	.L5
	add	x7, x7, 8
	str	x6, [x5]
	add	x8, x8, 1
	cmp	x9, x7
	bne	.L6
.L10:
	ret
	.p2align 2,,3
.L8:
	mov	x5, x10
	add	x7, x7, 8
	add	x8, x8, 1
	str	x6, [x5]
	cmp	x9, x7
	bne	.L6
	b	.L10
	.cfi_endproc
.LFE0:
	.size	insertion_sort, .-insertion_sort
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
