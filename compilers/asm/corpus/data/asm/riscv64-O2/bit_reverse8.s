	.file	"bit_reverse8.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	bit_reverse8
	.type	bit_reverse8, @function
bit_reverse8:
	mv	a5,a0
	li	a4,8
	li	a0,0
.L2:
	andi	a3,a5,1
	slli	a0,a0,1
	addiw	a4,a4,-1
	or	a0,a3,a0
	srli	a5,a5,1
	bne	a4,zero,.L2
	ret
	.size	bit_reverse8, .-bit_reverse8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
