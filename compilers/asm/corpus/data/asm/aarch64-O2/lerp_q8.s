	.arch armv8-a
	.file	"lerp_q8.c"
	.text
	.align	2
	.p2align 4,,11
	.global	lerp_q8
	.type	lerp_q8, %function
lerp_q8:
.LFB0:
	.cfi_startproc
	sub	x1, x1, x0
	and	x2, x2, 255
	mul	x1, x1, x2
	add	x0, x0, x1, asr 8
	ret
	.cfi_endproc
.LFE0:
	.size	lerp_q8, .-lerp_q8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
