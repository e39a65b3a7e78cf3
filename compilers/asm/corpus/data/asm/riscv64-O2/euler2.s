	.file	"euler2.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	euler2
	.type	euler2, @function
euler2:
	li	a5,1000
	mul	a2,a0,a5
	li	a0,0
	ble	a2,zero,.L5
	li	a4,2
	li	a5,1
	j	.L4
.L6:
	mv	a4,a3
.L4:
	andi	a3,a5,1
	bne	a3,zero,.L3
	add	a0,a0,a5
.L3:
	add	a3,a4,a5
	mv	a5,a4
	bge	a2,a4,.L6
	ret
.L5:
	ret
	.size	euler2, .-euler2
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
