	.file	"mod_pos.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	mod_pos
	.type	mod_pos, @function
mod_pos:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	a1,-48(s0)
	ld	a5,-48(s0)
	bne	a5,zero,.L2
	li	a5,0
	j	.L3
.L2:
	ld	a4,-40(s0)
	ld	a5,-48(s0)
	rem	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-24(s0)
	bge	a5,zero,.L4
	ld	a5,-48(s0)
	srai	a4,a5,63
	ld	a5,-48(s0)
	xor	a5,a4,a5
	sub	a5,a5,a4
	ld	a4,-24(s0)
	add	a5,a4,a5
	sd	a5,-24(s0)
.L4:
	ld	a5,-24(s0)
.L3:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	mod_pos, .-mod_pos
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
