	.file	"days_in_month.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	days_in_month
	.type	days_in_month, @function
days_in_month:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a4,-48(s0)
	li	a5,12
	rem	a5,a4,a5
	addi	a5,a5,1
	sd	a5,-24(s0)
	ld	a4,-24(s0)
	li	a5,2
	bne	a4,a5,.L2
	ld	a5,-40(s0)
	andi	a5,a5,3
	bne	a5,zero,.L3
	ld	a4,-40(s0)
	li	a5,100
	rem	a5,a4,a5
	bne	a5,zero,.L4
.L3:
	ld	a4,-40(s0)
	li	a5,400
	rem	a5,a4,a5
	bne	a5,zero,.L5
.L4:
	li	a5,29
	j	.L7
.L5:
	li	a5,28
	j	.L7
.L2:
	ld	a4,-24(s0)
	li	a5,4
	beq	a4,a5,.L8
	ld	a4,-24(s0)
	li	a5,6
	beq	a4,a5,.L8
	ld	a4,-24(s0)
	li	a5,9
	beq	a4,a5,.L8
	ld	a4,-24(s0)
	li	a5,11
	bne	a4,a5,.L9
.L8:
	li	a5,30
	j	.L7
.L9:
	li	a5,31
.L7:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	days_in_month, .-days_in_month
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
