	.file	"clamp_array.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	clamp1, @function
clamp1:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-24(s0)
	sd	a1,-32(s0)
	sd	a2,-40(s0)
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	blt	a4,a5,.L2
	ld	a4,-40(s0)
	ld	a5,-24(s0)
	ble	a5,a4,.L5
	mv	a5,a4
	j	.L5
.L2:
	ld	a5,-32(s0)
.L5:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	clamp1, .-clamp1
	.align	2
	.globl	clamp_array
	.type	clamp_array, @function
clamp_array:
	addi	sp,sp,-80
	sd	ra,72(sp)
	sd	s0,64(sp)
	sd	s1,56(sp)
	addi	s0,sp,80
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	sd	a2,-72(s0)
	sd	zero,-40(s0)
	j	.L7
.L8:
	ld	a5,-40(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	a5,a4,a5
	ld	a3,0(a5)
	ld	a5,-72(s0)
	neg	a1,a5
	ld	a5,-40(s0)
	slli	a5,a5,3
	ld	a4,-56(s0)
	add	s1,a4,a5
	ld	a2,-72(s0)
	mv	a0,a3
	call	clamp1
	mv	a5,a0
	sd	a5,0(s1)
	ld	a5,-40(s0)
	addi	a5,a5,1
	sd	a5,-40(s0)
.L7:
	ld	a4,-40(s0)
	ld	a5,-64(s0)
	blt	a4,a5,.L8
	ld	a5,-64(s0)
	mv	a0,a5
	ld	ra,72(sp)
	ld	s0,64(sp)
	ld	s1,56(sp)
	addi	sp,sp,80
	jr	ra
	.size	clamp_array, .-clamp_array
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
