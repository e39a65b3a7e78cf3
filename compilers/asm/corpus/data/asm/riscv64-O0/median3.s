	.file	"median3.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	median3
	.type	median3, @function
median3:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	sd	a2,-40(s0)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	bgt	a4,a5,.L2
	ld	a4,-32(s0)
	ld	a5,-40(s0)
	ble	a4,a5,.L3
.L2:
	ld	a4,-40(s0)
	ld	a5,-32(s0)
	bgt	a4,a5,.L4
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	bgt	a4,a5,.L4
.L3:
	ld	a5,-32(s0)
	j	.L5
.L4:
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	bgt	a4,a5,.L6
	ld	a4,-24(s0)
	ld	a5,-40(s0)
	ble	a4,a5,.L7
.L6:
	ld	a4,-40(s0)
	ld	a5,-24(s0)
	bgt	a4,a5,.L8
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	bgt	a4,a5,.L8
.L7:
	ld	a5,-24(s0)
	j	.L5
.L8:
	ld	a5,-40(s0)
.L5:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	median3, .-median3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
