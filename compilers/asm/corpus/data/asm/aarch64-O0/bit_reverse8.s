	.arch armv8-a
	.file	"bit_reverse8.c"
	.text
	.align	2
	.global	bit_reverse8
	.type	bit_reverse8, %function
bit_reverse8:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	xzr, [sp, 24]
	str	wzr, [sp, 20]
	b	.L2
.L3:
	ldr	x0, [sp, 24]
	lsl	x1, x0, 1
	ldr	x0, [sp, 8]
	and	x0, x0, 1
	orr	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 8]
	lsr	x0, x0, 1
	str	x0, [sp, 8]
	ldr	w0, [sp, 20]
	add	w0, w0, 1
	str	w0, [sp, 20]
.L2:
	ldr	w0, [sp, 20]
	cmp	w0, 7
	ble	.L3
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	bit_reverse8, .-bit_reverse8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
