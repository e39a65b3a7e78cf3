	.file	"isqrt.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	isqrt
	.type	isqrt, @function
isqrt:
	mv	a3,a0
	blt	a0,zero,.L4
	li	a5,0
.L3:
	mv	a0,a5
	addi	a5,a5,1
	mul	a4,a5,a5
	ble	a4,a3,.L3
	ret
.L4:
	li	a0,-1
	ret
	.size	isqrt, .-isqrt
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
