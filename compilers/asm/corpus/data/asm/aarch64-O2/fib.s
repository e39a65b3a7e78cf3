	.arch armv8-a
	.file	"fib.c"
	.text
	.align	2
	.p2align 4,,11
	.global	fib
	.type	fib, %function
fib:
.LFB0:
	.cfi_startproc
	mov	x4, x0
	cmp	x0, 0
	ble	.L4
	mov	x2, 0
	mov	x1, 1
	mov	x3, 0
	.p2align 3,,7
.L3:
	mov	x0, x1
	add	x2, x2, 1
	add	x1, x1, x3
	mov	x3, x0
	cmp	x4, x2
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	fib, .-fib
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
