	.arch armv8-a
	.file	"binom.c"
	.text
	.align	2
	.global	binom
	.type	binom, %function
binom:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp]
	cmp	x0, 0
	blt	.L2
	ldr	x1, [sp]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L3
.L2:
	mov	x0, 0
	b	.L4
.L3:
	mov	x0, 1
	str	x0, [sp, 24]
	mov	x0, 1
	str	x0, [sp, 16]
	b	.L5
.L6:
	ldr	x1, [sp, 8]
	ldr	x0, [sp]
	sub	x1, x1, x0
	ldr	x0, [sp, 16]
	add	x1, x1, x0
	ldr	x0, [sp, 24]
	mul	x1, x1, x0
	ldr	x0, [sp, 16]
	sdiv	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L5:
	ldr	x1, [sp, 16]
	ldr	x0, [sp]
	cmp	x1, x0
	ble	.L6
	ldr	x0, [sp, 24]
.L4:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	binom, .-binom
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
