	.arch armv8-a
	.file	"count_equal.c"
	.text
	.align	2
	.p2align 4,,11
	.global	count_equal
	.type	count_equal, %function
count_equal:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	mov	x3, x0
	mov	x0, 0
	add	x4, x3, x1, lsl 3
	.p2align 3,,7
.L3:
	ldr	x1, [x3], 8
	cmp	x1, x2
	cinc	x0, x0, eq
	cmp	x4, x3
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	count_equal, .-count_equal
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
