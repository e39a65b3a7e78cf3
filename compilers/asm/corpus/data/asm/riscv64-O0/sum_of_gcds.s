	.file	"sum_of_gcds.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	g2, @function
g2:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a5,-40(s0)
	bge	a5,zero,.L2
	ld	a5,-40(s0)
	neg	a5,a5
	sd	a5,-40(s0)
.L2:
	ld	a5,-48(s0)
	bge	a5,zero,.L4
	ld	a5,-48(s0)
	neg	a5,a5
	sd	a5,-48(s0)
	j	.L4
.L5:
	ld	a4,-40(s0)
	ld	a5,-48(s0)
	rem	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-48(s0)
	sd	a5,-40(s0)
	ld	a5,-24(s0)
	sd	a5,-48(s0)
.L4:
	ld	a5,-48(s0)
	bne	a5,zero,.L5
	ld	a5,-40(s0)
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	g2, .-g2
	.align	2
	.globl	sum_of_gcds
	.type	sum_of_gcds, @function
sum_of_gcds:
	addi	sp,sp,-48
	sd	ra,40(sp)
	sd	s0,32(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	sd	zero,-24(s0)
	sd	zero,-32(s0)
	j	.L8
.L9:
	ld	a5,-32(s0)
	slli	a5,a5,3
	ld	a4,-40(s0)
	add	a5,a4,a5
	ld	a3,0(a5)
	ld	a5,-32(s0)
	addi	a5,a5,1
	slli	a5,a5,3
	ld	a4,-40(s0)
	add	a5,a4,a5
	ld	a5,0(a5)
	mv	a1,a5
	mv	a0,a3
	call	g2
	mv	a4,a0
	ld	a5,-24(s0)
	add	a5,a5,a4
	sd	a5,-24(s0)
	ld	a5,-32(s0)
	addi	a5,a5,1
	sd	a5,-32(s0)
.L8:
	ld	a5,-32(s0)
	addi	a5,a5,1
	ld	a4,-48(s0)
	bgt	a4,a5,.L9
	ld	a5,-24(s0)
	mv	a0,a5
	ld	ra,40(sp)
	ld	s0,32(sp)
	addi	sp,sp,48
	jr	ra
	.size	sum_of_gcds, .-sum_of_gcds
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
