	.file	"crc8.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	crc8
	.type	crc8, @function
crc8:
	mv	a6,a0
	li	a1,0
	li	a0,0
	li	a7,64
.L5:
	srl	a5,a6,a1
	andi	a5,a5,255
	xor	a0,a0,a5
	li	a5,8
.L4:
	slli	a4,a0,1
	andi	a3,a0,128
	addiw	a5,a5,-1
	xori	a2,a4,7
	andi	a0,a4,255
	beq	a3,zero,.L3
	andi	a0,a2,255
.L3:
	bne	a5,zero,.L4
	addiw	a1,a1,8
	bne	a1,a7,.L5
	ret
	.size	crc8, .-crc8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
