	.file	"clamp.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	clamp
	.type	clamp, @function
clamp:
	blt	a0,a1,.L4
	bgt	a0,a2,.L6
	ret
.L6:
	mv	a0,a2
	ret
.L4:
	mv	a0,a1
	ret
	.size	clamp, .-clamp
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
