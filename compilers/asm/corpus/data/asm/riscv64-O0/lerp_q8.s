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
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	sd	a2,-40(s0)
	ld	a5,-40(s0)
	andi	a5,a5,255
	sd	a5,-40(s0)
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	sub	a4,a4,a5
	ld	a5,-40(s0)
	mul	a5,a4,a5
	srai	a4,a5,8
	ld	a5,-24(s0)
	add	a5,a4,a5
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	lerp_q8, .-lerp_q8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
