	.file	"bytes_sum.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	bytes_sum
	.type	bytes_sum, @function
bytes_sum:
	ble	a1,zero,.L4
	mv	a5,a0
	add	a1,a0,a1
	li	a0,0
.L3:
	lbu	a4,0(a5)
	addi	a5,a5,1
	add	a0,a0,a4
	bne	a5,a1,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	bytes_sum, .-bytes_sum
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
