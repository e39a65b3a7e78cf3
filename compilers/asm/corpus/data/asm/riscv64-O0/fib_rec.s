	.file	"fib_rec.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	fibr, @function
fibr:
	addi	sp,sp,-48
	sd	ra,40(sp)
	sd	s0,32(sp)
	sd	s1,24(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	ld	a4,-40(s0)
	li	a5,1
	ble	a4,a5,.L2
	ld	a5,-40(s0)
	addi	a5,a5,-1
	mv	a0,a5
	call	fibr
	mv	s1,a0
	ld	a5,-40(s0)
	addi	a5,a5,-2
	mv	a0,a5
	call	fibr
	mv	a5,a0
	add	a5,s1,a5
	j	.L4
.L2:
	ld	a5,-40(s0)
.L4:
	mv	a0,a5
	ld	ra,40(sp)
	ld	s0,32(sp)
	ld	s1,24(sp)
	addi	sp,sp,48
	jr	ra
	.size	fibr, .-fibr
	.align	2
	.globl	fib_rec
	.type	fib_rec, @function
fib_rec:
	addi	sp,sp,-32
	sd	ra,24(sp)
	sd	s0,16(sp)
	addi	s0,sp,32
	sd	a0,-24(s0)
	ld	a0,-24(s0)
	call	fibr
	mv	a5,a0
	mv	a0,a5
	ld	ra,24(sp)
	ld	s0,16(sp)
	addi	sp,sp,32
	jr	ra
	.size	fib_rec, .-fib_rec
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
