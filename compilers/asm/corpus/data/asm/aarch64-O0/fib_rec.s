	.arch armv8-a
	.file	"fib_rec.c"
	.text
	.align	2
	.type	fibr, %function
fibr:
.LFB0:
	.cfi_startproc
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	str	x19, [sp, 16]
	.cfi_offset 19, -32
	str	x0, [sp, 40]
	ldr	x0, [sp, 40]
	cmp	x0, 1
	ble	.L2
	ldr	x0, [sp, 40]
	sub	x0, x0, #1
	bl	fibr
	mov	x19, x0
	ldr	x0, [sp, 40]
	sub	x0, x0, #2
	bl	fibr
	add	x0, x19, x0
	b	.L4
.L2:
	ldr	x0, [sp, 40]
.L4:
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE0:
	.size	fibr, .-fibr
	.align	2
	.global	fib_rec
	.type	fib_rec, %function
fib_rec:
.LFB1:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x0, [sp, 24]
	ldr	x0, [sp, 24]
	bl	fibr
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE1:
	.size	fib_rec, .-fib_rec
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
