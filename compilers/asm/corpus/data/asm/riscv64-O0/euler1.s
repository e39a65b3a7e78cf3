	.file	"euler1.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	euler1
	.type	euler1, @function
euler1:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	zero,-24(s0)
	sd	zero,-32(s0)
	j	.L2
.L5:
	ld	a4,-32(s0)
	li	a5,3
	rem	a5,a4,a5
	beq	a5,zero,.L3
	ld	a4,-32(s0)
	li	a5,5
	rem	a5,a4,a5
	bne	a5,zero,.L4
.L3:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	add	a5,a4,a5
	sd	a5,-24(s0)
.L4:
	ld	a5,-32(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
.L2:
	ld	a4,-40(s0)
	mv	a5,a4
	slli	a5,a5,2
	add	a5,a5,a4
	slli	a5,a5,1
	mv	a4,a5
	ld	a5,-32(s0)
	blt	a5,a4,.L5
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	euler1, .-euler1
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
