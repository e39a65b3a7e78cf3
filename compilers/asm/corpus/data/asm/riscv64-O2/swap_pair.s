	.file	"swap_pair.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	swap_pair
	.type	swap_pair, @function
swap_pair:
	ld	a4,0(a1)
	mv	a5,a0
	ld	a0,0(a0)
	sd	a4,0(a5)
	sd	a0,0(a1)
	ret
	.size	swap_pair, .-swap_pair
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
