	.file	"tri_kind.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	tri_kind
	.type	tri_kind, @function
tri_kind:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	sd	a2,-40(s0)
	ld	a5,-24(s0)
	ble	a5,zero,.L2
	ld	a5,-32(s0)
	ble	a5,zero,.L2
	ld	a5,-40(s0)
	bgt	a5,zero,.L3
.L2:
	li	a5,0
	j	.L4
.L3:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	add	a5,a4,a5
	ld	a4,-40(s0)
	bge	a4,a5,.L5
	ld	a4,-32(s0)
	ld	a5,-40(s0)
	add	a5,a4,a5
	ld	a4,-24(s0)
	bge	a4,a5,.L5
	ld	a4,-24(s0)
	ld	a5,-40(s0)
	add	a5,a4,a5
	ld	a4,-32(s0)
	blt	a4,a5,.L6
.L5:
	li	a5,0
	j	.L4
.L6:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	bne	a4,a5,.L7
	ld	a4,-32(s0)
	ld	a5,-40(s0)
	bne	a4,a5,.L7
	li	a5,3
	j	.L4
.L7:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	beq	a4,a5,.L8
	ld	a4,-32(s0)
	ld	a5,-40(s0)
	beq	a4,a5,.L8
	ld	a4,-24(s0)
	ld	a5,-40(s0)
	bne	a4,a5,.L9
.L8:
	li	a5,2
	j	.L4
.L9:
	li	a5,1
.L4:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	tri_kind, .-tri_kind
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
