	.arch armv8-a
	.file	"pow_mod.c"
	.text
	.align	2
	.p2align 4,,11
	.global	pow_mod
	.type	pow_mod, %function
pow_mod:
.LFB0:
	.cfi_startproc
	cmp	x2, 1
	ble	.L6
	sdiv	x3, x0, x2
	msub	x3, x3, x2, x0
	cmp	x3, 0
	add	x0, x3, x2
	csel	x3, x0, x3, lt
	cmp	x1, 0
	csneg	x1, x1, x1, ge
	mov	x0, 1
	beq	.L1
	.p2align 3,,7
.L5:
	mul	x4, x3, x0
	tbz	x1, 0, .L4
	sdiv	x0, x4, x2
	msub	x0, x0, x2, x4
.L4:
	mul	x3, x3, x3
	asr	x1, x1, 1
	sdiv	x4, x3, x2
	msub	x3, x4, x2, x3
	cbnz	x1, .L5
.L1:
	ret
	.p2align 2,,3
.L6:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	pow_mod, .-pow_mod
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
