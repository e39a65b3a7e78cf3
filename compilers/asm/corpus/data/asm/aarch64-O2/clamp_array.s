	.arch armv8-a
	.file	"clamp_array.c"
	.text
	.align	2
	.p2align 4,,11
	.global	clamp_array
	.type	clamp_array, %function
clamp_array:
.LFB1:
	.cfi_startproc
	mov	x3, x0
	mov	x0, x1
	cmp	x1, 0
	ble	.L8
	neg	x6, x2
	add	x7, x3, x1, lsl 3
	.p2align 3,,7
.L4:
	ldr	x4, [x3]
	mov	x5, x6
	cmp	x4, x6
	blt	.L3
	cmp	x4, x2
	csel	x5, x4, x2, le
.L3:
	str	x5, [x3], 8
	cmp	x3, x7
	bne	.L4
.L8:
	ret
	.cfi_endproc
.LFE1:
	.size	clamp_array, .-clamp_array
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
