	.arch armv8-a
	.file	"sum_sq_digits.c"
	.text
	.align	2
	.global	sum_sq_digits
	.type	sum_sq_digits, %function
sum_sq_digits:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bge	.L2
	ldr	x0, [sp, 8]
	neg	x0, x0
	str	x0, [sp, 8]
.L2:
	str	xzr, [sp, 24]
	b	.L3
.L4:
	ldr	x1, [sp, 8]
	mov	x0, 7378697629483820646
	movk	x0, 0x6667, lsl 0
	smulh	x0, x1, x0
	asr	x2, x0, 2
	asr	x0, x1, 63
	sub	x2, x2, x0
	mov	x0, x2
	lsl	x0, x0, 2
	add	x0, x0, x2
	lsl	x0, x0, 1
	sub	x0, x1, x0
	str	x0, [sp, 16]
	ldr	x0, [sp, 16]
	mul	x0, x0, x0
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 8]
	mov	x1, 7378697629483820646
	movk	x1, 0x6667, lsl 0
	smulh	x1, x0, x1
	asr	x1, x1, 2
	asr	x0, x0, 63
	sub	x0, x1, x0
	str	x0, [sp, 8]
.L3:
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bne	.L4
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	sum_sq_digits, .-sum_sq_digits
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
