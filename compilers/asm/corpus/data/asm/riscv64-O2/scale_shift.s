	.file	"scale_shift.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	scale_shift
	.type	scale_shift, @function
scale_shift:
	mv	a4,a0
	mv	a0,a1
	ble	a1,zero,.L2
	slli	a3,a1,3
	add	a3,a4,a3
.L3:
	ld	a5,0(a4)
	addi	a4,a4,8
	mul	a5,a2,a5
	srai	a5,a5,2
	sd	a5,-8(a4)
	bne	a4,a3,.L3
.L2:
	ret
	.size	scale_shift, .-scale_shift
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
