	.file	"bubble_sort.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	bubble_sort
	.type	bubble_sort, @function
bubble_sort:
	mv	a7,a0
	mv	a0,a1
	ble	a1,zero,.L11
	slli	a2,a1,3
	mv	a6,a1
	add	a2,a7,a2
	li	t1,1
.L3:
	addi	a5,a7,8
	ble	a6,t1,.L19
.L5:
	ld	a4,-8(a5)
	ld	a3,0(a5)
	ble	a4,a3,.L4
	sd	a3,-8(a5)
	sd	a4,0(a5)
.L4:
	addi	a5,a5,8
	bne	a5,a2,.L5
	addi	a6,a6,-1
	addi	a2,a2,-8
	addi	a5,a7,8
	bgt	a6,t1,.L5
.L19:
	addi	a6,a6,-1
	bne	a6,zero,.L20
.L11:
	ret
.L20:
	addi	a2,a2,-8
	j	.L3
	.size	bubble_sort, .-bubble_sort
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
