	.file	"collatz_steps.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	collatz_steps
	.type	collatz_steps, @function
collatz_steps:
	addi	a5,a0,1
	beq	a0,zero,.L6
	li	a0,0
	li	a1,1
.L5:
	srli	a4,a5,63
	slli	a2,a5,1
	andi	a3,a5,1
	add	a4,a4,a5
	add	a5,a2,a5
	beq	a3,zero,.L3
.L8:
	addi	a5,a5,1
	srli	a4,a5,63
	slli	a2,a5,1
	andi	a3,a5,1
	add	a4,a4,a5
	addi	a0,a0,1
	add	a5,a2,a5
	bne	a3,zero,.L8
.L3:
	srai	a5,a4,1
	addi	a0,a0,1
	bne	a5,a1,.L5
	ret
.L6:
	li	a0,0
	ret
	.size	collatz_steps, .-collatz_steps
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
