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
	srli	a5,a0,33
	xor	a0,a5,a0
	li	a5,73244672
	addi	a5,a5,-197
	mul	a0,a0,a5
	li	a4,295559168
	addi	a4,a4,499
	srli	a5,a0,29
	xor	a5,a5,a0
	mul	a5,a5,a4
	srli	a0,a5,32
	xor	a0,a0,a5
	ret
	.size	hash_mix, .-hash_mix
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
