	.file	"to_upper.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	to_upper
	.type	to_upper, @function
to_upper:
	ble	a1,zero,.L5
	mv	a5,a0
	add	a1,a0,a1
	li	a2,25
	li	a0,0
.L4:
	lbu	a4,0(a5)
	addiw	a3,a4,-97
	andi	a3,a3,0xff
	addiw	a4,a4,-32
	bgtu	a3,a2,.L3
	sb	a4,0(a5)
	addi	a0,a0,1
.L3:
	addi	a5,a5,1
	bne	a5,a1,.L4
	ret
.L5:
	li	a0,0
	ret
	.size	to_upper, .-to_upper
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
