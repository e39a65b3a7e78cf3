	.file	"insertion_sort.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	insertion_sort
	.type	insertion_sort, @function
insertion_sort:
	li	a5,1
	mv	t5,a0
	mv	a0,a1
	ble	a1,a5,.L10
	slli	t4,a1,3
	addi	t1,t5,8
	add	t4,t5,t4
	li	t3,0
	li	a7,-1
.L6:
	ld	a6,0(t1)
	mv	a4,t3
	mv	a5,t1
	j	.L3
.L5:
	sd	a3,0(a5)
	addi	a5,a2,-8
	beq	a4,a7,.L8
.L3:
	ld	a3,-8(a5)
	addi	a4,a4,-1
	mv	a2,a5
	bgt	a3,a6,.L5
	sd	a6,0(a2)
	addi	t1,t1,8
	addi	t3,t3,1
	bne	t4,t1,.L6
.L10:
	ret
.L8:
	mv	a2,t5
	sd	a6,0(a2)
	addi	t1,t1,8
	addi	t3,t3,1
	bne	t4,t1,.L6
	j	.L10
	.size	insertion_sort, .-insertion_sort
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
