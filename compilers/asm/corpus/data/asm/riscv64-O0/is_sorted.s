	.file	"is_sorted.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_sorted
	.type	is_sorted, @function
is_sorted:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	li	a5,1
	sd	a5,-24(s0)
	j	.L2
.L5:
	ld	a5,-24(s0)
	slli	a5,a5,3
	addi	a5,a5,-8
	ld	a4,-40(s0)
	add	a5,a4,a5
	ld	a4,0(a5)
	ld	a5,-24(s0)
	slli	a5,a5,3
	ld	a3,-40(s0)
	add	a5,a3,a5
	ld	a5,0(a5)
	ble	a4,a5,.L3
	li	a5,0
	j	.L4
.L3:
	ld	a5,-24(s0)
	addi	a5,a5,1
	sd	a5,-24(s0)
.L2:
	ld	a4,-24(s0)
	ld	a5,-48(s0)
	blt	a4,a5,.L5
	li	a5,1
.L4:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	is_sorted, .-is_sorted
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
