	.arch armv8-a
	.file	"count_primes_arr.c"
	.text
	.align	2
	.p2align 4,,11
	.global	count_primes_arr
	.type	count_primes_arr, %function
count_primes_arr:
.LFB1:
	.cfi_startproc
	cmp	x1, 0
	ble	.L8
	mov	x4, x0
	mov	x0, 0
	add	x5, x4, x1, lsl 3
	.p2align 3,,7
.L7:
	ldr	x2, [x4]
	cmp	x2, 0
	csneg	x2, x2, x2, ge
	cmp	x2, 1
	ble	.L3
	cmp	x2, 3
	ble	.L16
	tbz	x2, 0, .L3
	mov	x1, 2
	b	.L5
	.p2align 2,,3
.L6:
	udiv	x3, x2, x1
	msub	x3, x3, x1, x2
	cbz	x3, .L3
.L5:
	add	x1, x1, 1
	mul	x3, x1, x1
	cmp	x2, x3
	bge	.L6
.L16:
	add	x0, x0, 1
.L3:
	add	x4, x4, 8
	cmp	x5, x4
	bne	.L7
	ret
.L8:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE1:
	.size	count_primes_arr, .-count_primes_arr
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
