	.arch armv8-a
	.file	"prefix_sum.c"
	.text
	.align	2
	.p2align 4,,11
	.global	prefix_sum
	.type	prefix_sum, %function
prefix_sum:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	mov	x2, x0
	mov	x0, 0
	add	x3, x2, x1, lsl 3
	.p2align 3,,7
.L3:
	ldr	x1, [x2]
	add	x0, x0, x1
	str	x0, [x2], 8
	cmp	x2, x3
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	prefix_sum, .-prefix_sum
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
