	.file	"count_equal.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	count_equal
	.type	count_equal, @function
count_equal:
	ble	a1,zero,.L4
	slli	a1,a1,3
	mv	a4,a0
	add	a3,a0,a1
	li	a0,0
.L3:
	ld	a5,0(a4)
	addi	a4,a4,8
	sub	a5,a5,a2
	seqz	a5,a5
	add	a0,a0,a5
	bne	a3,a4,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	count_equal, .-count_equal
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
