	.arch armv8-a
	.file	"bytes_sum.c"
	.text
	.align	2
	.p2align 4,,11
	.global	bytes_sum
	.type	bytes_sum, %function
bytes_sum:
.LFB0:
	.cfi_startproc
	cmp	x1, 0
	ble	.L4
	mov	x2, x0
	mov	x0, 0
	add	x3, x2, x1
	.p2align 3,,7
.L3:
	ldrb	w1, [x2], 1
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
	.size	bytes_sum, .-bytes_sum
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
