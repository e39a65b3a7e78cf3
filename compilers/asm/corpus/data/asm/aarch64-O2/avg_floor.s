	.arch armv8-a
	.file	"avg_floor.c"
	.text
	.align	2
	.p2align 4,,11
	.global	avg_floor
	.type	avg_floor, %function
avg_floor:
.LFB0:
	.cfi_startproc
	eor	x2, x0, x1
	and	x0, x0, x1
	add	x0, x0, x2, asr 1
	ret
	.cfi_endproc
.LFE0:
	.size	avg_floor, .-avg_floor
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
