	.file	"triangle_row.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	triangle_row
	.type	triangle_row, @function
triangle_row:
	mv	a2,a0
	blt	a0,zero,.L4
	addi	a1,a0,1
	li	a5,0
	li	a0,0
	li	a3,1
.L3:
	sub	a4,a2,a5
	mul	a4,a4,a3
	addi	a5,a5,1
	add	a0,a0,a3
	div	a3,a4,a5
	bne	a5,a1,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	triangle_row, .-triangle_row
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
