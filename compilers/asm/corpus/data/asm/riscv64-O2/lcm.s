	.file	"lcm.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	lcm
	.type	lcm, @function
lcm:
	mv	a5,a0
	li	a0,0
	beq	a5,zero,.L1
	beq	a1,zero,.L1
	srai	a3,a5,63
	srai	a4,a1,63
	xor	a0,a3,a5
	xor	a1,a4,a1
	sub	a1,a1,a4
	sub	a0,a0,a3
	mv	a5,a1
	mv	a4,a0
.L3:
	mv	a3,a5
	rem	a5,a4,a5
	mv	a4,a3
	bne	a5,zero,.L3
	div	a0,a0,a3
	mul	a0,a0,a1
	ret
.L1:
	ret
	.size	lcm, .-lcm
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
