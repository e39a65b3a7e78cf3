	.arch armv8-a
	.file	"collatz_steps.c"
	.text
	.align	2
	.global	collatz_steps
	.type	collatz_steps, %function
collatz_steps:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	add	x0, x0, 1
	str	x0, [sp, 24]
	str	xzr, [sp, 16]
	b	.L2
.L5:
	ldr	x0, [sp, 24]
	and	x0, x0, 1
	cmp	x0, 0
	beq	.L3
	ldr	x1, [sp, 24]
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	add	x0, x0, 1
	b	.L4
.L3:
	ldr	x0, [sp, 24]
	lsr	x1, x0, 63
	add	x0, x1, x0
	asr	x0, x0, 1
.L4:
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L2:
	ldr	x0, [sp, 24]
	cmp	x0, 1
	bne	.L5
	ldr	x0, [sp, 16]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	collatz_steps, .-collatz_steps
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
