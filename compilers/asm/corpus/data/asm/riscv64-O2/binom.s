	.file	"binom.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	binom
	.type	binom, @function
binom:
	mv	a4,a0
	li	a0,0
	blt	a1,zero,.L4
	bgt	a1,a4,.L1
	beq	a1,zero,.L6
	sub	a4,a4,a1
	li	a5,1
	addi	a1,a1,1
	li	a0,1
.L3:
	add	a3,a5,a4
	mul	a0,a3,a0
	div	a0,a0,a5
	addi	a5,a5,1
	bne	a5,a1,.L3
	ret
.L6:
	li	a0,1
.L1:
	ret
.L4:
	ret
	.size	binom, .-binom
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
