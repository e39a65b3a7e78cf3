	.file	"strlen_bounded.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	strlen_bounded
	.type	strlen_bounded, @function
strlen_bounded:
	mv	a4,a0
	li	a0,0
	bgt	a1,zero,.L2
	j	.L9
.L4:
	addi	a0,a0,1
	beq	a1,a0,.L1
.L2:
	add	a5,a4,a0
	lbu	a5,0(a5)
	bne	a5,zero,.L4
.L1:
	ret
.L9:
	ret
	.size	strlen_bounded, .-strlen_bounded
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
