	.file	"byte_xor.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	byte_xor
	.type	byte_xor, @function
byte_xor:
	mv	a5,a0
	andi	a2,a2,0xff
	mv	a0,a1
	add	a3,a5,a1
	ble	a1,zero,.L7
.L3:
	lbu	a4,0(a5)
	addi	a5,a5,1
	xor	a4,a2,a4
	sb	a4,-1(a5)
	bne	a5,a3,.L3
.L7:
	ret
	.size	byte_xor, .-byte_xor
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
