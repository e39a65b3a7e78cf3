	.file	"gcd.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	gcd
	.type	gcd, @function
gcd:
	srai	a2,a0,63
	srai	a3,a1,63
	xor	a4,a2,a0
	xor	a5,a3,a1
	sub	a4,a4,a2
	sub	a5,a5,a3
	beq	a1,zero,.L4
.L3:
	mv	a0,a5
	rem	a5,a4,a5
	mv	a4,a0
	bne	a5,zero,.L3
	ret
.L4:
	mv	a0,a4
	ret
	.size	gcd, .-gcd
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
