	.arch armv8-a
	.file	"gcd.c"
	.text
	.align	2
	.p2align 4,,11
	.global	gcd
	.type	gcd, %function
gcd:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	csneg	x2, x0, x0, ge
	cmp	x1, 0
	csneg	x1, x1, x1, ge
	beq	.L4
	.p2align 3,,7
.L3:
	udiv	x3, x2, x1
	mov	x0, x1
	msub	x1, x3, x1, x2
	mov	x2, x0
	cbnz	x1, .L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, x2
	ret
	.cfi_endproc
.LFE0:
	.size	gcd, .-gcd
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
