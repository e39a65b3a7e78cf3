	.file	"matvec2.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	matvec2
	.type	matvec2, @function
matvec2:
	ld	a4,0(a0)
	ld	a2,8(a0)
	ld	a7,16(a0)
	ld	a6,24(a0)
	ld	a5,0(a1)
	ld	a3,8(a1)
	mul	a0,a5,a4
	mul	a4,a3,a2
	mul	a5,a5,a7
	add	a0,a0,a4
	sd	a0,16(a1)
	mul	a3,a3,a6
	add	a5,a5,a3
	sd	a5,24(a1)
	sub	a0,a0,a5
	ret
	.size	matvec2, .-matvec2
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
