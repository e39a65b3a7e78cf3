	.arch armv8-a
	.file	"swap_pair.c"
	.text
	.align	2
	.p2align 4,,11
	.global	swap_pair
	.type	swap_pair, %function
swap_pair:
.LFB0:
	.cfi_startproc
	mov	x2, x0
	ldr	x3, [x1]
	ldr	x0, [x0]
	str	x3, [x2]
	str	x0, [x1]
	ret
	.cfi_endproc
.LFE0:
	.size	swap_pair, .-swap_pair
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
