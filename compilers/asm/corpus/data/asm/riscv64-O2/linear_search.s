	.file	"linear_search.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	linear_search
	.type	linear_search, @function
linear_search:
	ble	a1,zero,.L4
	mv	a5,a0
	li	a0,0
	j	.L3
.L7:
	addi	a0,a0,1
	beq	a1,a0,.L4
.L3:
	ld	a4,0(a5)
	addi	a5,a5,8
	bne	a4,a2,.L7
	ret
.L4:
	li	a0,-1
	ret
	.size	linear_search, .-linear_search
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
