	.file	"max_subarray.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	max_subarray
	.type	max_subarray, @function
max_subarray:
	ble	a1,zero,.L6
	li	a4,1
	ld	a5,0(a0)
	beq	a1,a4,.L7
	slli	a1,a1,3
	addi	a4,a0,8
	add	a2,a0,a1
	mv	a0,a5
.L5:
	ld	a3,0(a4)
	addi	a4,a4,8
	add	a5,a3,a5
	bge	a5,a3,.L3
	mv	a5,a3
.L3:
	bge	a0,a5,.L4
	mv	a0,a5
.L4:
	bne	a2,a4,.L5
	ret
.L6:
	li	a0,0
	ret
.L7:
	mv	a0,a5
	ret
	.size	max_subarray, .-max_subarray
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
