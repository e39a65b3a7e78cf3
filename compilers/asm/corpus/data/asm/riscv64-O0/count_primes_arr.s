	.file	"count_primes_arr.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	prime_p, @function
prime_p:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	ld	a4,-40(s0)
	li	a5,1
	bgt	a4,a5,.L2
	li	a5,0
	j	.L3
.L2:
	li	a5,2
	sd	a5,-24(s0)
	j	.L4
.L6:
	ld	a4,-40(s0)
	ld	a5,-24(s0)
	rem	a5,a4,a5
	bne	a5,zero,.L5
	li	a5,0
	j	.L3
.L5:
	ld	a5,-24(s0)
	addi	a5,a5,1
	sd	a5,-24(s0)
.L4:
	ld	a5,-24(s0)
	mul	a5,a5,a5
	ld	a4,-40(s0)
	bge	a4,a5,.L6
	li	a5,1
.L3:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	prime_p, .-prime_p
	.align	2
	.globl	count_primes_arr
	.type	count_primes_arr, @function
count_primes_arr:
	addi	sp,sp,-48
	sd	ra,40(sp)
	sd	s0,32(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	sd	zero,-24(s0)
	sd	zero,-32(s0)
	j	.L8
.L9:
	ld	a5,-32(s0)
	slli	a5,a5,3
	ld	a4,-40(s0)
	add	a5,a4,a5
	ld	a5,0(a5)
	srai	a4,a5,63
	xor	a5,a4,a5
	sub	a5,a5,a4
	mv	a0,a5
	call	prime_p
	mv	a4,a0
	ld	a5,-24(s0)
	add	a5,a5,a4
	sd	a5,-24(s0)
	ld	a5,-32(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
.L8:
	ld	a4,-32(s0)
	ld	a5,-48(s0)
	blt	a4,a5,.L9
	ld	a5,-24(s0)
	mv	a0,a5
	ld	ra,40(sp)
	ld	s0,32(sp)
	addi	sp,sp,48
	jr	ra
	.size	count_primes_arr, .-count_primes_arr
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
