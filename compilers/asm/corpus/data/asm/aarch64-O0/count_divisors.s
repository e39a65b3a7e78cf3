	.arch armv8-a
	.file	"count_divisors.c"
	.text
	.align	2
	.global	count_divisors
	.type	count_divisors, %function
count_divisors:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	add	x0, x0, 1
	str	x0, [sp, 24]
	str	xzr, [sp, 40]
	mov	x0, 1
	str	x0, [sp, 32]
	b	.L2
.L4:
	ldr	x0, [sp, 24]
	ldr	x1, [sp, 32]
	sdiv	x2, x0, x1
	ldr	x1, [sp, 32]
	mul	x1, x2, x1
	sub	x0, x0, x1
	cmp	x0, 0
	bne	.L3
	ldr	x0, [sp, 40]
	add	x0, x0, 1
	str	x0, [sp, 40]
.L3:
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 32]
.L2:
	ldr	x1, [sp, 32]
	ldr	x0, [sp, 24]
	cmp	x1, x0
	ble	.L4
	ldr	x0, [sp, 40]
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_divisors, .-count_divisors
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
