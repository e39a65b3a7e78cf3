	.arch armv8-a
	.file	"mod_pos.c"
	.text
	.align	2
	.p2align 4,,11
	.global	mod_pos
	.type	mod_pos, %function
mod_pos:
.LFB0:
	.cfi_startproc
	cbz	x1, .L3
	sdiv	x2, x0, x1
	msub	x0, x2, x1, x0
	tbnz	x0, #63, .L5
	ret
	.p2align 2,,3
.L5:
	cmp	x1, 0
	csneg	x1, x1, x1, ge
	add	x0, x0, x1
	ret
	.p2align 2,,3
.L3:
	mov	x0, 0
	ret
	.cfi_endproc
.LFE0:
	.size	mod_pos, .-mod_pos
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
