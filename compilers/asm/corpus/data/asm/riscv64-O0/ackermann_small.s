	.file	"ackermann_small.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	ack, @function
ack:
	addi	sp,sp,-48
	sd	ra,40(sp)
	sd	s0,32(sp)
	sd	s1,24(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a5,-40(s0)
	bne	a5,zero,.L2
	ld	a5,-48(s0)
	addi	a5,a5,1
	j	.L3
.L2:
	ld	a5,-48(s0)
	bne	a5,zero,.L4
	ld	a5,-40(s0)
	addi	a5,a5,-1
	li	a1,1
	mv	a0,a5
	call	ack
	mv	a5,a0
	j	.L3
.L4:
	ld	a5,-40(s0)
	addi	s1,a5,-1
	ld	a5,-48(s0)
	addi	a5,a5,-1
	mv	a1,a5
	ld	a0,-40(s0)
	call	ack
	mv	a5,a0
	mv	a1,a5
	mv	a0,s1
	call	ack
	mv	a5,a0
.L3:
	mv	a0,a5
	ld	ra,40(sp)
	ld	s0,32(sp)
	ld	s1,24(sp)
	addi	sp,sp,48
	jr	ra
	.size	ack, .-ack
	.align	2
	.globl	ackermann_small
	.type	ackermann_small, @function
ackermann_small:
	addi	sp,sp,-32
	sd	ra,24(sp)
	sd	s0,16(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	ld	a1,-24(s0)
	li	a0,2
	call	ack
	mv	a5,a0
	mv	a0,a5
	ld	ra,24(sp)
	ld	s0,16(sp)
	addi	sp,sp,32
	jr	ra
	.size	ackermann_small, .-ackermann_small
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
