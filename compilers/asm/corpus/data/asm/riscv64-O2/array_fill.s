	.file	"array_fill.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	array_fill
	.type	array_fill, @function
array_fill:
	mv	a5,a0
	mv	a0,a1
	ble	a1,zero,.L2
	add	a4,a1,a2
.L3:
	sd	a2,0(a5)
	addi	a2,a2,1
	addi	a5,a5,8
	bne	a2,a4,.L3
.L2:
	ret
	.size	array_fill, .-array_fill
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
