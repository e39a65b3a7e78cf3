	.arch armv8-a
	.file	"max_subarray.c"
	.text
	.align	2
	.type	max2, %function
max2:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x0, [sp, 8]
	ldr	x2, [sp]
	ldr	x1, [sp]
	cmp	x2, x0
	csel	x0, x1, x0, ge
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	max2, .-max2
	.align	2
	.global	max_subarray
	.type	max_subarray, %function
max_subarray:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -64]!
	.cfi_def_cfa_offset 64
	.cfi_offset 29, -64
	.cfi_offset 30, -56
	mov	x29, sp
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	ldr	x0, [sp, 16]
	cmp	x0, 0
	bgt	.L4
	mov	x0, 0
	b	.L5
.L4:
	ldr	x0, [sp, 24]
	ldr	x0, [x0]
	str	x0, [sp, 56]
	ldr	x0, [sp, 24]
	ldr	x0, [x0]
	str	x0, [sp, 48]
	mov	x0, 1
	str	x0, [sp, 40]
	b	.L6
.L7:
	ldr	x0, [sp, 40]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x2, [x0]
	ldr	x0, [sp, 40]
	lsl	x0, x0, 3
	ldr	x1, [sp, 24]
	add	x0, x1, x0
	ldr	x1, [x0]
	ldr	x0, [sp, 48]
	add	x0, x1, x0
	mov	x1, x0
	mov	x0, x2
	bl	max2
	str	x0, [sp, 48]
	ldr	x1, [sp, 48]
	ldr	x0, [sp, 56]
	bl	max2
	str	x0, [sp, 56]
	ldr	x0, [sp, 40]
	add	x0, x0, 1
	str	x0, [sp, 40]
.L6:
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 16]
	cmp	x1, x0
	blt	.L7
	ldr	x0, [sp, 56]
.L5:
	ldp	x29, x30, [sp], 64
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE1:
	.size	max_subarray, .-max_subarray
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
