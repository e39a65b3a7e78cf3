	.arch armv8-a
	.file	"clamp.c"
	.text
	.align	2
	.p2align 4,,11
	.global	clamp
	.type	clamp, %function
clamp:
.LFB0:
	.cfi_startproc
	cmp	x0, x1
	blt	.L3
	cmp	x0, x2
	csel	x0, x0, x2, le
	ret
	.p2align 2,,3
.L3:
	mov	x0, x1
	ret
	.cfi_endproc
.LFE0:
	.size	clamp, .-clamp
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
