	.file	"clamp_array.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	clamp_array
	.type	clamp_array, @function
clamp_array:
	mv	a5,a0
	mv	a0,a1
	ble	a1,zero,.L9
	slli	a7,a1,3
	neg	a6,a2
	add	a7,a5,a7
.L5:
	ld	a3,0(a5)
	mv	a4,a6
	blt	a3,a6,.L3
	mv	a4,a3
	ble	a3,a2,.L3
	mv	a4,a2
.L3:
	sd	a4,0(a5)
	addi	a5,a5,8
	bne	a5,a7,.L5
.L9:
	ret
	.size	clamp_array, .-clamp_array
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
