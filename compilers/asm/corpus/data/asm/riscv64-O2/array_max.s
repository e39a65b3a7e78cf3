	.file	"array_max.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	array_max
	.type	array_max, @function
array_max:
	mv	a3,a0
	ble	a1,zero,.L5
	li	a5,1
	ld	a0,0(a0)
	beq	a1,a5,.L1
	slli	a1,a1,3
	addi	a5,a3,8
	add	a3,a3,a1
.L4:
	ld	a4,0(a5)
	addi	a5,a5,8
	bge	a0,a4,.L3
	mv	a0,a4
.L3:
	bne	a5,a3,.L4
	ret
.L5:
	li	a0,0
.L1:
	ret
	.size	array_max, .-array_max
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
