	.arch armv8-a
	.file	"abs_diff.c"
	.text
	.align	2
	.global	abs_diff
	.type	abs_diff, %function
abs_diff:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x1, [sp, 8]
	ldr	x0, [sp]
	cmp	x1, x0
	ble	.L2
	ldr	x1, [sp, 8]
	ldr	x0, [sp]
	sub	x0, x1, x0
	b	.L4
.L2:
	ldr	x1, [sp]
	ldr	x0, [sp, 8]
	sub	x0, x1, x0
.L4:
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	abs_diff, .-abs_diff
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
