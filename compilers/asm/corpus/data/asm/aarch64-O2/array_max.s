	.arch armv8-a
	.file	"array_max.c"
	.text
	.align	2
	.p2align 4,,11
	.global	array_max
	.type	array_max, %function
array_max:
.LFB0:
	.cfi_startproc
	mov	x2, x0
	mov	x0, 0
	cmp	x1, 0
	ble	.L1
	ldr	x0, [x2]
	cmp	x1, 1
	beq	.L1
	add	x3, x2, x1, lsl 3
	add	x1, x2, 8
	.p2align 3,,7
.L3:
	ldr	x2, [x1], 8
	cmp	x0, x2
	csel	x0, x0, x2, ge
	cmp	x1, x3
	bne	.L3
.L1:
	ret
	.cfi_endproc
.LFE0:
	.size	array_max, .-array_max
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
