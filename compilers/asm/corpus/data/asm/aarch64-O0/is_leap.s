	.arch armv8-a
	.file	"is_leap.c"
	.text
	.align	2
	.global	is_leap
	.type	is_leap, %function
is_leap:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	and	x0, x0, 3
	cmp	x0, 0
	bne	.L2
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
	bne	.L3
.L2:
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
	bne	.L4
.L3:
	mov	w0, 1
	b	.L5
.L4:
	mov	w0, 0
.L5:
	sxtw	x0, w0
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	is_leap, .-is_leap
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
