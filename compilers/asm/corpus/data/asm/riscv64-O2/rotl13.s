	.file	"rotl13.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	rotl13
	.type	rotl13, @function
rotl13:
	slli	a5,a0,13
	srli	a0,a0,51
	or	a0,a0,a5
	ret
	.size	rotl13, .-rotl13
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
