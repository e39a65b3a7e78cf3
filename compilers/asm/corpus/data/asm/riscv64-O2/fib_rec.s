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
	addi	sp,sp,-256
	sd	s1,232(sp)
	sd	ra,248(sp)
	sd	s0,240(sp)
	sd	s2,224(sp)
	sd	s3,216(sp)
	sd	s4,208(sp)
	sd	s5,200(sp)
	sd	s6,192(sp)
	sd	s7,184(sp)
	sd	s8,176(sp)
	sd	s9,168(sp)
	sd	s10,160(sp)
	sd	s11,152(sp)
	li	a5,1
	mv	s1,a0
	ble	a0,a5,.L2
	addi	a5,a0,-1
	andi	a4,a5,-2
	sub	s9,a0,a4
	li	s6,0
	li	a2,1
	mv	s0,a5
	beq	s1,s9,.L3
.L46:
	addi	s1,s1,-2
	andi	a5,s1,-2
	mv	s3,s6
	sub	s10,s0,a5
	li	s5,0
	mv	s6,s1
.L26:
	addi	a5,s0,-1
	beq	s0,s10,.L4
.L45:
	addi	s7,s0,-2
	andi	a4,s7,-2
	sub	s2,a5,a4
	li	s1,0
	mv	s8,s3
.L24:
	addi	s0,a5,-1
	beq	a5,s2,.L5
	addi	s11,a5,-2
	andi	a5,s11,-2
	sub	a3,s0,a5
	mv	a4,s5
	mv	a0,s0
	li	s4,0
	mv	a1,s8
	mv	s3,s1
	mv	s5,a3
	mv	s0,s2
.L22:
	addi	s1,a0,-1
	beq	a0,s5,.L6
	addi	a0,a0,-2
	andi	s8,a0,-2
	mv	t3,a1
	mv	a6,s3
	sd	s11,32(sp)
	mv	a3,s6
	mv	s11,s9
	sub	s8,s1,s8
	li	s2,0
	mv	t1,a4
	mv	a1,s4
	mv	s3,s5
	mv	s9,s0
	mv	a7,a0
	mv	s6,s7
.L20:
	addi	a5,s1,-1
	beq	s8,s1,.L7
	addi	s1,s1,-2
	andi	s5,s1,-2
	sub	s5,a5,s5
	li	s4,0
	mv	s7,s5
.L18:
	addi	s0,a5,-1
	beq	s7,a5,.L8
	addi	t4,a5,-2
	andi	a0,t4,-2
	addi	t0,a5,-3
	addi	t2,a5,-5
	sub	a5,s0,a0
	sd	a5,24(sp)
	mv	s5,t3
	li	a5,0
.L16:
	ld	a4,24(sp)
	addi	t6,s0,-1
	beq	a4,s0,.L9
	andi	a0,t0,-2
	sub	a4,t6,a0
	sd	a4,0(sp)
	sd	t1,8(sp)
	mv	a0,t6
	mv	t1,s11
	mv	t5,s6
	mv	s11,s10
	mv	t6,t4
	mv	s10,s9
	mv	t4,a3
	mv	s9,s3
	mv	a4,t2
	li	t3,0
	sd	a5,16(sp)
	mv	s3,s2
	mv	s6,s0
	mv	a3,s1
.L14:
	ld	a5,0(sp)
	beq	a0,a5,.L10
	addi	a5,a0,-2
	andi	ra,a4,-2
	addi	a0,a0,-4
	mv	s2,a5
	sub	s0,a0,ra
	li	s1,0
.L11:
	mv	a0,s2
	sd	a5,136(sp)
	sd	t6,128(sp)
	sd	t4,120(sp)
	sd	a3,112(sp)
	sd	a7,104(sp)
	sd	t5,96(sp)
	sd	t1,88(sp)
	sd	a4,80(sp)
	sd	t0,72(sp)
	sd	t2,64(sp)
	sd	t3,56(sp)
	sd	a1,48(sp)
	sd	a6,40(sp)
	addi	s2,s2,-2
	call	fibr
	ld	a6,40(sp)
	ld	a1,48(sp)
	ld	t3,56(sp)
	ld	t2,64(sp)
	ld	t0,72(sp)
	ld	a4,80(sp)
	ld	t1,88(sp)
	ld	t5,96(sp)
	ld	a7,104(sp)
	ld	a3,112(sp)
	ld	t4,120(sp)
	ld	t6,128(sp)
	ld	a5,136(sp)
	add	s1,s1,a0
	li	a2,1
	bne	s0,s2,.L11
	andi	s0,a4,1
	add	s0,s0,s1
	mv	a0,a5
	add	t3,t3,s0
	addi	a4,a4,-2
	bgt	a5,a2,.L14
	mv	s2,s3
	ld	a5,16(sp)
	mv	s3,s9
	mv	s9,s10
	mv	s10,s11
	mv	s11,t1
	ld	t1,8(sp)
	mv	s0,s6
	mv	s1,a3
	mv	s6,t5
	mv	a3,t4
	mv	t4,t6
	mv	t6,a0
.L13:
	add	a0,t6,t3
	addi	s0,s0,-2
	add	a5,a5,a0
	addi	t0,t0,-2
	addi	t2,t2,-2
	bgt	s0,a2,.L16
	mv	t3,s5
.L15:
	add	a0,s0,a5
	add	s4,s4,a0
	mv	a5,t4
	bgt	t4,a2,.L18
	add	a5,a5,s4
	add	s2,s2,a5
	bgt	s1,a2,.L20
.L43:
	mv	s0,s9
	mv	s9,s11
	ld	s11,32(sp)
	mv	s4,a1
	mv	s5,s3
	mv	s7,s6
	mv	a4,t1
	mv	a1,t3
	mv	s3,a6
	mv	a0,a7
	mv	s6,a3
.L19:
	add	s1,s1,s2
	add	s4,s4,s1
	bgt	a0,a2,.L22
	mv	s2,s0
	mv	s8,a1
	mv	s5,a4
	mv	s1,s3
	mv	s0,a0
.L21:
	add	s4,s4,s0
	mv	a5,s11
	add	s1,s1,s4
	bgt	s11,a2,.L24
	add	s1,s1,a5
	mv	s3,s8
	mv	s0,s7
	add	s5,s5,s1
	bgt	s7,a2,.L26
.L44:
	mv	s1,s6
	add	s0,s0,s5
	mv	s6,s3
	add	s6,s6,s0
	bgt	s1,a2,.L42
.L38:
	add	s1,s1,s6
	j	.L2
.L8:
	addi	a5,a5,-2
	add	s4,s4,s0
	add	a5,a5,s4
	add	s2,s2,a5
	bgt	s1,a2,.L20
	j	.L43
.L9:
	mv	t3,s5
	addi	s0,s0,-2
	add	a5,a5,t6
	j	.L15
.L10:
	mv	s0,s6
	mv	s6,t5
	addi	t5,a0,-1
	mv	s2,s3
	mv	s1,a3
	mv	s3,s9
	mv	a3,t4
	mv	s9,s10
	mv	t4,t6
	mv	s10,s11
	ld	a5,16(sp)
	mv	s11,t1
	addi	t6,a0,-2
	ld	t1,8(sp)
	add	t3,t3,t5
	j	.L13
.L7:
	mv	s4,a1
	mv	s5,s3
	mv	s0,s9
	mv	s7,s6
	mv	s9,s11
	mv	a4,t1
	ld	s11,32(sp)
	mv	a1,t3
	mv	s3,a6
	mv	a0,a7
	mv	s6,a3
	addi	s1,s1,-2
	add	s2,s2,a5
	j	.L19
.L6:
	mv	a5,s1
	mv	s2,s0
	mv	s8,a1
	mv	s5,a4
	mv	s1,s3
	addi	s0,a0,-2
	add	s4,s4,a5
	j	.L21
.L5:
	add	s1,s1,s0
	addi	a5,a5,-2
	add	s1,s1,a5
	mv	s3,s8
	mv	s0,s7
	add	s5,s5,s1
	ble	s7,a2,.L44
	addi	a5,s0,-1
	bne	s0,s10,.L45
.L4:
	addi	s0,s0,-2
	add	s5,s5,a5
	mv	s1,s6
	add	s0,s0,s5
	mv	s6,s3
	add	s6,s6,s0
	ble	s1,a2,.L38
.L42:
	addi	a5,s1,-1
	mv	s0,a5
	bne	s1,s9,.L46
.L3:
	addi	s1,s1,-2
	add	a5,a5,s6
	add	s1,s1,a5
.L2:
	ld	ra,248(sp)
	ld	s0,240(sp)
	ld	s2,224(sp)
	ld	s3,216(sp)
	ld	s4,208(sp)
	ld	s5,200(sp)
	ld	s6,192(sp)
	ld	s7,184(sp)
	ld	s8,176(sp)
	ld	s9,168(sp)
	ld	s10,160(sp)
	ld	s11,152(sp)
	mv	a0,s1
	ld	s1,232(sp)
	addi	sp,sp,256
	jr	ra
	.size	fibr, .-fibr
	.align	2
	.globl	fib_rec
	.type	fib_rec, @function
fib_rec:
	li	a5,1
	ble	a0,a5,.L53
	addi	sp,sp,-48
	sd	s3,8(sp)
	addi	s3,a0,-2
	sd	s2,16(sp)
	andi	a5,s3,-2
	addi	s2,a0,-3
	sd	s0,32(sp)
	sd	s1,24(sp)
	sd	ra,40(sp)
	addi	s1,a0,-1
	sub	s2,s2,a5
	li	s0,0
.L49:
	mv	a0,s1
	call	fibr
	addi	s1,s1,-2
	add	s0,s0,a0
	bne	s1,s2,.L49
	andi	s3,s3,1
	add	a0,s3,s0
	ld	ra,40(sp)
	ld	s0,32(sp)
	ld	s1,24(sp)
	ld	s2,16(sp)
	ld	s3,8(sp)
	addi	sp,sp,48
	jr	ra
.L53:
	ret
	.size	fib_rec, .-fib_rec
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
