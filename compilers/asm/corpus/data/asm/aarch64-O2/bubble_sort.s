	.arch armv8-a
	.file	"bubble_sort.c"
	.text
	.align	2
	.p2align 4,,11
	.global	bubble_sort
	.type	bubble_sort, %function
bubble_sort:
.LFB0:
	.cfi_startproc
	mov	x7, x0
	mov	x0, x1
	cmp	x1, 0
	ble	.L11
	mov	x6, x1
	add	x5, x7, x1, lsl 3
.L3:
	add	x2, x7, 8
	cmp	x6, 1
	ble	.L19
	.p2align 3,,7
.L5:
	ldp	x3, x4, [x2, -8]
	cmp	x3, x4
	ble	.L4
	stp	x4, x3, [x2, -8]
.L4:
	add	x2, x2, 8
	cmp	x2, x5
	bne	.L5
	sub	x6, x6, #1
	sub	x5, x5, #8
	add	x2, x7, 8
	cmp	x6, 1
	bgt	.L5
.L19:
	subs	x6, x6, #1
	bne	.L20
.L11:
	ret
.L20:
	sub	x5, x5, #8
	b	.L3
	.cfi_endproc
.LFE0:
	.size	bubble_sort, .-bubble_sort
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
