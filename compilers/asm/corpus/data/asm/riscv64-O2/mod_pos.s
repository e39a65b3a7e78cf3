	.file	"mod_pos.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	mod_pos
	.type	mod_pos, @function
mod_pos:
	beq	a1,zero,.L3
	rem	a0,a0,a1
	blt	a0,zero,.L5
	ret
.L5:
	srai	a5,a1,63
	xor	a1,a5,a1
	sub	a1,a1,a5
	add	a0,a0,a1
	ret
.L3:
	li	a0,0
	ret
	.size	mod_pos, .-mod_pos
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
