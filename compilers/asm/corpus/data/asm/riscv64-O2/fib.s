	.file	"fib.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	fib
	.type	fib, @function
fib:
	mv	a2,a0
	ble	a0,zero,.L4
	li	a4,0
	li	a5,1
	li	a3,0
.L3:
	mv	a0,a5
	addi	a4,a4,1
	add	a5,a5,a3
	mv	a3,a0
	bne	a2,a4,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	fib, .-fib
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
