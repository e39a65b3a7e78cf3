	.arch armv8-a
	.file	"is_leap.c"
	.text
	.align	2
	.p2align 4,,11
	.global	is_leap
	.type	is_leap, %function
is_leap:
.LFB0:
	.cfi_startproc
	mov	x1, x0
	tst	x0, 3
	bne	.L2
	mov	x2, 23593
	mov	x4, 7864
	movk	x2, 0xc28f, lsl 16
	movk	x4, 0xeb85, lsl 16
	movk	x2, 0x28f5, lsl 32
	movk	x4, 0xb851, lsl 32
	movk	x2, 0x8f5c, lsl 48
	movk	x4, 0x51e, lsl 48
	mov	x3, 36700
	mov	x0, 1
	madd	x2, x1, x2, x4
	movk	x3, 0xf5c2, lsl 16
	movk	x3, 0x5c28, lsl 32
	movk	x3, 0x28f, lsl 48
	ror	x2, x2, 2
	cmp	x2, x3
	bls	.L2
	ret
	.p2align 2,,3
.L2:
	mov	x3, 23593
	mov	x2, 7856
	movk	x3, 0xc28f, lsl 16
	movk	x2, 0xeb85, lsl 16
	movk	x3, 0x28f5, lsl 32
	movk	x2, 0xb851, lsl 32
	movk	x3, 0x8f5c, lsl 48
	movk	x2, 0x51e, lsl 48
	mov	x0, 41942
	madd	x1, x1, x3, x2
	movk	x0, 0x3d70, lsl 16
	movk	x0, 0xd70a, lsl 32
	movk	x0, 0xa3, lsl 48
	ror	x1, x1, 4
	cmp	x1, x0
	cset	x0, ls
	ret
	.cfi_endproc
.LFE0:
	.size	is_leap, .-is_leap
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
