	.arch armv8-a
	.file	"round_up8.c"
	.text
	.align	2
	.p2align 4,,11
	.global	round_up8
	.type	round_up8, %function
round_up8:
.LFB0:
	.cfi_startproc
	add	x0, x0, 7
	and	x0, x0, -8
	ret
	.cfi_endproc
.LFE0:
	.size	round_up8, .-round_up8
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
