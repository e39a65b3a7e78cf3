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
	li	a5,12
	rem	a1,a1,a5
	li	a4,1
	mv	a5,a0
	beq	a1,a4,.L8
	addi	a1,a1,11
	li	a5,2703360
	srl	a5,a5,a1
	andi	a5,a5,1
	li	a0,31
	sub	a0,a0,a5
.L1:
	ret
.L8:
	andi	a4,a0,3
	bne	a4,zero,.L3
	li	a4,100
	rem	a4,a0,a4
	li	a0,29
	bne	a4,zero,.L1
.L3:
	li	a4,400
	rem	a0,a5,a4
	seqz	a0,a0
	addi	a0,a0,28
	ret
	.size	days_in_month, .-days_in_month
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
