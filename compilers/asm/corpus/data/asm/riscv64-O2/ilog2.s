	.file	"ilog2.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	ilog2
	.type	ilog2, @function
ilog2:
	mv	a5,a0
	li	a0,-1
	beq	a5,zero,.L4
.L3:
	srli	a5,a5,1
	addi	a0,a0,1
	bne	a5,zero,.L3
	ret
.L4:
	ret
	.size	ilog2, .-ilog2
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
