	.file	"median3.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	median3
	.type	median3, @function
median3:
	mv	a5,a0
	bgt	a0,a1,.L2
	mv	a0,a1
	ble	a1,a2,.L17
	beq	a5,a1,.L18
	mv	a0,a5
	blt	a5,a2,.L15
.L1:
	ret
.L2:
	bge	a1,a2,.L19
	ble	a0,a2,.L1
.L15:
	mv	a0,a2
	ret
.L17:
	ret
.L19:
	mv	a0,a1
	ret
.L18:
	ret
	.size	median3, .-median3
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
