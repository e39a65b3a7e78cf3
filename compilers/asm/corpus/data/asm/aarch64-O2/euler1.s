	.arch armv8-a
	.file	"euler1.c"
	.text
	.align	2
	.p2align 4,,11
	.global	euler1
	.type	euler1, %function
euler1:
.LFB0:
	.cfi_startproc
	add	x4, x0, x0, lsl 2
	lsl	x4, x4, 1
	cmp	x0, 0
	ble	.L6
	mov	x7, -6148914691236517206
	mov	x5, -3689348814741910324
	mov	x1, 0
	mov	x0, 0
	movk	x7, 0xaaab, lsl 0
	mov	x6, 6148914691236517205
	movk	x5, 0xcccd, lsl 0
	mov	x8, 3689348814741910323
	.p2align 3,,7
.L5:
	mul	x2, x1, x7
	mul	x3, x1, x5
	cmp	x2, x6
	bls	.L3
	cmp	x3, x8
	bhi	.L4
.L3:
	add	x0, x0, x1
.L4:
	add	x1, x1, 1
	cmp	x1, x4
	blt	.L5
	ret
	.p2align 2,,3
.L6:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	euler1, .-euler1
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
