	.arch armv8-a
	.file	"rle_count.c"
	.text
	.align	2
	.global	rle_count
	.type	rle_count, %function
rle_count:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp]
	cmp	x0, 0
	bgt	.L2
	mov	x0, 0
	b	.L3
.L2:
	mov	x0, 1
	str	x0, [sp, 24]
	mov	x0, 1
	str	x0, [sp, 16]
	b	.L4
.L5:
	ldr	x0, [sp, 16]
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldrb	w1, [x0]
	ldr	x0, [sp, 16]
	sub	x0, x0, #1
	ldr	x2, [sp, 8]
	add	x0, x2, x0
	ldrb	w0, [x0]
	cmp	w1, w0
	cset	w0, ne
	and	w0, w0, 255
	and	x0, x0, 255
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 16]
	add	x0, x0, 1
	str	x0, [sp, 16]
.L4:
	ldr	x1, [sp, 16]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L5
	ldr	x0, [sp, 24]
.L3:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	rle_count, .-rle_count
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
