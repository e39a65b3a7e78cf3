	.arch armv8-a
	.file	"linear_search.c"
	.text
	.align	2
	.p2align 4,,11
	.global	linear_search
	.type	linear_search, %function
linear_search:
.LFB0:
	.cfi_startproc
	mov	x4, x0
	cmp	x1, 0
	ble	.L4
	mov	x0, 0
	b	.L3
	.p2align 2,,3
.L7:
	add	x0, x0, 1
	cmp	x1, x0
	beq	.L4
.L3:
	ldr	x3, [x4, x0, lsl 3]
	cmp	x3, x2
	bne	.L7
	ret
	.p2align 2,,3
.L4:
	mov	x0, -1
	ret
	.cfi_endproc
.LFE0:
	.size	linear_search, .-linear_search
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
