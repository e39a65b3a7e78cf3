	.file	"checksum_fletcher.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	checksum_fletcher
	.type	checksum_fletcher, @function
checksum_fletcher:
	addi	sp,sp,-64
	sd	s0,56(sp)
	addi	s0,sp,64
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	sd	zero,-24(s0)
	sd	zero,-32(s0)
	sd	zero,-40(s0)
	j	.L2
.L3:
	ld	a5,-40(s0)
	ld	a4,-56(s0)
	add	a5,a4,a5
	lbu	a5,0(a5)
	mv	a4,a5
	ld	a5,-24(s0)
	add	a4,a4,a5
	li	a5,255
	remu	a5,a4,a5
	sd	a5,-24(s0)
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	add	a4,a4,a5
	li	a5,255
	remu	a5,a4,a5
	sd	a5,-32(s0)
	ld	a5,-40(s0)
	addi	a5,a5,1
	sd	a5,-40(s0)
.L2:
	ld	a4,-40(s0)
	ld	a5,-64(s0)
	blt	a4,a5,.L3
	ld	a5,-32(s0)
	slli	a4,a5,8
	ld	a5,-24(s0)
	or	a5,a4,a5
	mv	a0,a5
	ld	s0,56(sp)
	addi	sp,sp,64
	jr	ra
	.size	checksum_fletcher, .-checksum_fletcher
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
