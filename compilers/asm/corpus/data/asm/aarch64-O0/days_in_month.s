	.arch armv8-a
	.file	"days_in_month.c"
	.text
	.align	2
	.global	days_in_month
	.type	days_in_month, %function
days_in_month:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x2, [sp]
	mov	x0, 43691
	movk	x0, 0xaaaa, lsl 16
	movk	x0, 0xaaaa, lsl 32
	movk	x0, 0x2aaa, lsl 48
	smulh	x0, x2, x0
	asr	x1, x0, 1
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	lsl	x0, x0, 2
	sub	x1, x2, x0
	add	x0, x1, 1
	str	x0, [sp, 24]
	ldr	x0, [sp, 24]
	cmp	x0, 2
	bne	.L2
	ldr	x0, [sp, 8]
	and	x0, x0, 3
	cmp	x0, 0
	bne	.L3
	ldr	x2, [sp, 8]
	mov	x0, 55051
	movk	x0, 0x70a3, lsl 16
	movk	x0, 0xa3d, lsl 32
	movk	x0, 0xa3d7, lsl 48
	smulh	x0, x2, x0
	add	x0, x0, x2
	asr	x1, x0, 6
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	lsl	x0, x0, 3
	add	x0, x0, x1
	lsl	x0, x0, 2
	sub	x1, x2, x0
	cmp	x1, 0
	bne	.L4
.L3:
	ldr	x2, [sp, 8]
	mov	x0, 55051
	movk	x0, 0x70a3, lsl 16
	movk	x0, 0xa3d, lsl 32
	movk	x0, 0xa3d7, lsl 48
	smulh	x0, x2, x0
	add	x0, x0, x2
	asr	x1, x0, 8
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	lsl	x0, x0, 3
	add	x0, x0, x1
	lsl	x0, x0, 4
	sub	x1, x2, x0
	cmp	x1, 0
	bne	.L5
.L4:
	mov	x0, 29
	b	.L7
.L5:
	mov	x0, 28
	b	.L7
.L2:
	ldr	x0, [sp, 24]
	cmp	x0, 4
	beq	.L8
	ldr	x0, [sp, 24]
	cmp	x0, 6
	beq	.L8
	ldr	x0, [sp, 24]
	cmp	x0, 9
	beq	.L8
	ldr	x0, [sp, 24]
	cmp	x0, 11
	bne	.L9
.L8:
	mov	x0, 30
	b	.L7
.L9:
	mov	x0, 31
.L7:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	days_in_month, .-days_in_month
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
