	.file	"matvec2.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	matvec2
	.type	matvec2, @function
matvec2:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a5,-40(s0)
	ld	a4,0(a5)
	ld	a5,-48(s0)
	ld	a5,0(a5)
	mul	a4,a4,a5
	ld	a5,-40(s0)
	addi	a5,a5,8
	ld	a3,0(a5)
	ld	a5,-48(s0)
	addi	a5,a5,8
	ld	a5,0(a5)
	mul	a5,a3,a5
	add	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-40(s0)
	addi	a5,a5,16
	ld	a4,0(a5)
	ld	a5,-48(s0)
	ld	a5,0(a5)
	mul	a4,a4,a5
	ld	a5,-40(s0)
	addi	a5,a5,24
	ld	a3,0(a5)
	ld	a5,-48(s0)
	addi	a5,a5,8
	ld	a5,0(a5)
	mul	a5,a3,a5
	add	a5,a4,a5
	sd	a5,-32(s0)
	ld	a5,-48(s0)
	addi	a5,a5,16
	ld	a4,-24(s0)
	sd	a4,0(a5)
	ld	a5,-48(s0)
	addi	a5,a5,24
	ld	a4,-32(s0)
	sd	a4,0(a5)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	sub	a5,a4,a5
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	matvec2, .-matvec2
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
