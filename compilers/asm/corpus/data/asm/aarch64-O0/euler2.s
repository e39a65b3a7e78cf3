	.arch armv8-a
	.file	"euler2.c"
	.text
	.align	2
	.global	euler2
	.type	euler2, %function
euler2:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #64
	.cfi_def_cfa_offset 64
	str	x0, [sp, 8]
	mov	x0, 1
	str	x0, [sp, 56]
	mov	x0, 2
	str	x0, [sp, 48]
	str	xzr, [sp, 40]
	ldr	x1, [sp, 8]
	mov	x0, x1
	lsl	x0, x0, 5
	sub	x0, x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	lsl	x0, x0, 3
	str	x0, [sp, 32]
	b	.L2
.L4:
	ldr	x0, [sp, 56]
	and	x0, x0, 1
	cmp	x0, 0
	bne	.L3
	ldr	x1, [sp, 40]
	ldr	x0, [sp, 56]
	add	x0, x1, x0
	str	x0, [sp, 40]
.L3:
	ldr	x1, [sp, 56]
	ldr	x0, [sp, 48]
	add	x0, x1, x0
	str	x0, [sp, 24]
	ldr	x0, [sp, 48]
	str	x0, [sp, 56]
	ldr	x0, [sp, 24]
	str	x0, [sp, 48]
.L2:
	ldr	x1, [sp, 56]
	ldr	x0, [sp, 32]
	cmp	x1, x0
	ble	.L4
	ldr	x0, [sp, 40]
	add	sp, sp, 64
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	euler2, .-euler2
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
