	.file	"poly3.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	poly3
	.type	poly3, @function
poly3:
	mul	a5,a0,a0
	slli	a3,a0,3
	sub	a3,a3,a0
	mul	a0,a5,a0
	neg	a4,a5
	slli	a4,a4,2
	sub	a4,a4,a5
	slli	a5,a0,1
	add	a0,a5,a0
	add	a0,a0,a4
	add	a0,a0,a3
	addi	a0,a0,-11
	ret
	.size	poly3, .-poly3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
