	.file	"rle_count.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	rle_count
	.type	rle_count, @function
rle_count:
	ble	a1,zero,.L4
	li	a5,1
	beq	a1,a5,.L5
	addi	a2,a0,-1
	mv	a4,a0
	add	a2,a2,a1
	li	a0,1
.L3:
	lbu	a5,1(a4)
	lbu	a3,0(a4)
	addi	a4,a4,1
	sub	a5,a5,a3
	snez	a5,a5
	add	a0,a0,a5
	bne	a2,a4,.L3
	ret
.L4:
	li	a0,0
	ret
.L5:
	li	a0,1
	ret
	.size	rle_count, .-rle_count
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
