	.arch armv8-a
	.file	"euler1.c"
	.text
	.align	2
	.global	euler1
	.type	euler1, %function
euler1:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	xzr, [sp, 24]
	str	xzr, [sp, 16]
	b	.L2
.L5:
	ldr	x2, [sp, 16]
	mov	x0, 6148914691236517205
	movk	x0, 0x5556, lsl 0
	smulh	x1, x2, x0
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	sub	x1, x2, x0
	cmp	x1, 0
	beq	.L3
	ldr	x2, [sp, 16]
	mov	x0, 7378697629483820646
	movk	x0, 0x6667, lsl 0
	smulh	x0, x2, x0
	asr	x1, x0, 1
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	sub	x1, x2, x0
	cmp	x1, 0
	bne	.L4
.L3:
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x1, x0
	str	x0, [sp, 24]
.L4:
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L2:
	ldr	x1, [sp, 8]
	mov	x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	lsl	x0, x0, 1
	mov	x1, x0
	ldr	x0, [sp, 16]
	cmp	x0, x1
	blt	.L5
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	euler1, .-euler1
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
