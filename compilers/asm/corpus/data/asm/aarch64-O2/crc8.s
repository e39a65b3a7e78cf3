	.arch armv8-a
	.file	"crc8.c"
	.text
	.align	2
	.p2align 4,,11
	.global	crc8
	.type	crc8, %function
crc8:
.LFB0:
	.cfi_startproc
	mov	x4, x0
	mov	w3, 0
	mov	x0, 0
	.p2align 3,,7
.L5:
	lsr	x1, x4, x3
	and	x1, x1, 255
	eor	x0, x0, x1
	mov	w2, 8
	.p2align 3,,7
.L4:
	lsl	x1, x0, 1
	tst	x0, 128
	eor	x0, x1, 7
	and	x1, x1, 255
	and	x0, x0, 255
	csel	x0, x1, x0, eq
	subs	w2, w2, #1
	bne	.L4
	add	w3, w3, 8
	cmp	w3, 64
	bne	.L5
	ret
	.cfi_endproc
.LFE0:
	.size	crc8, .-crc8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
