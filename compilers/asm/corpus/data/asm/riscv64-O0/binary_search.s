	.file	"binary_search.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	binary_search
	.type	binary_search, @function
binary_search:
	addi	sp,sp,-80
	sd	s0,72(sp)
	addi	s0,sp,80
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	sd	a2,-72(s0)
	li	a5,1
	sd	a5,-24(s0)
	j	.L2
.L4:
	ld	a5,-24(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a4,0(a5)
	ld	a5,-24(s0)
	slli	a5,a5,3
	addi	a5,a5,-8
	ld	a3,-56(s0)
	add	a5,a3,a5
	ld	a5,0(a5)
	bge	a4,a5,.L3
	ld	a5,-24(s0)
	slli	a5,a5,3
	addi	a5,a5,-8
	ld	a4,-56(s0)
	add	a4,a4,a5
	ld	a5,-24(s0)
	slli	a5,a5,3
	ld	a3,-56(s0)
	add	a5,a3,a5
	ld	a4,0(a4)
	sd	a4,0(a5)
.L3:
	ld	a5,-24(s0)
	addi	a5,a5,1
	sd	a5,-24(s0)
.L2:
	ld	a4,-24(s0)
	ld	a5,-64(s0)
	blt	a4,a5,.L4
	sd	zero,-32(s0)
	ld	a5,-64(s0)
	addi	a5,a5,-1
	sd	a5,-40(s0)
	j	.L5
.L9:
	ld	a4,-40(s0)
	ld	a5,-32(s0)
	sub	a5,a4,a5
	srli	a4,a5,63
	add	a5,a4,a5
	srai	a5,a5,1
	mv	a4,a5
	ld	a5,-32(s0)
	add	a5,a5,a4
	sd	a5,-48(s0)
	ld	a5,-48(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a5,0(a5)
	ld	a4,-72(s0)
	bne	a4,a5,.L6
	ld	a5,-48(s0)
	j	.L7
.L6:
	ld	a5,-48(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a5,0(a5)
	ld	a4,-72(s0)
	ble	a4,a5,.L8
	ld	a5,-48(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
	j	.L5
.L8:
	ld	a5,-48(s0)
	addi	a5,a5,-1
	sd	a5,-40(s0)
.L5:
	ld	a4,-32(s0)
	ld	a5,-40(s0)
	ble	a4,a5,.L9
	li	a5,-1
.L7:
	mv	a0,a5
	ld	s0,72(sp)
	addi	sp,sp,80
	jr	ra
	.size	binary_search, .-binary_search
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
