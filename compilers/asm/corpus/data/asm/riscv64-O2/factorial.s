	.file	"factorial.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	factorial
	.type	factorial, @function
factorial:
	li	a5,1
	ble	a0,a5,.L4
	addi	a4,a0,1
	li	a5,2
	li	a0,1
.L3:
	mul	a0,a0,a5
	addi	a5,a5,1
	bne	a5,a4,.L3
	ret
.L4:
	li	a0,1
	ret
	.size	factorial, .-factorial
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
