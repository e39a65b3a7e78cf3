	.file	"histogram4.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	histogram4
	.type	histogram4, @function
histogram4:
	sd	zero,0(a1)
	sd	zero,8(a1)
	sd	zero,16(a1)
	sd	zero,24(a1)
	mv	a4,a0
	mv	a0,a2
	ble	a2,zero,.L2
	slli	a6,a2,3
	add	a6,a4,a6
.L3:
	ld	a5,0(a4)
	addi	a4,a4,8
	andi	a5,a5,3
	slli	a5,a5,3
	add	a5,a1,a5
	ld	a3,0(a5)
	addi	a3,a3,1
	sd	a3,0(a5)
	bne	a6,a4,.L3
.L2:
	ret
	.size	histogram4, .-histogram4
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
