	.file	"sum_of_gcds.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	sum_of_gcds
	.type	sum_of_gcds, @function
sum_of_gcds:
	li	a5,1
	ble	a1,a5,.L6
	slli	a1,a1,3
	addi	a2,a0,8
	add	a7,a0,a1
	li	a0,0
.L5:
	ld	a3,0(a2)
	ld	a4,-8(a2)
	srai	a1,a3,63
	srai	a6,a4,63
	xor	a4,a6,a4
	xor	a5,a1,a3
	sub	a4,a4,a6
	sub	a5,a5,a1
	beq	a3,zero,.L7
.L4:
	mv	a3,a5
	rem	a5,a4,a5
	mv	a4,a3
	bne	a5,zero,.L4
	addi	a2,a2,8
	add	a0,a0,a3
	bne	a7,a2,.L5
.L11:
	ret
.L7:
	mv	a3,a4
	addi	a2,a2,8
	add	a0,a0,a3
	bne	a7,a2,.L5
	j	.L11
.L6:
	li	a0,0
	ret
	.size	sum_of_gcds, .-sum_of_gcds
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
