	.arch armv8-a
	.file	"sum_to_n.c"
	.text
	.align	2
	.p2align 4,,11
	.global	sum_to_n
	.type	sum_to_n, %function
sum_to_n:
.LFB0:
	.cfi_startproc
	cmp	x0, 0
	ble	.L4
	add	x2, x0, 1
	mov	x1, 1
	mov	x0, 0
	.p2align 3,,7
.L3:
	add	x0, x0, x1
	add	x1, x1, 1
	cmp	x1, x2
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	sum_to_n, .-sum_to_n
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
