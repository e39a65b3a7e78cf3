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
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	ld	a5,-40(s0)
	bge	a5,zero,.L2
	li	a5,0
	j	.L3
.L2:
	sd	zero,-24(s0)
	ld	a5,-40(s0)
	sd	a5,-32(s0)
	j	.L4
.L5:
	ld	a4,-24(s0)
	mv	a5,a4
	slli	a5,a5,2
	add	a5,a5,a4
	slli	a5,a5,1
	mv	a3,a5
	ld	a4,-32(s0)
	li	a5,10
	rem	a5,a4,a5
	add	a5,a3,a5
	sd	a5,-24(s0)
	ld	a4,-32(s0)
	li	a5,10
	div	a5,a4,a5
	sd	a5,-32(s0)
.L4:
	ld	a5,-32(s0)
	bgt	a5,zero,.L5
	ld	a4,-24(s0)
	ld	a5,-40(s0)
	sub	a5,a4,a5
	seqz	a5,a5
	andi	a5,a5,0xff
.L3:
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	is_palindrome_num, .-is_palindrome_num
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
