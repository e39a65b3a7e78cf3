	.arch armv8-a
	.file	"safe_div.c"
	.text
	.align	2
	.p2align 4,,11
	.global	safe_div
	.type	safe_div, %function
safe_div:
.LFB0:
	.cfi_startproc
	cbz	x1, .L3
	sdiv	x0, x0, x1
	ret
	.p2align 2,,3
.L3:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	safe_div, .-safe_div
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
