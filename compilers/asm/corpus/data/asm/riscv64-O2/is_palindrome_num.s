	.file	"is_palindrome_num.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	is_palindrome_num
	.type	is_palindrome_num, @function
is_palindrome_num:
	blt	a0,zero,.L5
	beq	a0,zero,.L6
	mv	a4,a0
	li	a3,0
	li	a2,10
.L4:
	rem	a1,a4,a2
	slli	a5,a3,2
	add	a5,a5,a3
	slli	a5,a5,1
	div	a4,a4,a2
	add	a3,a1,a5
	bne	a4,zero,.L4
.L3:
	sub	a0,a0,a3
	seqz	a0,a0
	ret
.L5:
	li	a0,0
	ret
.L6:
	li	a3,0
	j	.L3
	.size	is_palindrome_num, .-is_palindrome_num
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
