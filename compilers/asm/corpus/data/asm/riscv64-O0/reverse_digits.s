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
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	ld	a5,-40(s0)
	bge	a5,zero,.L2
	ld	a5,-40(s0)
	neg	a5,a5
	sd	a5,-40(s0)
.L2:
	sd	zero,-24(s0)
	j	.L3
.L4:
	ld	a4,-24(s0)
	mv	a5,a4
	slli	a5,a5,2
	add	a5,a5,a4
	slli	a5,a5,1
	mv	a3,a5
	ld	a4,-40(s0)
	li	a5,10
	rem	a5,a4,a5
	add	a5,a3,a5
	sd	a5,-24(s0)
	ld	a4,-40(s0)
	li	a5,10
	div	a5,a4,a5
	sd	a5,-40(s0)
.L3:
	ld	a5,-40(s0)
	bgt	a5,zero,.L4
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	reverse_digits, .-reverse_digits
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
