	.arch armv8-a
	.file	"bswap16.c"
	.text
	.align	2
	.global	bswap16
	.type	bswap16, %function
bswap16:
.LFB0:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	x0, [sp, 8]
	ldr	x0, [sp, 8]
	lsl	x0, x0, 8
	and	x1, x0, 65535
	ldr	x0, [sp, 8]
	lsr	x0, x0, 8
	and	x0, x0, 255
	orr	x0, x1, x0
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	bswap16, .-bswap16
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
