	.file	"max_subarray.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	max2, @function
max2:
	addi	sp,sp,-32
	sd	s0,24(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	bge	a5,a4,.L3
	mv	a5,a4
.L3:
	mv	a0,a5
	ld	s0,24(sp)
	addi	sp,sp,32
	jr	ra
	.size	max2, .-max2
	.align	2
	.globl	max_subarray
	.type	max_subarray, @function
max_subarray:
	addi	sp,sp,-64
	sd	ra,56(sp)
	sd	s0,48(sp)
	addi	s0,sp,64
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	ld	a5,-64(s0)
	bgt	a5,zero,.L5
	li	a5,0
	j	.L6
.L5:
	ld	a5,-56(s0)
	ld	a5,0(a5)
	sd	a5,-24(s0)
	ld	a5,-56(s0)
	ld	a5,0(a5)
	sd	a5,-32(s0)
	li	a5,1
	sd	a5,-40(s0)
	j	.L7
.L8:
	ld	a5,-40(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a3,0(a5)
	ld	a5,-40(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a4,0(a5)
	ld	a5,-32(s0)
	add	a5,a4,a5
	mv	a1,a5
	mv	a0,a3
	call	max2
	sd	a0,-32(s0)
	ld	a1,-32(s0)
	ld	a0,-24(s0)
	call	max2
	sd	a0,-24(s0)
	ld	a5,-40(s0)
	addi	a5,a5,1
	sd	a5,-40(s0)
.L7:
	ld	a4,-40(s0)
	ld	a5,-64(s0)
	blt	a4,a5,.L8
	ld	a5,-24(s0)
.L6:
	mv	a0,a5
	ld	ra,56(sp)
	ld	s0,48(sp)
	addi	sp,sp,64
	jr	ra
	.size	max_subarray, .-max_subarray
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
