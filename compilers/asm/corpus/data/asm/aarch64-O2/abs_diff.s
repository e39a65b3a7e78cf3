	.arch armv8-a
	.file	"abs_diff.c"
	.text
	.align	2
	.p2align 4,,11
	.global	abs_diff
	.type	abs_diff, %function
abs_diff:
.LFB0:
	.cfi_startproc
	subs	x2, x0, x1
	sub	x0, x1, x0
	csel	x0, x0, x2, le
	ret
	.cfi_endproc
.LFE0:
	.size	abs_diff, .-abs_diff
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
