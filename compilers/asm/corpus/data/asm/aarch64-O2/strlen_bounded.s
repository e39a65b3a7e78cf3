	.arch armv8-a
	.file	"strlen_bounded.c"
	.text
	.align	2
	.p2align 4,,11
	.global	strlen_bounded
	.type	strlen_bounded, %function
strlen_bounded:
.LFB0:
	.cfi_startproc
	mov	x3, x0
	mov	x0, 0
	cmp	x1, 0
	bgt	.L2
	b	.L1
	.p2align 2,,3
.L4:
	add	x0, x0, 1
	cmp	x1, x0
	beq	.L1
.L2:
	ldrb	w2, [x3, x0]
	cbnz	w2, .L4
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	strlen_bounded, .-strlen_bounded
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
