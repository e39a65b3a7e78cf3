	.file	"max3.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	max3
	.type	max3, @function
max3:
	mv	a5,a0
	bge	a1,a2,.L2
	mv	a1,a2
.L2:
	mv	a0,a1
	bge	a1,a5,.L3
	mv	a0,a5
.L3:
	ret
	.size	max3, .-max3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
