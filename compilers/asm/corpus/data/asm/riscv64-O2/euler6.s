	.file	"euler6.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	euler6
	.type	euler6, @function
euler6:
	ble	a0,zero,.L4
	addi	a0,a0,1
	li	a5,1
	li	a3,0
	li	a4,0
.L3:
	mul	a2,a5,a5
	add	a4,a4,a5
	addi	a5,a5,1
	add	a3,a3,a2
	bne	a0,a5,.L3
	mul	a4,a4,a4
	sub	a0,a4,a3
	ret
.L4:
	li	a0,0
	ret
	.size	euler6, .-euler6
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
