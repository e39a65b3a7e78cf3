	.arch armv8-a
	.file	"is_palindrome_num.c"
	.text
	.align	2
	.global	is_palindrome_num
	.type	is_palindrome_num, %function
is_palindrome_num:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	bge	.L2
	mov	x0, 0
	b	.L3
.L2:
	str	xzr, [sp, 24]
	ldr	x0, [sp, 8]
	str	x0, [sp, 16]
	b	.L4
.L5:
	ldr	x1, [sp, 24]
	mov	x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	lsl	x0, x0, 1
	mov	x3, x0
	ldr	x2, [sp, 16]
	mov	x0, 7378697629483820646
	movk	x0, 0x6667, lsl 0
	smulh	x0, x2, x0
	asr	x1, x0, 2
	asr	x0, x2, 63
	sub	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	lsl	x0, x0, 1
	sub	x1, x2, x0
	add	x0, x3, x1
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	mov	x1, 7378697629483820646
	movk	x1, 0x6667, lsl 0
	smulh	x1, x0, x1
	asr	x1, x1, 2
	asr	x0, x0, 63
	sub	x0, x1, x0
	str	x0, [sp, 16]
.L4:
	ldr	x0, [sp, 16]
	cmp	x0, 0
	bgt	.L5
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 8]
	cmp	x1, x0
	cset	w0, eq
	and	w0, w0, 255
	and	x0, x0, 255
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	is_palindrome_num, .-is_palindrome_num
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
