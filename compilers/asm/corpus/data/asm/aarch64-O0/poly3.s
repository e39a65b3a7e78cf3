	.arch armv8-a
	.file	"poly3.c"
	.text
	.align	2
	.global	poly3
	.type	poly3, %function
poly3:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	mul	x1, x0, x0
	ldr	x0, [sp, 8]
	mul	x1, x1, x0
	mov	x0, x1
	lsl	x0, x0, 1
	add	x2, x0, x1
	ldr	x0, [sp, 8]
	mul	x1, x0, x0
	mov	x0, 0
	sub	x0, x0, x1
	lsl	x0, x0, 2
	sub	x0, x0, x1
	add	x2, x2, x0
	ldr	x1, [sp, 8]
	mov	x0, x1
	lsl	x0, x0, 3
	sub	x0, x0, x1
	add	x0, x2, x0
	sub	x0, x0, #11
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	poly3, .-poly3
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
