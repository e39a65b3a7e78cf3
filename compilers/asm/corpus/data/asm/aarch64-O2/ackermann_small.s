	.arch armv8-a
	.file	"ackermann_small.c"
	.text
	.align	2
	.p2align 4,,11
	.type	ack, %function
ack:
.LFB0:
	.cfi_startproc
	cbz	x0, .L172
	stp	x29, x30, [sp, -96]!
	.cfi_def_cfa_offset 96
	.cfi_offset 29, -96
	.cfi_offset 30, -88
	mov	x29, sp
	stp	x19, x20, [sp, 16]
	stp	x21, x22, [sp, 32]
	stp	x23, x24, [sp, 48]
	.cfi_offset 19, -80
	.cfi_offset 20, -72
	.cfi_offset 21, -64
	.cfi_offset 22, -56
	.cfi_offset 23, -48
	.cfi_offset 24, -40
	mov	x23, x0
	stp	x25, x26, [sp, 64]
	stp	x27, x28, [sp, 80]
	.cfi_offset 25, -32
	.cfi_offset 26, -24
	.cfi_offset 27, -16
	.cfi_offset 28, -8
	cbnz	x1, .L170
	sub	x26, x23, #1
	mov	x1, 1
	cbz	x26, .L2
.L182:
	cbnz	x1, .L59
	subs	x23, x23, #2
	mov	x1, 1
	beq	.L2
.L170:
	sub	x1, x1, #1
	cbnz	x1, .L173
	sub	x26, x23, #1
	mov	x1, 1
	mov	x19, x26
	cbz	x26, .L7
.L8:
	mov	x27, x19
	cmp	x1, 1
	bne	.L174
.L10:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L14
	.p2align 3,,7
.L15:
	mov	x28, x19
	cmp	x1, 1
	bne	.L175
.L17:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L21
	.p2align 3,,7
.L22:
	mov	x25, x19
	cmp	x1, 1
	bne	.L176
.L24:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L28
	.p2align 3,,7
.L29:
	mov	x24, x19
	cmp	x1, 1
	bne	.L177
.L31:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L35
	.p2align 3,,7
.L36:
	mov	x22, x19
	cmp	x1, 1
	bne	.L178
.L38:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L42
.L77:
	mov	x21, x19
.L45:
	subs	x19, x19, #1
	mov	x1, 1
	beq	.L49
.L165:
	mov	x20, x19
	sub	x1, x1, #1
.L188:
	mov	x0, x20
	sub	x20, x20, #1
	cbz	x1, .L79
.L180:
	sub	x1, x1, #1
	bl	ack
	mov	x1, x0
	cbnz	x20, .L54
	.p2align 3,,7
.L181:
	add	x1, x1, 1
	subs	x20, x19, #1
	beq	.L49
	cbnz	x1, .L179
	subs	x19, x19, #2
	mov	x1, 1
	bne	.L165
.L49:
	add	x1, x1, 1
	subs	x19, x21, #1
	beq	.L42
	cbnz	x1, .L43
	subs	x19, x21, #2
	mov	x1, 1
	beq	.L42
.L43:
	cmp	x1, 1
	beq	.L77
	sub	x1, x1, #2
	mov	x20, x19
	mov	x21, x19
	.p2align 3,,7
.L54:
	mov	x0, x20
	sub	x20, x20, #1
	cbnz	x1, .L180
.L79:
	mov	x1, 1
	cbnz	x20, .L54
	b	.L181
	.p2align 2,,3
.L42:
	add	x1, x1, 1
	subs	x19, x22, #1
	beq	.L35
	cbnz	x1, .L36
	subs	x19, x22, #2
	mov	x1, 1
	bne	.L36
.L35:
	add	x1, x1, 1
	subs	x19, x24, #1
	beq	.L28
	cbnz	x1, .L29
	subs	x19, x24, #2
	mov	x1, 1
	bne	.L29
.L28:
	add	x1, x1, 1
	subs	x19, x25, #1
	beq	.L21
	cbnz	x1, .L22
	subs	x19, x25, #2
	mov	x1, 1
	bne	.L22
.L21:
	add	x1, x1, 1
	subs	x19, x28, #1
	beq	.L14
	cbnz	x1, .L15
	subs	x19, x28, #2
	mov	x1, 1
	bne	.L15
.L14:
	add	x1, x1, 1
	subs	x19, x27, #1
	beq	.L7
	cbnz	x1, .L8
	subs	x19, x27, #2
	mov	x1, 1
	bne	.L8
.L7:
	add	x1, x1, 1
	cbnz	x26, .L182
.L2:
	ldp	x19, x20, [sp, 16]
	add	x0, x1, 1
	ldp	x21, x22, [sp, 32]
	ldp	x23, x24, [sp, 48]
	ldp	x25, x26, [sp, 64]
	ldp	x27, x28, [sp, 80]
	ldp	x29, x30, [sp], 96
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 27
	.cfi_restore 28
	.cfi_restore 25
	.cfi_restore 26
	.cfi_restore 23
	.cfi_restore 24
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L178:
	.cfi_restore_state
	sub	x1, x1, #2
.L48:
	mov	x21, x19
	cbz	x1, .L45
	sub	x1, x1, #1
	mov	x20, x19
	b	.L54
	.p2align 2,,3
.L177:
	sub	x1, x1, #2
.L41:
	cbnz	x1, .L183
	mov	x22, x19
	b	.L38
	.p2align 2,,3
.L176:
	sub	x1, x1, #2
.L34:
	cbnz	x1, .L184
	mov	x24, x19
	b	.L31
	.p2align 2,,3
.L175:
	sub	x1, x1, #2
.L27:
	cbnz	x1, .L185
	mov	x25, x19
	b	.L24
	.p2align 2,,3
.L173:
	cmp	x1, 1
	bne	.L186
	mov	x27, x23
	mov	x19, x23
	sub	x26, x23, #1
	b	.L10
	.p2align 2,,3
.L174:
	sub	x1, x1, #2
.L20:
	cbnz	x1, .L187
	mov	x28, x19
	b	.L17
	.p2align 2,,3
.L172:
	.cfi_def_cfa_offset 0
	.cfi_restore 19
	.cfi_restore 20
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 23
	.cfi_restore 24
	.cfi_restore 25
	.cfi_restore 26
	.cfi_restore 27
	.cfi_restore 28
	.cfi_restore 29
	.cfi_restore 30
	add	x0, x1, 1
	ret
.L59:
	.cfi_def_cfa_offset 96
	.cfi_offset 19, -80
	.cfi_offset 20, -72
	.cfi_offset 21, -64
	.cfi_offset 22, -56
	.cfi_offset 23, -48
	.cfi_offset 24, -40
	.cfi_offset 25, -32
	.cfi_offset 26, -24
	.cfi_offset 27, -16
	.cfi_offset 28, -8
	.cfi_offset 29, -96
	.cfi_offset 30, -88
	mov	x23, x26
	b	.L170
.L179:
	mov	x19, x20
	sub	x1, x1, #1
	b	.L188
.L183:
	sub	x1, x1, #1
	mov	x22, x19
	b	.L48
.L186:
	sub	x1, x1, #2
	mov	x27, x23
	mov	x19, x23
	sub	x26, x23, #1
	b	.L20
.L185:
	sub	x1, x1, #1
	mov	x25, x19
	b	.L34
.L184:
	sub	x1, x1, #1
	mov	x24, x19
	b	.L41
.L187:
	sub	x1, x1, #1
	mov	x28, x19
	b	.L27
	.cfi_endproc
.LFE0:
	.size	ack, .-ack
	.align	2
	.p2align 4,,11
	.global	ackermann_small
	.type	ackermann_small, %function
ackermann_small:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	cbnz	x0, .L198
.L190:
	mov	x1, x0
	mov	x0, 1
	bl	ack
	add	x0, x0, 1
.L189:
	ldp	x29, x30, [sp], 16
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L198:
	.cfi_restore_state
	sub	x1, x0, #1
	mov	x0, 2
	bl	ack
	mov	x1, x0
	mov	x0, 2
	cbz	x1, .L189
	sub	x0, x1, #1
	b	.L190
	.cfi_endproc
.LFE1:
	.size	ackermann_small, .-ackermann_small
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
