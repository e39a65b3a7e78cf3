	.file	"gray_code.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	gray_code
	.type	gray_code, @function
gray_code:
	srli	a5,a0,1
	xor	a0,a5,a0
	ret
	.size	gray_code, .-gray_code
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
