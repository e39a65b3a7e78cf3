	.file	"dot.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	dot
	.type	dot, @function
dot:
	ble	a2,zero,.L4
	slli	a2,a2,3
	mv	a5,a0
	add	a2,a0,a2
	li	a0,0
.L3:
	ld	a4,0(a5)
	ld	a3,0(a1)
	addi	a5,a5,8
	addi	a1,a1,8
	mul	a4,a4,a3
	add	a0,a0,a4
	bne	a5,a2,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	dot, .-dot
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
