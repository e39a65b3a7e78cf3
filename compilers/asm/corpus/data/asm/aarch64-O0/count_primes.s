	.arch armv8-a
	.file	"count_primes.c"
	.text
	.align	2
	.global	count_primes
	.type	count_primes, %function
count_primes:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	str	xzr, [sp, 40]
	mov	x0, 2
	str	x0, [sp, 32]
	b	.L2
.L7:
	mov	x0, 1
	str	x0, [sp, 24]
	mov	x0, 2
	str	x0, [sp, 16]
	b	.L3
.L6:
	ldr	x0, [sp, 32]
	ldr	x1, [sp, 16]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 16]
	mul	x1, x2, x1
	sub	x0, x0, x1
	cmp	x0, 0
	bne	.L4
	str	xzr, [sp, 24]
	b	.L5
.L4:
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L3:
	ldr	x0, [sp, 16]
	mul	x0, x0, x0
	ldr	x1, [sp, 32]
	cmp	x1, x0
	bge	.L6
.L5:
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 40]
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 32]
.L2:
	ldr	x0, [sp, 8]
	lsl	x0, x0, 3
	ldr	x1, [sp, 32]
	cmp	x1, x0
	ble	.L7
	ldr	x0, [sp, 40]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_primes, .-count_primes
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
