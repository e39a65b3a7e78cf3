	.file	"prefix_sum.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	prefix_sum
	.type	prefix_sum, @function
prefix_sum:
	ble	a1,zero,.L4
	slli	a1,a1,3
	mv	a5,a0
	add	a3,a0,a1
	li	a0,0
.L3:
	ld	a4,0(a5)
	addi	a5,a5,8
	add	a0,a0,a4
	sd	a0,-8(a5)
	bne	a5,a3,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	prefix_sum, .-prefix_sum
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
