	.file	"euler2.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	euler2
	.type	euler2, @function
euler2:
	addi	sp,sp,-80
	sd	s0,72(sp)
	addi	s0,sp,80
	sd	a0,-72(s0)
	li	a5,1
	sd	a5,-24(s0)
	li	a5,2
	sd	a5,-32(s0)
	sd	zero,-40(s0)
	ld	a4,-72(s0)
	li	a5,1000
	mul	a5,a4,a5
	sd	a5,-48(s0)
	j	.L2
.L4:
	ld	a5,-24(s0)
	andi	a5,a5,1
	bne	a5,zero,.L3
	ld	a4,-40(s0)
	ld	a5,-24(s0)
	add	a5,a4,a5
	sd	a5,-40(s0)
.L3:
	ld	a4,-24(s0)
	ld	a5,-32(s0)
	add	a5,a4,a5
	sd	a5,-56(s0)
	ld	a5,-32(s0)
	sd	a5,-24(s0)
	ld	a5,-56(s0)
	sd	a5,-32(s0)
.L2:
	ld	a4,-24(s0)
	ld	a5,-48(s0)
	ble	a4,a5,.L4
	ld	a5,-40(s0)
	mv	a0,a5
	ld	s0,72(sp)
	addi	sp,sp,80
	jr	ra
	.size	euler2, .-euler2
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
