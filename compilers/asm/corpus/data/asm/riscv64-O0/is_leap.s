	.file	"is_leap.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_leap
	.type	is_leap, @function
is_leap:
	addi	sp,sp,-32
	sd	s0,24(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	ld	a5,-24(s0)
	andi	a5,a5,3
	bne	a5,zero,.L2
	ld	a4,-24(s0)
	li	a5,100
	rem	a5,a4,a5
	bne	a5,zero,.L3
.L2:
	ld	a4,-24(s0)
	li	a5,400
	rem	a5,a4,a5
	bne	a5,zero,.L4
.L3:
	li	a5,1
	j	.L5
.L4:
	li	a5,0
.L5:
	mv	a0,a5
	ld	s0,24(sp)
	addi	sp,sp,32
	jr	ra
	.size	is_leap, .-is_leap
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
