	.file	"ackermann_small.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.type	ack, @function
ack:
	beq	a0,zero,.L183
	addi	sp,sp,-96
	sd	s2,64(sp)
	sd	ra,88(sp)
	sd	s0,80(sp)
	sd	s1,72(sp)
	sd	s3,56(sp)
	sd	s4,48(sp)
	sd	s5,40(sp)
	sd	s6,32(sp)
	sd	s7,24(sp)
	sd	s8,16(sp)
	sd	s9,8(sp)
	mv	s2,a0
	bne	a1,zero,.L181
	addi	s7,s2,-1
	li	a1,1
	beq	s7,zero,.L2
.L193:
	bne	a1,zero,.L59
	addi	s2,s2,-2
	li	a1,1
	beq	s2,zero,.L2
.L181:
	addi	a1,a1,-1
	bne	a1,zero,.L184
	addi	s7,s2,-1
	mv	s0,s7
	li	a1,1
	beq	s7,zero,.L7
.L63:
	mv	s8,s0
.L10:
	addi	s0,s0,-1
	li	a5,1
	beq	s0,zero,.L14
.L66:
	mv	s9,s0
.L17:
	addi	s0,s0,-1
	li	a4,1
	beq	s0,zero,.L21
.L68:
	mv	s6,s0
.L24:
	addi	s0,s0,-1
	li	a5,1
	beq	s0,zero,.L28
.L71:
	mv	s5,s0
.L31:
	addi	s0,s0,-1
	li	a4,1
	beq	s0,zero,.L35
.L74:
	mv	s4,s0
.L38:
	addi	s0,s0,-1
	li	a5,1
	beq	s0,zero,.L42
.L77:
	mv	s3,s0
.L45:
	addi	s0,s0,-1
	li	a1,1
	beq	s0,zero,.L49
.L176:
	mv	s1,s0
.L50:
	addi	a1,a1,-1
.L54:
	mv	a0,s1
	addi	s1,s1,-1
	bne	a1,zero,.L185
.L79:
	li	a1,1
	bne	s1,zero,.L54
.L194:
	addi	s1,s0,-1
	addi	a1,a1,1
	beq	s1,zero,.L49
	bne	a1,zero,.L186
	addi	s0,s0,-2
	li	a1,1
	bne	s0,zero,.L176
.L49:
	addi	s0,s3,-1
	addi	a5,a1,1
	beq	s0,zero,.L42
	bne	a5,zero,.L187
	addi	s0,s3,-2
	li	a5,1
	bne	s0,zero,.L77
.L42:
	addi	s0,s4,-1
	addi	a4,a5,1
	beq	s0,zero,.L35
	bne	a4,zero,.L188
	addi	s0,s4,-2
	li	a4,1
	bne	s0,zero,.L74
.L35:
	addi	s0,s5,-1
	addi	a5,a4,1
	beq	s0,zero,.L28
	bne	a5,zero,.L189
	addi	s0,s5,-2
	li	a5,1
	bne	s0,zero,.L71
.L28:
	addi	s0,s6,-1
	addi	a4,a5,1
	beq	s0,zero,.L21
	bne	a4,zero,.L190
	addi	s0,s6,-2
	li	a4,1
	bne	s0,zero,.L68
.L21:
	addi	s0,s9,-1
	addi	a5,a4,1
	beq	s0,zero,.L14
	bne	a5,zero,.L191
	addi	s0,s9,-2
	li	a5,1
	bne	s0,zero,.L66
.L14:
	addi	s0,s8,-1
	addi	a1,a5,1
	beq	s0,zero,.L7
	bne	a1,zero,.L192
	addi	s0,s8,-2
	li	a1,1
	bne	s0,zero,.L63
.L7:
	addi	a1,a1,1
	bne	s7,zero,.L193
.L2:
	ld	ra,88(sp)
	ld	s0,80(sp)
	ld	s1,72(sp)
	ld	s2,64(sp)
	ld	s3,56(sp)
	ld	s4,48(sp)
	ld	s5,40(sp)
	ld	s6,32(sp)
	ld	s7,24(sp)
	ld	s8,16(sp)
	ld	s9,8(sp)
	addi	a0,a1,1
	addi	sp,sp,96
	jr	ra
.L188:
	beq	a5,zero,.L74
	addi	a5,a5,-1
	mv	s4,s0
.L48:
	mv	s3,s0
	beq	a5,zero,.L45
	mv	s1,s0
	addi	a1,a5,-1
	mv	a0,s1
	addi	s1,s1,-1
	beq	a1,zero,.L79
.L185:
	addi	a1,a1,-1
	call	ack
	mv	a1,a0
	bne	s1,zero,.L54
	j	.L194
.L189:
	beq	a4,zero,.L71
	addi	a4,a4,-1
	mv	s5,s0
.L41:
	mv	s4,s0
	addi	a5,a4,-1
	beq	a4,zero,.L38
	j	.L48
.L187:
	beq	a1,zero,.L77
	mv	s1,s0
	addi	a1,a1,-1
	mv	s3,s0
	j	.L54
.L190:
	beq	a5,zero,.L68
	addi	a5,a5,-1
	mv	s6,s0
.L34:
	mv	s5,s0
	addi	a4,a5,-1
	beq	a5,zero,.L31
	j	.L41
.L191:
	beq	a4,zero,.L66
	addi	a4,a4,-1
	mv	s9,s0
.L27:
	mv	s6,s0
	addi	a5,a4,-1
	beq	a4,zero,.L24
	j	.L34
.L192:
	beq	a5,zero,.L63
	addi	a5,a5,-1
	mv	s8,s0
.L20:
	mv	s9,s0
	addi	a4,a5,-1
	beq	a5,zero,.L17
	j	.L27
.L184:
	addi	a5,a1,-1
	bne	a5,zero,.L195
	mv	s8,s2
	mv	s0,s2
	addi	s7,s2,-1
	j	.L10
.L183:
	addi	a0,a1,1
	ret
.L59:
	mv	s2,s7
	j	.L181
.L186:
	mv	s0,s1
	j	.L50
.L195:
	addi	a5,a1,-2
	mv	s8,s2
	mv	s0,s2
	addi	s7,s2,-1
	j	.L20
	.size	ack, .-ack
	.align	2
	.globl	ackermann_small
	.type	ackermann_small, @function
ackermann_small:
	addi	sp,sp,-16
	sd	ra,8(sp)
	bne	a0,zero,.L205
.L197:
	mv	a1,a0
	li	a0,1
	call	ack
	addi	a0,a0,1
.L196:
	ld	ra,8(sp)
	addi	sp,sp,16
	jr	ra
.L205:
	addi	a1,a0,-1
	li	a0,2
	call	ack
	mv	a1,a0
	li	a0,2
	beq	a1,zero,.L196
	addi	a0,a1,-1
	j	.L197
	.size	ackermann_small, .-ackermann_small
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
