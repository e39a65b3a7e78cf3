	.file	"pow_mod.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	pow_mod
	.type	pow_mod, @function
pow_mod:
	li	a5,1
	ble	a2,a5,.L6
	rem	a5,a0,a2
	blt	a5,zero,.L13
.L3:
	srai	a3,a1,63
	xor	a4,a3,a1
	sub	a4,a4,a3
	li	a0,1
	beq	a1,zero,.L7
.L5:
	andi	a1,a4,1
	mul	a3,a5,a5
	srai	a4,a4,1
	beq	a1,zero,.L4
	mul	a0,a5,a0
	rem	a0,a0,a2
.L4:
	rem	a5,a3,a2
	bne	a4,zero,.L5
	ret
.L13:
	add	a5,a5,a2
	j	.L3
.L6:
	li	a0,0
	ret
.L7:
	ret
	.size	pow_mod, .-pow_mod
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
