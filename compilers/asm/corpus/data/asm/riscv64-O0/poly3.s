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
	addi	sp,sp,-32
	sd	s0,24(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	ld	a5,-24(s0)
	mul	a4,a5,a5
	ld	a5,-24(s0)
	mul	a4,a4,a5
	mv	a5,a4
	slli	a5,a5,1
	add	a3,a5,a4
	ld	a5,-24(s0)
	mul	a4,a5,a5
	li	a5,0
	sub	a5,a5,a4
	slli	a5,a5,2
	sub	a5,a5,a4
	add	a3,a3,a5
	ld	a4,-24(s0)
	mv	a5,a4
	slli	a5,a5,3
	sub	a5,a5,a4
	add	a5,a3,a5
	addi	a5,a5,-11
	mv	a0,a5
	ld	s0,24(sp)
	addi	sp,sp,32
	jr	ra
	.size	poly3, .-poly3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
