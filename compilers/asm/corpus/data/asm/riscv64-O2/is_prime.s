	.file	"is_prime.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_prime
	.type	is_prime, @function
is_prime:
	li	a5,1
	mv	a4,a0
	ble	a0,a5,.L7
	li	a5,3
	ble	a0,a5,.L6
	andi	a0,a0,1
	beq	a0,zero,.L1
	li	a5,2
	j	.L3
.L4:
	rem	a3,a4,a5
	beq	a3,zero,.L7
.L3:
	addi	a5,a5,1
	mul	a3,a5,a5
	ble	a3,a4,.L4
	ret
.L7:
	li	a0,0
.L1:
	ret
.L6:
	li	a0,1
	ret
	.size	is_prime, .-is_prime
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
