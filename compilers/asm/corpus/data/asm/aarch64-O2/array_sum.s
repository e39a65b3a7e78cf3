	.arch armv8-a
	.file	"array_sum.c"
	.text
	.align	2
	.p2align 4,,11
	.global	array_sum
	.type	array_sum, %function
array_sum:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	mov	x2, x0
	mov	x0, 0
	add	x3, x2, x1, lsl 3
	.p2align 3,,7
.L3:
	ldr	x1, [x2], 8
	add	x0, x0, x1
	cmp	x2, x3
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	array_sum, .-array_sum
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
