	.arch armv8-a
	.file	"count_primes.c"
	.text
	.align	2
	.p2align 4,,11
	.global	count_primes
	.type	count_primes, %function
count_primes:
.LFB0:
	.cfi_startproc
	lsl	x4, x0, 3
	cmp	x4, 1
	ble	.L8
	add	x4, x4, 1
	mov	x3, 2
	mov	x0, 0
	.p2align 3,,7
.L3:
	cmp	x3, 3
	ble	.L15
	tbz	x3, 0, .L4
	mov	x1, 2
	b	.L7
	.p2align 2,,3
.L5:
	udiv	x2, x3, x1
	msub	x2, x2, x1, x3
	cbz	x2, .L4
.L7:
	add	x1, x1, 1
	mul	x2, x1, x1
	cmp	x2, x3
	ble	.L5
.L15:
	add	x0, x0, 1
.L4:
	add	x3, x3, 1
	cmp	x4, x3
	bne	.L3
	ret
.L8:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_primes, .-count_primes
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
