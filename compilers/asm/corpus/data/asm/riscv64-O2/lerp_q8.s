	.file	"lerp_q8.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	lerp_q8
	.type	lerp_q8, @function
lerp_q8:
	sub	a1,a1,a0
	andi	a2,a2,0xff
	mul	a1,a1,a2
	srai	a1,a1,8
	add	a0,a1,a0
	ret
	.size	lerp_q8, .-lerp_q8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
