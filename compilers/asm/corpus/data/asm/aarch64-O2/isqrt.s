	.arch armv8-a
	.file	"isqrt.c"
	.text
	.align	2
	.p2align 4,,11
	.global	isqrt
	.type	isqrt, %function
isqrt:
.LFB0:
	.cfi_startproc
	mov	x3, x0
	tbnz	x0, #63, .L4
	mov	x1, 0
	.p2align 3,,7
.L3:
	mov	x0, x1
	add	x1, x1, 1
	mul	x2, x1, x1
	cmp	x2, x3
	ble	.L3
	ret
.L4:
	mov	x0, -1
	ret
	.cfi_endproc
.LFE0:
	.size	isqrt, .-isqrt
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
