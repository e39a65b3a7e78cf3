	.arch armv8-a
	.file	"euler6.c"
	.text
	.align	2
	.p2align 4,,11
	.global	euler6
	.type	euler6, %function
euler6:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	ble	.L4
	add	x3, x0, 1
	mov	x1, 1
	mov	x0, 0
	mov	x2, 0
	.p2align 3,,7
.L3:
	madd	x0, x1, x1, x0
	add	x2, x2, x1
	add	x1, x1, 1
	cmp	x3, x1
	bne	.L3
	mul	x2, x2, x2
	sub	x0, x2, x0
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	euler6, .-euler6
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
