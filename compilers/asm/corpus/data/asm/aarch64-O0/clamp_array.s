	.arch armv8-a
	.file	"clamp_array.c"
	.text
	.align	2
	.type	clamp1, %function
clamp1:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x1, [sp, 24]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	blt	.L2
	ldr	x0, [sp, 8]
	ldr	x2, [sp, 24]
	ldr	x1, [sp, 24]
	cmp	x2, x0
	csel	x0, x1, x0, le
	b	.L4
.L2:
	ldr	x0, [sp, 16]
.L4:
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	clamp1, .-clamp1
	.align	2
	.global	clamp_array
	.type	clamp_array, %function
clamp_array:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -80]!
	.cfi_def_cfa_offset 80
	.cfi_offset 29, -80
	.cfi_offset 30, -72
	mov	x29, sp
	str	x19, [sp, 16]
	.cfi_offset 19, -64
	str	x0, [sp, 56]
	str	x1, [sp, 48]
	str	x2, [sp, 40]
	str	xzr, [sp, 72]
	b	.L6
.L7:
	ldr	x0, [sp, 72]
	lsl	x0, x0, 3
	ldr	x1, [sp, 56]
	add	x0, x1, x0
	ldr	x3, [x0]
	ldr	x0, [sp, 40]
	neg	x4, x0
	ldr	x0, [sp, 72]
	lsl	x0, x0, 3
	ldr	x1, [sp, 56]
	add	x19, x1, x0
	ldr	x2, [sp, 40]
	mov	x1, x4
	mov	x0, x3
	bl	clamp1
	str	x0, [x19]
	ldr	x0, [sp, 72]
	add	x0, x0, 1
	str	x0, [sp, 72]
.L6:
	ldr	x1, [sp, 72]
	ldr	x0, [sp, 48]
	cmp	x1, x0
	blt	.L7
	ldr	x0, [sp, 48]
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 80
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE1:
	.size	clamp_array, .-clamp_array
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
