	.file	"lcm.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	lcm
	.type	lcm, @function
lcm:
	addi	sp,sp,-64
	sd	s0,56(sp)
	addi	s0,sp,64
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	ld	a5,-56(s0)
	bge	a5,zero,.L2
	ld	a5,-56(s0)
	neg	a5,a5
	sd	a5,-56(s0)
.L2:
	ld	a5,-64(s0)
	bge	a5,zero,.L3
	ld	a5,-64(s0)
	neg	a5,a5
	sd	a5,-64(s0)
.L3:
	ld	a5,-56(s0)
	beq	a5,zero,.L4
	ld	a5,-64(s0)
	bne	a5,zero,.L5
.L4:
	li	a5,0
	j	.L6
.L5:
	ld	a5,-56(s0)
	sd	a5,-24(s0)
	ld	a5,-64(s0)
	sd	a5,-32(s0)
	j	.L7
.L8:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	rem	a5,a4,a5
	sd	a5,-40(s0)
	ld	a5,-32(s0)
	sd	a5,-24(s0)
	ld	a5,-40(s0)
	sd	a5,-32(s0)
.L7:
	ld	a5,-32(s0)
	bne	a5,zero,.L8
	ld	a4,-56(s0)
	ld	a5,-24(s0)
	div	a4,a4,a5
	ld	a5,-64(s0)
	mul	a5,a4,a5
.L6:
	mv	a0,a5
	ld	s0,56(sp)
	addi	sp,sp,64
	jr	ra
	.size	lcm, .-lcm
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
