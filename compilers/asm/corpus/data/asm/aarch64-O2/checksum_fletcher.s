	.arch armv8-a
	.file	"checksum_fletcher.c"
	.text
	.align	2
	.p2align 4,,11
	.global	checksum_fletcher
	.type	checksum_fletcher, %function
checksum_fletcher:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	mov	x4, -9187201950435737472
	add	x6, x0, x1
	mov	x2, 0
	mov	x1, 0
	movk	x4, 0x8081, lsl 0
	.p2align 3,,7
.L3:
	ldrb	w3, [x0], 1
	add	x3, x3, x1
	umulh	x1, x3, x4
	lsr	x1, x1, 7
	lsl	x5, x1, 8
	sub	x1, x5, x1
	sub	x1, x3, x1
	add	x3, x1, x2
	umulh	x2, x3, x4
	lsr	x2, x2, 7
	lsl	x5, x2, 8
	sub	x2, x5, x2
	sub	x2, x3, x2
	cmp	x6, x0
	bne	.L3
	orr	x0, x1, x2, lsl 8
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	checksum_fletcher, .-checksum_fletcher
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
