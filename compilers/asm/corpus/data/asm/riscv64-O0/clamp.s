	.file	"clamp.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	clamp
	.type	clamp, @function
clamp:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	sd	a2,-40(s0)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	bge	a4,a5,.L2
	ld	a5,-32(s0)
	j	.L3
.L2:
	ld	a4,-24(s0)
	ld	a5,-40(s0)
	ble	a4,a5,.L4
	ld	a5,-40(s0)
	j	.L3
.L4:
	ld	a5,-24(s0)
.L3:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	clamp, .-clamp
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
