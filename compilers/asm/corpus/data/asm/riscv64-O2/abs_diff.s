	.file	"abs_diff.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	abs_diff
	.type	abs_diff, @function
abs_diff:
	ble	a0,a1,.L2
	sub	a0,a0,a1
	ret
.L2:
	sub	a0,a1,a0
	ret
	.size	abs_diff, .-abs_diff
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
