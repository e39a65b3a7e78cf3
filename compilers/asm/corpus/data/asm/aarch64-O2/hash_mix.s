	.arch armv8-a
	.file	"hash_mix.c"
	.text
	.align	2
	.p2align 4,,11
	.global	hash_mix
	.type	hash_mix, %function
hash_mix:
.LFB0:
	.cfi_startproc
	eor	x0, x0, x0, lsr 33
	mov	x2, 40763
	movk	x2, 0x45d, lsl 16
	mov	x1, 57843
	movk	x1, 0x119d, lsl 16
	mul	x0, x0, x2
	eor	x0, x0, x0, lsr 29
	mul	x0, x0, x1
	eor	x0, x0, x0, lsr 32
	ret
	.cfi_endproc
.LFE0:
	.size	hash_mix, .-hash_mix
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
