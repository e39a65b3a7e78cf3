	.arch armv8-a
	.file	"collatz_steps.c"
	.text
	.align	2
	.p2align 4,,11
	.global	collatz_steps
	.type	collatz_steps, %function
collatz_steps:
.LFB0:
	.cfi_startproc
	add	x1, x0, 1
	cbz	x0, .L6
	mov	x0, 0
.L5:
	add	x2, x1, x1, lsr 63
	add	x3, x1, x1, lsl 1
	tbz	x1, 0, .L3
.L11:
	add	x1, x3, 1
	add	x0, x0, 1
	add	x2, x1, x1, lsr 63
	add	x3, x1, x1, lsl 1
	tbnz	x1, 0, .L11
.L3:
	asr	x1, x2, 1
	add	x0, x0, 1
	cmp	x1, 1
	bne	.L5
	ret
	.p2align 2,,3
.L6:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	collatz_steps, .-collatz_steps
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
