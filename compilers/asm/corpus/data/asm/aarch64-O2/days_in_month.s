	.arch armv8-a
	.file	"days_in_month.c"
	.text
	.align	2
	.p2align 4,,11
	.global	days_in_month
	.type	days_in_month, %function
days_in_month:
.LFB0:
	.cfi_startproc
	mov	x2, 43691
	mov	x3, x0
	movk	x2, 0xaaaa, lsl 16
	movk	x2, 0xaaaa, lsl 32
	movk	x2, 0x2aaa, lsl 48
	smulh	x2, x1, x2
	asr	x2, x2, 1
	sub	x2, x2, x1, asr 63
	add	x2, x2, x2, lsl 1
	sub	x2, x1, x2, lsl 2
	cmp	x2, 1
	beq	.L8
	add	x2, x2, 11
	mov	x1, 16384
	movk	x1, 0x29, lsl 16
	mov	x0, 31
	lsr	x1, x1, x2
	and	x1, x1, 1
	sub	x0, x0, x1
.L1:
	ret
	.p2align 2,,3
.L8:
	tst	x0, 3
	bne	.L3
	mov	x1, 23593
	mov	x4, 7864
	movk	x1, 0xc28f, lsl 16
	movk	x4, 0xeb85, lsl 16
	movk	x1, 0x28f5, lsl 32
	movk	x4, 0xb851, lsl 32
	movk	x1, 0x8f5c, lsl 48
	movk	x4, 0x51e, lsl 48
	mov	x2, 36700
	mov	x0, 29
	madd	x1, x3, x1, x4
	movk	x2, 0xf5c2, lsl 16
	movk	x2, 0x5c28, lsl 32
	movk	x2, 0x28f, lsl 48
	ror	x1, x1, 2
	cmp	x1, x2
	bhi	.L1
.L3:
	mov	x2, 23593
	mov	x0, 7856
	movk	x2, 0xc28f, lsl 16
	movk	x0, 0xeb85, lsl 16
	movk	x2, 0x28f5, lsl 32
	movk	x0, 0xb851, lsl 32
	movk	x2, 0x8f5c, lsl 48
	movk	x0, 0x51e, lsl 48
	mov	x1, 41942
	madd	x0, x3, x2, x0
	movk	x1, 0x3d70, lsl 16
	movk	x1, 0xd70a, lsl 32
	movk	x1, 0xa3, lsl 48
	ror	x0, x0, 4
	cmp	x0, x1
	cset	x0, ls
	add	x0, x0, 28
	ret
	.cfi_endproc
.LFE0:
	.size	days_in_month, .-days_in_month
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
