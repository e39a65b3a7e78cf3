	.file	"rle_count.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	rle_count
	.type	rle_count, @function
rle_count:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a5,-48(s0)
	bgt	a5,zero,.L2
	li	a5,0
	j	.L3
.L2:
	li	a5,1
	sd	a5,-24(s0)
	li	a5,1
	sd	a5,-32(s0)
	j	.L4
.L5:
	ld	a5,-32(s0)
	ld	a4,-40(s0)
	add	a5,a4,a5
	lbu	a3,0(a5)
	ld	a5,-32(s0)
	addi	a5,a5,-1
	ld	a4,-40(s0)
	add	a5,a4,a5
	lbu	a5,0(a5)
	sext.w	a4,a3
	sext.w	a5,a5
	sub	a5,a4,a5
	snez	a5,a5
	andi	a5,a5,0xff
	mv	a4,a5
	ld	a5,-24(s0)
	add	a5,a5,a4
	sd	a5,-24(s0)
	ld	a5,-32(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
.L4:
	ld	a4,-32(s0)
	ld	a5,-48(s0)
	blt	a4,a5,.L5
	ld	a5,-24(s0)
.L3:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	rle_count, .-rle_count
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
