	.file	"quadrant.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	quadrant
	.type	quadrant, @function
quadrant:
	bge	a0,zero,.L7
	slti	a0,a1,0
	addi	a0,a0,2
	ret
.L7:
	srai	a0,a1,63
	andi	a0,a0,3
	addi	a0,a0,1
	ret
	.size	quadrant, .-quadrant
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
