	.file	"abs_diff.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	abs_diff
	.type	abs_diff, @function
abs_diff:
	addi	sp,sp,-32
	sd	s0,24(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	ble	a4,a5,.L2
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	sub	a5,a4,a5
	j	.L4
.L2:
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	sub	a5,a4,a5
.L4:
	mv	a0,a5
	ld	s0,24(sp)
	addi	sp,sp,32
	jr	ra
	.size	abs_diff, .-abs_diff
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
