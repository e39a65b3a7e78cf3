	.file	"digit_sum.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	digit_sum
	.type	digit_sum, @function
digit_sum:
	srai	a4,a0,63
	xor	a5,a4,a0
	sub	a5,a5,a4
	beq	a0,zero,.L4
	li	a0,0
	li	a4,10
.L3:
	rem	a3,a5,a4
	div	a5,a5,a4
	add	a0,a0,a3
	bne	a5,zero,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	digit_sum, .-digit_sum
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
