	.file	"bits_select.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	bits_select
	.type	bits_select, @function
bits_select:
	xor	a0,a0,a1
	and	a0,a0,a2
	xor	a0,a0,a1
	ret
	.size	bits_select, .-bits_select
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
