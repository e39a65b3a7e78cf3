	.arch armv8-a
	.file	"memswap.c"
	.text
	.align	2
	.p2align 4,,11
	.global	memswap
	.type	memswap, %function
memswap:
.LFB1:
	.cfi_startproc
	mov	x4, x0
	mov	x0, x2
	cmp	x2, 0
	ble	.L2
	mov	x3, 0
	.p2align 3,,7
.L3:
	ldr	x6, [x1, x3, lsl 3]
	ldr	x5, [x4, x3, lsl 3]
	str	x6, [x4, x3, lsl 3]
	str	x5, [x1, x3, lsl 3]
	add	x3, x3, 1
	cmp	x0, x3
	bne	.L3
.L2:
	ret
	.cfi_endproc
.LFE1:
	.size	memswap, .-memswap
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
