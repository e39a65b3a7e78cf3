	.arch armv8-a
	.file	"fib_rec.c"
	.text
	.align	2
	.p2align 4,,11
	.type	fibr, %function
fibr:
.LFB0:
	.cfi_startproc
	stp	x29, x30, [sp, -256]!
	.cfi_def_cfa_offset 256
	.cfi_offset 29, -256
	.cfi_offset 30, -248
	mov	x29, sp
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -240
	.cfi_offset 20, -232
	mov	x20, x0
	cmp	x0, 1
	ble	.L2
	sub	x1, x0, #1
	stp	x23, x24, [sp, 48]
	.cfi_offset 24, -200
	.cfi_offset 23, -208
	and	x2, x1, -2
	sub	x19, x0, x2
	stp	x25, x26, [sp, 64]
	.cfi_offset 26, -184
	.cfi_offset 25, -192
	mov	x26, 0
	cmp	x20, x19
	beq	.L3
.L45:
	sub	x20, x20, #2
	stp	x21, x22, [sp, 32]
	.cfi_offset 22, -216
	.cfi_offset 21, -224
	and	x0, x20, -2
	sub	x22, x1, x0
	mov	x23, x1
	mov	x25, x22
	stp	x27, x28, [sp, 80]
	.cfi_offset 28, -168
	.cfi_offset 27, -176
	mov	x27, 0
	mov	x22, x27
.L26:
	sub	x21, x23, #1
	cmp	x23, x25
	beq	.L4
.L44:
	sub	x23, x23, #2
	mov	x1, x20
	and	x0, x23, -2
	mov	x20, x19
	sub	x24, x21, x0
	mov	x27, 0
.L24:
	sub	x0, x21, #1
	cmp	x21, x24
	beq	.L5
	sub	x28, x21, #2
	mov	x3, x20
	and	x2, x28, -2
	mov	x4, x23
	sub	x2, x0, x2
	mov	x19, 0
	mov	x20, x2
	mov	x21, x19
	mov	x23, x25
	mov	x5, x28
	mov	x2, x3
.L22:
	sub	x25, x0, #1
	cmp	x0, x20
	beq	.L6
	sub	x0, x0, #2
	mov	x10, x2
	and	x19, x0, -2
	mov	x2, x24
	sub	x19, x25, x19
	mov	x24, x20
	mov	x9, x19
	mov	x28, 0
	mov	x19, x26
	mov	x8, x28
	mov	x3, x23
	mov	x20, x21
	mov	x7, x0
.L20:
	sub	x6, x25, #1
	cmp	x9, x25
	beq	.L7
	sub	x25, x25, #2
	mov	x11, x27
	and	x26, x25, -2
	mov	x14, x25
	sub	x26, x6, x26
	mov	x27, x19
	mov	x12, x20
	mov	x13, x24
	mov	x25, x26
	mov	x23, 0
.L18:
	sub	x19, x6, #1
	cmp	x25, x6
	beq	.L8
	sub	x21, x6, #2
	sub	x24, x6, #3
	and	x0, x21, -2
	sub	x26, x6, #5
	mov	x20, 0
	sub	x6, x19, x0
	mov	x28, x20
	mov	x15, x26
	mov	x20, x6
	mov	x18, x24
.L16:
	sub	x0, x19, #1
	cmp	x20, x19
	beq	.L9
	and	x16, x18, -2
	mov	x24, 0
	sub	x6, x0, x16
	stp	x2, x3, [sp, 96]
	mov	x2, x6
	mov	x6, x21
	mov	x21, x19
	mov	x19, x15
	str	x1, [sp, 112]
	mov	x1, x24
	mov	x24, x20
.L14:
	cmp	x0, x2
	beq	.L10
	sub	x3, x0, #2
	and	x20, x19, -2
	sub	x0, x0, #4
	mov	x26, x3
	sub	x0, x0, x20
	mov	x20, 0
	str	x0, [sp, 120]
.L11:
	mov	x0, x26
	stp	x9, x11, [sp, 128]
	sub	x26, x26, #2
	stp	x12, x8, [sp, 144]
	stp	x1, x15, [sp, 160]
	stp	x18, x2, [sp, 176]
	stp	x13, x10, [sp, 192]
	stp	x4, x5, [sp, 208]
	stp	x7, x14, [sp, 224]
	stp	x6, x3, [sp, 240]
	bl	fibr
	add	x20, x20, x0
	ldp	x0, x9, [sp, 120]
	ldp	x11, x12, [sp, 136]
	ldp	x8, x1, [sp, 152]
	ldp	x15, x18, [sp, 168]
	ldp	x2, x13, [sp, 184]
	ldp	x10, x4, [sp, 200]
	ldp	x5, x7, [sp, 216]
	ldp	x14, x6, [sp, 232]
	ldr	x3, [sp, 248]
	cmp	x0, x26
	bne	.L11
	and	x26, x19, 1
	mov	x0, x3
	add	x16, x26, x20
	sub	x19, x19, #2
	add	x1, x1, x16
	cmp	x3, 1
	bgt	.L14
	ldp	x2, x3, [sp, 96]
	mov	x20, x24
	mov	x24, x1
	mov	x19, x21
	ldr	x1, [sp, 112]
	mov	x21, x6
.L13:
	add	x24, x0, x24
	sub	x19, x19, #2
	add	x28, x28, x24
	sub	x18, x18, #2
	sub	x15, x15, #2
	cmp	x19, 1
	bgt	.L16
	mov	x20, x28
.L15:
	add	x20, x19, x20
	mov	x6, x21
	add	x23, x23, x20
	cmp	x21, 1
	bgt	.L18
	mov	x19, x27
	mov	x20, x12
	mov	x27, x11
	mov	x24, x13
	mov	x25, x14
.L17:
	add	x6, x6, x23
	add	x8, x8, x6
	cmp	x25, 1
	bgt	.L20
	mov	x21, x20
	mov	x26, x19
	mov	x20, x24
	mov	x28, x8
	mov	x24, x2
	mov	x23, x3
	mov	x2, x10
	mov	x0, x7
.L19:
	add	x25, x25, x28
	add	x21, x21, x25
	cmp	x0, 1
	bgt	.L22
	mov	x25, x23
	mov	x19, x21
	mov	x20, x2
	mov	x23, x4
	mov	x28, x5
.L21:
	add	x19, x19, x0
	mov	x21, x28
	add	x27, x27, x19
	cmp	x28, 1
	bgt	.L24
	add	x27, x27, x21
	mov	x19, x20
	add	x22, x22, x27
	mov	x20, x1
	cmp	x23, 1
	bgt	.L26
.L43:
	mov	x24, x23
	mov	x27, x22
	add	x24, x24, x27
	add	x26, x26, x24
	cmp	x20, 1
	bgt	.L42
.L38:
	add	x20, x20, x26
	ldp	x21, x22, [sp, 32]
	.cfi_remember_state
	.cfi_restore 22
	.cfi_restore 21
	mov	x0, x20
	ldp	x19, x20, [sp, 16]
	ldp	x23, x24, [sp, 48]
	.cfi_restore 24
	.cfi_restore 23
	ldp	x25, x26, [sp, 64]
	.cfi_restore 26
	.cfi_restore 25
	ldp	x27, x28, [sp, 80]
	.cfi_restore 28
	.cfi_restore 27
	ldp	x29, x30, [sp], 256
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L8:
	.cfi_restore_state
	mov	x21, x19
	mov	x20, x12
	mov	x19, x27
	mov	x24, x13
	mov	x27, x11
	mov	x25, x14
	sub	x6, x6, #2
	add	x23, x23, x21
	b	.L17
	.p2align 2,,3
.L9:
	sub	x19, x19, #2
	add	x20, x28, x0
	b	.L15
	.p2align 2,,3
.L10:
	sub	x17, x0, #1
	mov	x19, x21
	ldp	x2, x3, [sp, 96]
	mov	x20, x24
	mov	x21, x6
	add	x24, x1, x17
	ldr	x1, [sp, 112]
	sub	x0, x0, #2
	b	.L13
.L7:
	mov	x21, x20
	mov	x26, x19
	mov	x20, x24
	mov	x23, x3
	mov	x24, x2
	mov	x0, x7
	mov	x2, x10
	sub	x25, x25, #2
	add	x28, x8, x6
	b	.L19
.L6:
	mov	x3, x25
	mov	x20, x2
	mov	x25, x23
	mov	x28, x5
	mov	x23, x4
	sub	x0, x0, #2
	add	x19, x21, x3
	b	.L21
.L5:
	sub	x21, x21, #2
	add	x27, x27, x0
	add	x27, x27, x21
	mov	x19, x20
	add	x22, x22, x27
	mov	x20, x1
	cmp	x23, 1
	ble	.L43
	sub	x21, x23, #1
	cmp	x23, x25
	bne	.L44
.L4:
	sub	x24, x23, #2
	add	x27, x22, x21
	add	x24, x24, x27
	add	x26, x26, x24
	cmp	x20, 1
	ble	.L38
.L42:
	ldp	x21, x22, [sp, 32]
	.cfi_restore 22
	.cfi_restore 21
	sub	x1, x20, #1
	ldp	x27, x28, [sp, 80]
	.cfi_restore 28
	.cfi_restore 27
	cmp	x20, x19
	bne	.L45
.L3:
	ldp	x23, x24, [sp, 48]
	.cfi_restore 24
	.cfi_restore 23
	add	x1, x1, x26
	ldp	x25, x26, [sp, 64]
	.cfi_restore 26
	.cfi_restore 25
	sub	x20, x20, #2
	add	x20, x20, x1
.L2:
	mov	x0, x20
	ldp	x19, x20, [sp, 16]
	ldp	x29, x30, [sp], 256
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	fibr, .-fibr
	.align	2
	.p2align 4,,11
	.global	fib_rec
	.type	fib_rec, %function
fib_rec:
.LFB1:
	.cfi_startproc
	cmp	x0, 1
	ble	.L52
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	stp	x21, x22, [sp, 32]
	.cfi_offset 21, -16
	.cfi_offset 22, -8
	sub	x22, x0, #2
	sub	x21, x0, #3
	and	x1, x22, -2
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -32
	.cfi_offset 20, -24
	sub	x21, x21, x1
	sub	x20, x0, #1
	mov	x19, 0
.L48:
	mov	x0, x20
	sub	x20, x20, #2
	bl	fibr
	add	x19, x19, x0
	cmp	x20, x21
	bne	.L48
	and	x22, x22, 1
	add	x0, x22, x19
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L52:
	ret
	.cfi_endproc
.LFE1:
	.size	fib_rec, .-fib_rec
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
