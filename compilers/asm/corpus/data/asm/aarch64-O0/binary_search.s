	.arch armv8-a
	.file	"binary_search.c"
	.text
	.align	2
	.global	binary_search
	.type	binary_search, %function
binary_search:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #64
	.cfi_def_cfa_offset 64
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	mov	x0, 1
	str	x0, [sp, 56]
	b	.L2
.L4:
	ldr	x0, [sp, 56]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x1, [x0]
	ldr	x0, [sp, 56]
	lsl	x0, x0, 3
	sub	x0, x0, #8
	ldr	x2, [sp, 24]
	add	x0, x2, x0
	ldr	x0, [x0]
	cmp	x1, x0
	bge	.L3
	ldr	x0, [sp, 56]
	lsl	x0, x0, 3
	sub	x0, x0, #8
	ldr	x1, [sp, 24]
	add	x1, x1, x0
	ldr	x0, [sp, 56]
	lsl	x0, x0, 3
	ldr	x2, [sp, 24]
	add	x0, x2, x0
	ldr	x1, [x1]
	str	x1, [x0]
.L3:
	ldr	x0, [sp, 56]
	add	x0, x0, 1
	str	x0, [sp, 56]
.L2:
	ldr	x1, [sp, 56]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	blt	.L4
	str	xzr, [sp, 48]
	ldr	x0, [sp, 16]
	sub	x0, x0, #1
	str	x0, [sp, 40]
	b	.L5
.L9:
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 48]
	sub	x0, x1, x0
	lsr	x1, x0, 63
	add	x0, x1, x0
	asr	x0, x0, 1
	mov	x1, x0
	ldr	x0, [sp, 48]
	add	x0, x0, x1
	str	x0, [sp, 32]
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 8]
	cmp	x1, x0
	bne	.L6
	ldr	x0, [sp, 32]
	b	.L7
.L6:
	ldr	x0, [sp, 32]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x0, [x0]
	ldr	x1, [sp, 8]
	cmp	x1, x0
	ble	.L8
	ldr	x0, [sp, 32]
	add	x0, x0, 1
	str	x0, [sp, 48]
	b	.L5
.L8:
	ldr	x0, [sp, 32]
	sub	x0, x0, #1
	str	x0, [sp, 40]
.L5:
	ldr	x1, [sp, 48]
	ldr	x0, [sp, 40]
	cmp	x1, x0
	ble	.L9
	mov	x0, -1
.L7:
	add	sp, sp, 64
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	binary_search, .-binary_search
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
