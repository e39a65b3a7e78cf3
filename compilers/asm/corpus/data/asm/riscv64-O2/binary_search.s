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
	li	a5,1
	mv	a6,a0
	ble	a1,a5,.L2
	slli	a0,a1,3
	addi	a5,a6,8
	add	a0,a6,a0
.L4:
	ld	a4,-8(a5)
	ld	a3,0(a5)
	bge	a3,a4,.L3
	sd	a4,0(a5)
.L3:
	addi	a5,a5,8
	bne	a0,a5,.L4
	addi	a1,a1,-1
.L11:
	li	a4,0
.L10:
	sub	a0,a1,a4
	srai	a0,a0,1
	add	a0,a0,a4
	slli	a5,a0,3
	add	a5,a6,a5
	ld	a5,0(a5)
	beq	a5,a2,.L1
	bge	a5,a2,.L8
	addi	a4,a0,1
	bge	a1,a4,.L10
.L6:
	li	a0,-1
	ret
.L8:
	addi	a1,a0,-1
	bge	a1,a4,.L10
	j	.L6
.L1:
	ret
.L2:
	bne	a1,a5,.L6
	li	a1,0
	j	.L11
	.size	binary_search, .-binary_search
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
