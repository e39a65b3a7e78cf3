	.arch armv8-a
	.file	"array_reverse.c"
	.text
	.align	2
	.p2align 4,,11
	.global	array_reverse
	.type	array_reverse, %function
array_reverse:
.LFB0:
	.cfi_startproc
	sub	x2, x1, #1
	mov	x4, x0
	mov	x0, x1
	cmp	x2, 0
	ble	.L2
	mov	x3, 0
	.p2align 3,,7
.L3:
	ldr	x6, [x4, x2, lsl 3]
	ldr	x5, [x4, x3, lsl 3]
	str	x6, [x4, x3, lsl 3]
	add	x3, x3, 1
	str	x5, [x4, x2, lsl 3]
	sub	x2, x2, #1
	cmp	x3, x2
	blt	.L3
.L2:
	ret
	.cfi_endproc
.LFE0:
	.size	array_reverse, .-array_reverse
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
