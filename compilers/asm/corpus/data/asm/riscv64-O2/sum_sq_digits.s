	.file	"sum_sq_digits.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	sum_sq_digits
	.type	sum_sq_digits, @function
sum_sq_digits:
	srai	a5,a0,63
	xor	a4,a5,a0
	sub	a4,a4,a5
	beq	a0,zero,.L4
	li	a0,0
	li	a3,10
.L3:
	rem	a5,a4,a3
	div	a4,a4,a3
	mul	a5,a5,a5
	add	a0,a0,a5
	bne	a4,zero,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	sum_sq_digits, .-sum_sq_digits
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
