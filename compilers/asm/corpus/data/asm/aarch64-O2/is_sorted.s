	.arch armv8-a
	.file	"is_sorted.c"
	.text
	.align	2
	.p2align 4,,11
	.global	is_sorted
	.type	is_sorted, %function
is_sorted:
.LFB0:
	.cfi_startproc
	cmp	x1, 1
	ble	.L4
	sub	x5, x0, #8
	mov	x2, 1
	b	.L3
	.p2align 2,,3
.L8:
	cmp	x1, x2
	beq	.L4
.L3:
	ldr	x4, [x5, x2, lsl 3]
	ldr	x3, [x0, x2, lsl 3]
	add	x2, x2, 1
	cmp	x4, x3
	ble	.L8
	mov	x0, 0
	ret
	.p2align 2,,3
.L4:
	mov	x0, 1
	ret
	.cfi_endproc
.LFE0:
	.size	is_sorted, .-is_sorted
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
