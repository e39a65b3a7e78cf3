	.file	"checksum_fletcher.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	checksum_fletcher
	.type	checksum_fletcher, @function
checksum_fletcher:
	ble	a1,zero,.L4
	add	a1,a0,a1
	li	a4,0
	li	a5,0
	li	a3,255
.L3:
	lbu	a2,0(a0)
	addi	a0,a0,1
	add	a5,a2,a5
	remu	a5,a5,a3
	add	a4,a5,a4
	remu	a4,a4,a3
	bne	a1,a0,.L3
	slli	a0,a4,8
	or	a0,a0,a5
	ret
.L4:
	li	a0,0
	ret
	.size	checksum_fletcher, .-checksum_fletcher
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
