	.file	"min3.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	min3
	.type	min3, @function
min3:
	addi	sp,sp,-64
	sd	s0,56(sp)
	addi	s0,sp,64
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	sd	a2,-56(s0)
	ld	a5,-40(s0)
	sd	a5,-24(s0)
	ld	a4,-48(s0)
	ld	a5,-24(s0)
	bge	a4,a5,.L2
	ld	a5,-48(s0)
	sd	a5,-24(s0)
.L2:
	ld	a4,-56(s0)
	ld	a5,-24(s0)
	bge	a4,a5,.L3
	ld	a5,-56(s0)
	sd	a5,-24(s0)
.L3:
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,56(sp)
	addi	sp,sp,64
	jr	ra
	.size	min3, .-min3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
