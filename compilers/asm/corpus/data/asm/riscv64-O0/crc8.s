	.file	"crc8.c"
	.option nopic
	.option norelax
	.attribute arch, "rv64i2p1_m2p0_a2p1_f2p2_d2p2_zicsr2p0_zifencei2p0"
	.attribute unaligned_access, 0
	.attribute stack_align, 16
	.text
	.align	2
	.globl	crc8
	.type	crc8, @function
crc8:
	addi	sp,sp,-48
	sd	s0,40(sp)
	addi	s0,sp,48
	sd	a0,-40(s0)
	sd	zero,-24(s0)
	sw	zero,-28(s0)
	j	.L2
.L7:
	lw	a5,-28(s0)
	slliw	a5,a5,3
	sext.w	a5,a5
	mv	a4,a5
	ld	a5,-40(s0)
	srl	a5,a5,a4
	andi	a5,a5,255
	ld	a4,-24(s0)
	xor	a5,a4,a5
	sd	a5,-24(s0)
	sw	zero,-32(s0)
	j	.L3
.L6:
	ld	a5,-24(s0)
	andi	a5,a5,128
	beq	a5,zero,.L4
	ld	a5,-24(s0)
	slli	a5,a5,1
	xori	a5,a5,7
	andi	a5,a5,255
	j	.L5
.L4:
	ld	a5,-24(s0)
	slli	a5,a5,1
	andi	a5,a5,255
.L5:
	sd	a5,-24(s0)
	lw	a5,-32(s0)
	addiw	a5,a5,1
	sw	a5,-32(s0)
.L3:
	lw	a5,-32(s0)
	sext.w	a4,a5
	li	a5,7
	ble	a4,a5,.L6
	lw	a5,-28(s0)
	addiw	a5,a5,1
	sw	a5,-28(s0)
.L2:
	lw	a5,-28(s0)
	sext.w	a4,a5
	li	a5,7
	ble	a4,a5,.L7
	ld	a5,-24(s0)
	mv	a0,a5
	ld	s0,40(sp)
	addi	sp,sp,48
	jr	ra
	.size	crc8, .-crc8
	.ident	"GCC: (Debian 12.2.0-13) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
