	.arch armv8-a
	.file	"sign.c"
	.text
	.align	2
	.global	sign
	.type	sign, %function
sign:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	cmp	x0, 0
	cset	w0, gt
	and	w0, w0, 255
	mov	w1, w0
	ldr	x0, [sp, 8]
	lsr	x0, x0, 63
	and	w0, w0, 255
	sub	w0, w1, w0
	sxtw	x0, w0
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	sign, .-sign
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
