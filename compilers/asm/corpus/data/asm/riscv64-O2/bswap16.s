	.file	"bswap16.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	bswap16
	.type	bswap16, @function
bswap16:
	li	a4,65536
	slli	a5,a0,8
	addi	a4,a4,-1
	srli	a0,a0,8
	and	a5,a5,a4
	andi	a0,a0,255
	or	a0,a5,a0
	ret
	.size	bswap16, .-bswap16
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
