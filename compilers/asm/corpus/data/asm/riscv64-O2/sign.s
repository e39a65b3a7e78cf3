	.file	"sign.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	sign
	.type	sign, @function
sign:
	sgt	a5,a0,zero
	srli	a0,a0,63
	subw	a0,a5,a0
	ret
	.size	sign, .-sign
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
