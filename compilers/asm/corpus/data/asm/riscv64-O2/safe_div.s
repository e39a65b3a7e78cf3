	.file	"safe_div.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	safe_div
	.type	safe_div, @function
safe_div:
	beq	a1,zero,.L3
	div	a0,a0,a1
	ret
.L3:
	li	a0,0
	ret
	.size	safe_div, .-safe_div
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
