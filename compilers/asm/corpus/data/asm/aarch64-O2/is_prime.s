	.arch armv8-a
	.file	"is_prime.c"
	.text
	.align	2
	.p2align 4,,11
	.global	is_prime
	.type	is_prime, %function
is_prime:
.LFB0:
	.cfi_startproc
	mov	x2, x0
	cmp	x0, 1
	ble	.L7
	cmp	x0, 3
	ble	.L6
	and	x0, x0, 1
	tbz	x2, 0, .L1
	mov	x1, 2
	b	.L3
	.p2align 2,,3
.L4:
	sdiv	x3, x2, x1
	msub	x3, x3, x1, x2
	cbz	x3, .L7
.L3:
	add	x1, x1, 1
	mul	x3, x1, x1
	cmp	x3, x2
	ble	.L4
.L1:
	ret
	.p2align 2,,3
.L7:
	mov	x0, 0
	ret
.L6:
	mov	x0, 1
	ret
	.cfi_endproc
.LFE0:
	.size	is_prime, .-is_prime
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
