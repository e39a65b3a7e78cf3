	.arch armv8-a
	.file	"checksum_fletcher.c"
	.text
	.align	2
	.global	checksum_fletcher
	.type	checksum_fletcher, %function
checksum_fletcher:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	str	x0, [sp, 8]
	str	x1, [sp]
	str	xzr, [sp, 40]
	str	xzr, [sp, 32]
	str	xzr, [sp, 24]
	b	.L2
.L3:
	ldr	x0, [sp, 24]
	ldr	x1, [sp, 8]
	add	x0, x1, x0
	ldrb	w0, [x0]
	and	x1, x0, 255
	ldr	x0, [sp, 40]
	add	x1, x1, x0
	mov	x0, -9187201950435737472
	movk	x0, 0x8081, lsl 0
	umulh	x0, x1, x0
	lsr	x2, x0, 7
	mov	x0, x2
	lsl	x0, x0, 8
	sub	x0, x0, x2
	sub	x0, x1, x0
	str	x0, [sp, 40]
	ldr	x1, [sp, 32]
	ldr	x0, [sp, 40]
	add	x1, x1, x0
	mov	x0, -9187201950435737472
	movk	x0, 0x8081, lsl 0
	umulh	x0, x1, x0
	lsr	x2, x0, 7
	mov	x0, x2
	lsl	x0, x0, 8
	sub	x0, x0, x2
	sub	x0, x1, x0
	str	x0, [sp, 32]
	ldr	x0, [sp, 24]
	add	x0, x0, 1
	str	x0, [sp, 24]
.L2:
	ldr	x1, [sp, 24]
	ldr	x0, [sp]
	cmp	x1, x0
	blt	.L3
	ldr	x0, [sp, 32]
	lsl	x1, x0, 8
	ldr	x0, [sp, 40]
	orr	x0, x1, x0
	add	sp, sp, 48
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	checksum_fletcher, .-checksum_fletcher
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
