	.file	"count_divisors.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	count_divisors
	.type	count_divisors, @function
count_divisors:
	addi	a2,a0,1
	ble	a2,zero,.L5
	addi	a3,a0,2
	li	a5,1
	li	a0,0
.L4:
	rem	a4,a2,a5
	addi	a5,a5,1
	seqz	a4,a4
	add	a0,a0,a4
	bne	a5,a3,.L4
	ret
.L5:
	li	a0,0
	ret
	.size	count_divisors, .-count_divisors
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
