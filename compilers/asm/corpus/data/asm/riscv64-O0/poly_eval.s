	.file	"poly_eval.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	horner, @function
horner:
	addi	sp,sp,-64
	sd	s0,56(sp)
	addi	s0,sp,64
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	sd	a2,-56(s0)
	sd	zero,-24(s0)
	ld	a5,-48(s0)
	addi	a5,a5,-1
	sd	a5,-32(s0)
	j	.L2
.L3:
	ld	a4,-24(s0)
	ld	a5,-56(s0)
	mul	a4,a4,a5
	ld	a5,-32(s0)
	slli	a5,a5,3
	ld	a3,-40(s0)
	add	a5,a3,a5
	ld	a5,0(a5)
	add	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-32(s0)
	addi	a5,a5,-1
	sd	a5,-32(s0)
.L2:
	ld	a5,-32(s0)
	bge	a5,zero,.L3
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,56(sp)
	addi	sp,sp,64
	jr	ra
	.size	horner, .-horner
	.align	2
	.globl	poly_eval
	.type	poly_eval, @function
poly_eval:
	addi	sp,sp,-64
	sd	ra,56(sp)
	sd	s0,48(sp)
	sd	s1,40(sp)
	addi	s0,sp,64
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	sd	a2,-56(s0)
	ld	a2,-56(s0)
	ld	a1,-48(s0)
	ld	a0,-40(s0)
	call	horner
	mv	s1,a0
	ld	a5,-56(s0)
	neg	a5,a5
	mv	a2,a5
	ld	a1,-48(s0)
	ld	a0,-40(s0)
	call	horner
	mv	a5,a0
	sub	a5,s1,a5
	mv	a0,a5
	ld	ra,56(sp)
	ld	s0,48(sp)
	ld	s1,40(sp)
	addi	sp,sp,64
	jr	ra
	.size	poly_eval, .-poly_eval
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
