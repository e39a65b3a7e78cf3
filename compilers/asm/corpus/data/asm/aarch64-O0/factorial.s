	.arch armv8-a
	.file	"factorial.c"
	.text
	.align	2
	.global	factorial
	.type	factorial, %function
factorial:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	mov	x0, 1
	str	x0, [sp, 24]
	mov	x0, 2
	str	x0, [sp, 16]
	b	.L2
.L3:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	mul	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L2:
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	ble	.L3
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	factorial, .-factorial
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
