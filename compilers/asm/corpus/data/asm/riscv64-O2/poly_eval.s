	.file	"poly_eval.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	poly_eval
	.type	poly_eval, @function
poly_eval:
	ble	a1,zero,.L5
	slli	a1,a1,3
	add	a5,a0,a1
	mv	a3,a5
	li	a4,0
.L3:
	mul	a4,a2,a4
	ld	a6,-8(a3)
	mv	a1,a3
	addi	a3,a3,-8
	add	a4,a4,a6
	bne	a0,a3,.L3
	neg	a2,a2
	li	a3,0
.L4:
	mul	a3,a2,a3
	ld	a6,-8(a5)
	mv	a0,a5
	addi	a5,a5,-8
	add	a3,a3,a6
	bne	a1,a0,.L4
	sub	a0,a4,a3
	ret
.L5:
	li	a0,0
	ret
	.size	poly_eval, .-poly_eval
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
