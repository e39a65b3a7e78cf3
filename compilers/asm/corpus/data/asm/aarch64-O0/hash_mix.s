	.arch armv8-a
	.file	"hash_mix.c"
	.text
	.align	2
	.global	hash_mix
	.type	hash_mix, %function
hash_mix:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	lsr	x0, x0, 33
	ldr	x1, [sp, 8]
	eor	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x1, [sp, 8]
	mov	x0, 40763
	movk	x0, 0x45d, lsl 16
	mul	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	lsr	x0, x0, 29
	ldr	x1, [sp, 8]
	eor	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x1, [sp, 8]
	mov	x0, 57843
	movk	x0, 0x119d, lsl 16
	mul	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	lsr	x0, x0, 32
	ldr	x1, [sp, 8]
	eor	x0, x1, x0
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	hash_mix, .-hash_mix
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
