	.file	"euler1.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	euler1
	.type	euler1, @function
euler1:
	slli	a3,a0,2
	add	a3,a3,a0
	slli	a3,a3,1
	ble	a0,zero,.L6
	li	a5,0
	li	a0,0
	li	a2,3
	li	a1,5
.L5:
	rem	a4,a5,a2
	beq	a4,zero,.L3
	rem	a4,a5,a1
	bne	a4,zero,.L4
.L3:
	add	a0,a0,a5
.L4:
	addi	a5,a5,1
	blt	a5,a3,.L5
	ret
.L6:
	li	a0,0
	ret
	.size	euler1, .-euler1
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
