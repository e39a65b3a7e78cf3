	.file	"round_up8.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	round_up8
	.type	round_up8, @function
round_up8:
	addi	a0,a0,7
	andi	a0,a0,-8
	ret
	.size	round_up8, .-round_up8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
