	.arch armv8-a
	.file	"count_divisors.c"
	.text
	.align	2
	.p2align 4,,11
	.global	count_divisors
	.type	count_divisors, %function
count_divisors:
.LFB0:
	.cfi_startproc
	add	x3, x0, 1
	cmp	x3, 0
	ble	.L5
	add	x4, x0, 2
	mov	x1, 1
	mov	x0, 0
	.p2align 3,,7
.L4:
	sdiv	x2, x3, x1
	msub	x2, x2, x1, x3
	add	x1, x1, 1
	cmp	x2, 0
	cinc	x0, x0, eq
	cmp	x1, x4
	bne	.L4
	ret
	.p2align 2,,3
.L5:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_divisors, .-count_divisors
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
