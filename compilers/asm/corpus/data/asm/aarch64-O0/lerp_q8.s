	.arch armv8-a
	.file	"lerp_q8.c"
	.text
	.align	2
	.global	lerp_q8
	.type	lerp_q8, %function
lerp_q8:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	str	x0, [sp, 24]
	str	x1, [sp, 16]
	str	x2, [sp, 8]
	ldr	x0, [sp, 8]
	and	x0, x0, 255
	str	x0, [sp, 8]
	ldr	x1, [sp, 16]
	ldr	x0, [sp, 24]
	sub	x1, x1, x0
	ldr	x0, [sp, 8]
	mul	x0, x1, x0
	asr	x1, x0, 8
	ldr	x0, [sp, 24]
	add	x0, x1, x0
	add	sp, sp, 32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	lerp_q8, .-lerp_q8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
