	.file	"reverse_digits.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	reverse_digits
	.type	reverse_digits, @function
reverse_digits:
	srai	a5,a0,63
	xor	a4,a5,a0
	sub	a4,a4,a5
	beq	a0,zero,.L4
	li	a0,0
	li	a3,10
.L3:
	rem	a2,a4,a3
	slli	a5,a0,2
	add	a5,a5,a0
	slli	a5,a5,1
	div	a4,a4,a3
	add	a0,a2,a5
	bne	a4,zero,.L3
	ret
.L4:
	li	a0,0
	ret
	.size	reverse_digits, .-reverse_digits
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
