	.arch armv8-a
	.file	"scale_shift.c"
	.text
	.align	2
	.p2align 4,,11
	.global	scale_shift
	.type	scale_shift, %function
scale_shift:
.LFB0:
	.cfi_startproc
	mov	x4, x0
	mov	x0, x1
	cmp	x1, 0
	ble	.L2
	add	x5, x4, x1, lsl 3
	.p2align 3,,7
.L3:
	ldr	x3, [x4]
	mul	x3, x2, x3
	asr	x3, x3, 2
	str	x3, [x4], 8
	cmp	x4, x5
	bne	.L3
.L2:
	ret
	.cfi_endproc
.LFE0:
	.size	scale_shift, .-scale_shift
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
