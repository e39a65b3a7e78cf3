	.file	"array_reverse.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	array_reverse
	.type	array_reverse, @function
array_reverse:
	li	a4,1
	mv	a5,a0
	mv	a0,a1
	ble	a1,a4,.L2
	slli	a4,a1,3
	add	a4,a5,a4
	li	a3,0
	addi	a7,a1,-1
.L3:
	ld	a6,-8(a4)
	ld	a2,0(a5)
	addi	a3,a3,1
	sd	a6,0(a5)
	sd	a2,-8(a4)
	sub	a2,a7,a3
	addi	a5,a5,8
	addi	a4,a4,-8
	blt	a3,a2,.L3
.L2:
	ret
	.size	array_reverse, .-array_reverse
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
