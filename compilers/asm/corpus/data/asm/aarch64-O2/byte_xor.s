	.arch armv8-a
	.file	"byte_xor.c"
	.text
	.align	2
	.p2align 4,,11
	.global	byte_xor
	.type	byte_xor, %function
byte_xor:
.LFB0:
	.cfi_startproc
	mov	x3, x0
	and	w2, w2, 255
	mov	x0, x1
	add	x5, x3, x1
	cmp	x1, 0
	ble	.L7
	.p2align 3,,7
.L3:
	ldrb	w4, [x3]
	eor	w4, w2, w4
	strb	w4, [x3], 1
	cmp	x3, x5
	bne	.L3
.L7:
	ret
	.cfi_endproc
.LFE0:
	.size	byte_xor, .-byte_xor
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
