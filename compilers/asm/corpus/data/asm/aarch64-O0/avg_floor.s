	.arch armv8-a
	.file	"avg_floor.c"
	.text
	.align	2
	.global	avg_floor
	.type	avg_floor, %function
avg_floor:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	str	x1, [sp]
	ldr	x1, [sp, 8]
	ldr	x0, [sp]
	and	x1, x1, x0
	ldr	x2, [sp, 8]
	ldr	x0, [sp]
	eor	x0, x2, x0
	asr	x0, x0, 1
	add	x0, x1, x0
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	avg_floor, .-avg_floor
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
