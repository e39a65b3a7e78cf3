	.arch armv8-a
	.file	"max_subarray.c"
	.text
	.align	2
	.p2align 4,,11
	.global	max_subarray
	.type	max_subarray, %function
max_subarray:
.LFB1:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	ldr	x2, [x0]
	cmp	x1, 1
	beq	.L5
	add	x4, x0, x1, lsl 3
	add	x3, x0, 8
	mov	x0, x2
	.p2align 3,,7
.L3:
	ldr	x1, [x3], 8
	add	x2, x1, x2
	cmp	x2, x1
	csel	x2, x2, x1, ge
	cmp	x0, x2
	csel	x0, x0, x2, ge
	cmp	x4, x3
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.p2align 2,,3
.L5:
	mov	x0, x2
	ret
	.cfi_endproc
.LFE1:
	.size	max_subarray, .-max_subarray
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
