	.file	"count_primes_arr.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	count_primes_arr
	.type	count_primes_arr, @function
count_primes_arr:
	ble	a1,zero,.L8
	slli	a1,a1,3
	mv	a2,a0
	add	a1,a0,a1
	li	a6,1
	li	a0,0
	li	a7,3
.L7:
	ld	a4,0(a2)
	srai	a5,a4,63
	xor	a4,a5,a4
	sub	a4,a4,a5
	ble	a4,a6,.L3
	ble	a4,a7,.L16
	andi	a5,a4,1
	beq	a5,zero,.L3
	li	a5,2
	j	.L5
.L6:
	rem	a3,a4,a5
	beq	a3,zero,.L3
.L5:
	addi	a5,a5,1
	mul	a3,a5,a5
	bge	a4,a3,.L6
.L16:
	addi	a0,a0,1
.L3:
	addi	a2,a2,8
	bne	a1,a2,.L7
	ret
.L8:
	li	a0,0
	ret
	.size	count_primes_arr, .-count_primes_arr
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
