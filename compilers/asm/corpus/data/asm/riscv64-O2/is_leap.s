	.file	"is_leap.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_leap
	.type	is_leap, @function
is_leap:
	andi	a4,a0,3
	mv	a5,a0
	bne	a4,zero,.L2
	li	a4,100
	rem	a4,a0,a4
	li	a0,1
	beq	a4,zero,.L2
	ret
.L2:
	li	a4,400
	rem	a5,a5,a4
	seqz	a0,a5
	ret
	.size	is_leap, .-is_leap
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
