	.arch armv8-a
	.file	"vec_add.c"
	.text
	.align	2
	.p2align 4,,11
	.global	vec_add
	.type	vec_add, %function
vec_add:
.LFB0:
	.cfi_startproc
	mov	x5, x0
	mov	x0, x2
	cmp	x2, 0
	ble	.L2
	mov	x3, 0
	.p2align 3,,7
.L3:
	ldr	x4, [x5, x3, lsl 3]
	ldr	x6, [x1, x3, lsl 3]
	add	x4, x4, x6
	str	x4, [x5, x3, lsl 3]
	add	x3, x3, 1
	cmp	x0, x3
	bne	.L3
.L2:
	ret
	.cfi_endproc
.LFE0:
	.size	vec_add, .-vec_add
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
