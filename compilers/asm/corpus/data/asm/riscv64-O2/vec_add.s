	.file	"vec_add.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	vec_add
	.type	vec_add, @function
vec_add:
	mv	a5,a0
	mv	a0,a2
	ble	a2,zero,.L2
	slli	a6,a2,3
	add	a6,a5,a6
.L3:
	ld	a4,0(a5)
	ld	a3,0(a1)
	addi	a5,a5,8
	addi	a1,a1,8
	add	a4,a4,a3
	sd	a4,-8(a5)
	bne	a5,a6,.L3
.L2:
	ret
	.size	vec_add, .-vec_add
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
