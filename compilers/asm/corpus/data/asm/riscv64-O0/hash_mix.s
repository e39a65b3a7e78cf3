	.file	"hash_mix.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	hash_mix
	.type	hash_mix, @function
hash_mix:
	addi	sp,sp,-32
	sd	s0,24(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	ld	a5,-24(s0)
	srli	a5,a5,33
	ld	a4,-24(s0)
	xor	a5,a4,a5
	sd	a5,-24(s0)
	ld	a4,-24(s0)
	li	a5,73244672
	addi	a5,a5,-197
	mul	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-24(s0)
	srli	a5,a5,29
	ld	a4,-24(s0)
	xor	a5,a4,a5
	sd	a5,-24(s0)
	ld	a4,-24(s0)
	li	a5,295559168
	addi	a5,a5,499
	mul	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-24(s0)
	srli	a5,a5,32
	ld	a4,-24(s0)
	xor	a5,a4,a5
	sd	a5,-24(s0)
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,24(sp)
	addi	sp,sp,32
	jr	ra
	.size	hash_mix, .-hash_mix
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
