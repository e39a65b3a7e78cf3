	.arch armv8-a
	.file	"histogram4.c"
	.text
	.align	2
	.p2align 4,,11
	.global	histogram4
	.type	histogram4, %function
histogram4:
.LFB0:
	.cfi_startproc
	stp	xzr, xzr, [x1]
	stp	xzr, xzr, [x1, 16]
	cmp	x2, 0
	ble	.L2
	add	x5, x0, x2, lsl 3
	.p2align 3,,7
.L3:
	ldr	x3, [x0], 8
	and	x3, x3, 3
	ldr	x4, [x1, x3, lsl 3]
	add	x4, x4, 1
	str	x4, [x1, x3, lsl 3]
	cmp	x5, x0
	bne	.L3
.L2:
	mov	x0, x2
	ret
	.cfi_endproc
.LFE0:
	.size	histogram4, .-histogram4
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
