	.file	"tri_kind.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	tri_kind
	.type	tri_kind, @function
tri_kind:
	mv	a5,a0
	li	a0,0
	ble	a5,zero,.L4
	ble	a1,zero,.L1
	ble	a2,zero,.L1
	add	a4,a5,a1
	ble	a4,a2,.L1
	add	a4,a1,a2
	ble	a4,a5,.L1
	add	a4,a5,a2
	ble	a4,a1,.L1
	beq	a5,a1,.L14
	beq	a1,a2,.L11
	sub	a5,a5,a2
	seqz	a0,a5
	addi	a0,a0,1
	ret
.L11:
	li	a0,2
.L1:
	ret
.L4:
	ret
.L14:
	sub	a5,a5,a2
	seqz	a0,a5
	addi	a0,a0,2
	ret
	.size	tri_kind, .-tri_kind
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
