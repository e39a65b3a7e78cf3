	.arch armv8-a
	.file	"factorial.c"
	.text
	.align	2
	.p2align 4,,11
	.global	factorial
	.type	factorial, %function
factorial:
.LFB0:
	.cfi_startproc
	cmp	x0, 1
	ble	.L4
	add	x2, x0, 1
	mov	x1, 2
	mov	x0, 1
	.p2align 3,,7
.L3:
	mul	x0, x0, x1
	add	x1, x1, 1
	cmp	x1, x2
	bne	.L3
	ret
	.p2align 2,,3
.L4:
	mov	x0, 1
	ret
	.cfi_endproc
.LFE0:
	.size	factorial, .-factorial
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
