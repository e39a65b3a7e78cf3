	.file	"count_primes.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	count_primes
	.type	count_primes, @function
count_primes:
	slli	a2,a0,3
	li	a5,1
	ble	a2,a5,.L8
	addi	a2,a2,1
	li	a4,2
	li	a0,0
	li	a1,3
.L3:
	ble	a4,a1,.L15
	andi	a5,a4,1
	beq	a5,zero,.L4
	li	a5,2
	j	.L7
.L5:
	rem	a3,a4,a5
	beq	a3,zero,.L4
.L7:
	addi	a5,a5,1
	mul	a3,a5,a5
	ble	a3,a4,.L5
.L15:
	addi	a0,a0,1
.L4:
	addi	a4,a4,1
	bne	a2,a4,.L3
	ret
.L8:
	li	a0,0
	ret
	.size	count_primes, .-count_primes
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
