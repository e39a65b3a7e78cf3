	.arch armv8-a
	.file	"poly_eval.c"
	.text
	.align	2
	.p2align 4,,11
	.global	poly_eval
	.type	poly_eval, %function
poly_eval:
.LFB1:
	.cfi_startproc
	subs	x1, x1, #1
	bmi	.L5
	mov	x3, x1
	mov	x4, 0
	.p2align 3,,7
.L3:
	ldr	x5, [x0, x3, lsl 3]
	sub	x3, x3, #1
	madd	x4, x2, x4, x5
	cmn	x3, #1
	bne	.L3
	neg	x2, x2
	mov	x3, 0
	.p2align 3,,7
.L4:
	ldr	x5, [x0, x1, lsl 3]
	sub	x1, x1, #1
	madd	x3, x2, x3, x5
	cmn	x1, #1
	bne	.L4
	sub	x0, x4, x3
	ret
	.p2align 2,,3
.L5:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE1:
	.size	poly_eval, .-poly_eval
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
