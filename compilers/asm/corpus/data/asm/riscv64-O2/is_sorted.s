	.file	"is_sorted.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_sorted
	.type	is_sorted, @function
is_sorted:
	li	a5,1
	bgt	a1,a5,.L3
	j	.L4
.L8:
	beq	a1,a5,.L4
.L3:
	ld	a3,0(a0)
	ld	a4,8(a0)
	addi	a5,a5,1
	addi	a0,a0,8
	ble	a3,a4,.L8
	li	a0,0
	ret
.L4:
	li	a0,1
	ret
	.size	is_sorted, .-is_sorted
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
