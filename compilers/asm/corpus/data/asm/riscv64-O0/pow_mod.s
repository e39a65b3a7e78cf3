	.file	"pow_mod.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	pow_mod
	.type	pow_mod, @function
pow_mod:
	addi	sp,sp,-80
	sd	s0,72(sp)
	addi	s0,sp,80
	sd	a0,-56(s0)
	sd	a1,-64(s0)
	sd	a2,-72(s0)
	ld	a4,-72(s0)
	li	a5,1
	bgt	a4,a5,.L2
	li	a5,0
	j	.L3
.L2:
	ld	a4,-56(s0)
	ld	a5,-72(s0)
	rem	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-24(s0)
	bge	a5,zero,.L4
	ld	a4,-24(s0)
	ld	a5,-72(s0)
	add	a5,a4,a5
	sd	a5,-24(s0)
.L4:
	li	a5,1
	sd	a5,-32(s0)
	ld	a5,-64(s0)
	srai	a5,a5,63
	ld	a4,-64(s0)
	xor	a4,a5,a4
	sub	a5,a4,a5
	sd	a5,-40(s0)
	j	.L5
.L7:
	ld	a5,-40(s0)
	andi	a5,a5,1
	beq	a5,zero,.L6
	ld	a4,-32(s0)
	ld	a5,-24(s0)
	mul	a4,a4,a5
	ld	a5,-72(s0)
	rem	a5,a4,a5
	sd	a5,-32(s0)
.L6:
	ld	a5,-24(s0)
	mul	a4,a5,a5
	ld	a5,-72(s0)
	rem	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-40(s0)
	srai	a5,a5,1
	sd	a5,-40(s0)
.L5:
	ld	a5,-40(s0)
	bgt	a5,zero,.L7
	ld	a5,-32(s0)
.L3:
	mv	a0,a5
	ld	s0,72(sp)
	addi	sp,sp,80
	jr	ra
	.size	pow_mod, .-pow_mod
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
