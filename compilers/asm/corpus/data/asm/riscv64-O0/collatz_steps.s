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
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	ld	a5,-40(s0)
	addi	a5,a5,1
	sd	a5,-24(s0)
	sd	zero,-32(s0)
	j	.L2
.L5:
	ld	a5,-24(s0)
	andi	a5,a5,1
	beq	a5,zero,.L3
	ld	a4,-24(s0)
	mv	a5,a4
	slli	a5,a5,1
	add	a5,a5,a4
	addi	a5,a5,1
	j	.L4
.L3:
	ld	a5,-24(s0)
	srli	a4,a5,63
	add	a5,a4,a5
	srai	a5,a5,1
.L4:
	sd	a5,-24(s0)
	ld	a5,-32(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
.L2:
	ld	a4,-24(s0)
	li	a5,1
	bne	a4,a5,.L5
	ld	a5,-32(s0)
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	collatz_steps, .-collatz_steps
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
