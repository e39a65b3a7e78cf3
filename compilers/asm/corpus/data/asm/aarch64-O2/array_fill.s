	.arch armv8-a
	.file	"array_fill.c"
	.text
	.align	2
	.p2align 4,,11
	.global	array_fill
	.type	array_fill, %function
array_fill:
.LFB0:
	.cfi_startproc
	mov	x3, x0
	mov	x0, x1
	cmp	x1, 0
	ble	.L2
	add	x4, x1, x2
	sub	x3, x3, x2, lsl 3
	.p2align 3,,7
.L3:
	str	x2, [x3, x2, lsl 3]
	add	x2, x2, 1
	cmp	x2, x4
	bne	.L3
.L2:
	ret
	.cfi_endproc
.LFE0:
	.size	array_fill, .-array_fill
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
