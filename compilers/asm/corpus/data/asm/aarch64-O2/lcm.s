	.arch armv8-a
	.file	"lcm.c"
	.text
	.align	2
	.p2align 4,,11
	.global	lcm
	.type	lcm, %function
lcm:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	ccmp	x1, 0, 4, ne
	beq	.L4
	cmp	x0, 0
	csneg	x0, x0, x0, ge
	cmp	x1, 0
	csneg	x1, x1, x1, ge
	mov	x3, x0
	mov	x2, x1
	.p2align 3,,7
.L3:
	udiv	x5, x3, x2
	mov	x4, x2
	msub	x2, x5, x2, x3
	mov	x3, x4
	cbnz	x2, .L3
	sdiv	x0, x0, x4
	mul	x0, x0, x1
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	lcm, .-lcm
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
