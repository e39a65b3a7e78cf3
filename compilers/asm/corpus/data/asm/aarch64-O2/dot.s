	.arch armv8-a
	.file	"dot.c"
	.text
	.align	2
	.p2align 4,,11
	.global	dot
	.type	dot, %function
dot:
.LFB0:
	.cfi_startproc
	mov	x6, x0
	cmp	x2, 0
	ble	.L4
	mov	x3, 0
	mov	x0, 0
	.p2align 3,,7
.L3:
	ldr	x5, [x6, x3, lsl 3]
	ldr	x4, [x1, x3, lsl 3]
	add	x3, x3, 1
	madd	x0, x5, x4, x0
	cmp	x2, x3
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	dot, .-dot
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
