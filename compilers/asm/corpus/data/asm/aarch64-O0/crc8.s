	.arch armv8-a
	.file	"crc8.c"
	.text
	.align	2
	.global	crc8
	.type	crc8, %function
crc8:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 8]
	str	xzr, [sp, 24]
	str	wzr, [sp, 20]
	b	.L2
.L7:
	ldr	w0, [sp, 20]
	lsl	w0, w0, 3
	ldr	x1, [sp, 8]
	lsr	x0, x1, x0
	and	x0, x0, 255
	ldr	x1, [sp, 24]
	eor	x0, x1, x0
	str	x0, [sp, 24]
	str	wzr, [sp, 16]
	b	.L3
.L6:
	ldr	x0, [sp, 24]
	and	x0, x0, 128
	cmp	x0, 0
	beq	.L4
	ldr	x0, [sp, 24]
	lsl	x0, x0, 1
	eor	x0, x0, 7
	and	x0, x0, 255
	b	.L5
.L4:
	ldr	x0, [sp, 24]
	lsl	x0, x0, 1
	and	x0, x0, 255
.L5:
	str	x0, [sp, 24]
	ldr	w0, [sp, 16]
	add	w0, w0, 1
	str	w0, [sp, 16]
.L3:
	ldr	w0, [sp, 16]
	cmp	w0, 7
	ble	.L6
	ldr	w0, [sp, 20]
	add	w0, w0, 1
	str	w0, [sp, 20]
.L2:
	ldr	w0, [sp, 20]
	cmp	w0, 7
	ble	.L7
	ldr	x0, [sp, 24]
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	crc8, .-crc8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
