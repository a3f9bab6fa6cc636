	.arch armv8-a
	.file	"frames.c"
	.text
	.section	.rodata.str1.8,"aMS",@progbits,1
	.align	3
.LC0:
	.string	"cold %d\n"
	.section	.text.unlikely,"ax",@progbits
	.align	2
	.type	cold_path, %function
cold_path:
.LFB32:
	.cfi_startproc
	mov	w1, w0
	adrp	x2, .LC0
	add	x0, x2, :lo12:.LC0
	b	printf
	.cfi_endproc
.LFE32:
	.size	cold_path, .-cold_path
	.text
	.align	2
	.p2align 4,,11
	.global	leaf
	.type	leaf, %function
leaf:
.LFB22:
	.cfi_startproc
	mul	w0, w0, w1
	add	w0, w0, 3
	ret
	.cfi_endproc
.LFE22:
	.size	leaf, .-leaf
	.align	2
	.p2align 4,,11
	.global	many_saved
	.type	many_saved, %function
many_saved:
.LFB23:
	.cfi_startproc
	add	x8, x3, x3, lsl 1
	add	x6, x4, x4, lsl 1
	lsl	x7, x2, 3
	add	x9, x1, x1, lsl 2
	lsl	x8, x8, 2
	add	x5, x5, x5, lsl 4
	sub	x8, x8, x3
	add	x4, x4, x6, lsl 2
	add	x3, x0, x0, lsl 1
	sub	x2, x7, x2
	cmp	x0, 0
	ble	.L9
	mov	x10, x0
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	w6, 0
	mov	x29, sp
	.p2align 3,,7
.L6:
	mov	w1, w2
	mov	w0, w9
	bl	leaf
	mov	w7, w0
	mov	w1, w8
	mov	w0, w2
	add	x3, x3, w7, sxtw
	bl	leaf
	mov	w7, w0
	mov	w1, w4
	mov	w0, w8
	bl	leaf
	add	x9, x9, w7, sxtw
	mov	w7, w0
	mov	w1, w5
	mov	w0, w4
	add	x2, x2, w7, sxtw
	bl	leaf
	mov	w7, w0
	mov	w1, w3
	mov	w0, w5
	bl	leaf
	add	x8, x8, w7, sxtw
	mov	w7, w0
	mov	w1, w9
	mov	w0, w3
	add	w6, w6, 1
	bl	leaf
	add	x4, x4, w7, sxtw
	add	x5, x5, w0, sxtw
	cmp	w6, w10
	bne	.L6
	eor	x0, x3, x9
	eor	x2, x2, x8
	eor	x0, x0, x2
	eor	x4, x4, x5
	eor	x0, x0, x4
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L9:
	eor	x0, x3, x9
	eor	x2, x2, x8
	eor	x0, x0, x2
	eor	x4, x4, x5
	eor	x0, x0, x4
	ret
	.cfi_endproc
.LFE23:
	.size	many_saved, .-many_saved
	.align	2
	.p2align 4,,11
	.global	use_alloca
	.type	use_alloca, %function
use_alloca:
.LFB24:
	.cfi_startproc
	sxtw	x2, w0
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	add	w0, w2, 1
	mov	x29, sp
	.cfi_def_cfa_register 29
	sxtw	x0, w0
	str	x19, [sp, 16]
	.cfi_offset 19, -16
	add	x0, x0, 15
	mov	x19, x2
	and	x0, x0, -16
	mov	w1, 97
	sub	sp, sp, x0
	mov	x3, sp
	mov	x0, x3
	bl	memset
	strb	wzr, [x0, w19, sxtw]
	add	w1, w19, w19, lsr 31
	adrp	x2, .LANCHOR0
	asr	w1, w1, 1
	ldrb	w1, [x0, w1, sxtw]
	str	w1, [x2, #:lo12:.LANCHOR0]
	bl	strlen
	mov	sp, x29
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE24:
	.size	use_alloca, .-use_alloca
	.align	2
	.p2align 4,,11
	.global	use_vla
	.type	use_vla, %function
use_vla:
.LFB25:
	.cfi_startproc
	sxtw	x5, w0
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sbfiz	x4, x5, 2, 32
	mov	x29, sp
	.cfi_def_cfa_register 29
	add	x0, x4, 15
	and	x0, x0, -16
	sub	sp, sp, x0
	cmp	w5, 0
	ble	.L18
	mov	x1, x5
	mov	x3, sp
	mov	x2, 0
	.p2align 3,,7
.L16:
	mov	w0, w2
	bl	leaf
	str	w0, [x3, x2, lsl 2]
	add	x2, x2, 1
	cmp	x5, x2
	bne	.L16
	mov	x1, x3
	add	x3, x3, x4
	mov	w0, 0
	.p2align 3,,7
.L17:
	ldr	w2, [x1], 4
	add	w0, w0, w2
	cmp	x1, x3
	bne	.L17
	mov	sp, x29
	ldp	x29, x30, [sp], 16
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.p2align 2,,3
.L18:
	.cfi_restore_state
	mov	sp, x29
	mov	w0, 0
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE25:
	.size	use_vla, .-use_vla
	.align	2
	.p2align 4,,11
	.global	aligned_local
	.type	aligned_local, %function
aligned_local:
.LFB26:
	.cfi_startproc
	stp	x29, x30, [sp, -128]!
	.cfi_def_cfa_offset 128
	.cfi_offset 29, -128
	.cfi_offset 30, -120
	mov	w1, w0
	mov	w2, 0
	mov	x29, sp
	.cfi_def_cfa_register 29
	add	x4, x29, 79
	and	x4, x4, -64
	mov	x3, x4
	.p2align 3,,7
.L23:
	mov	w0, w2
	add	w2, w2, 1
	bl	leaf
	str	w0, [x3], 4
	cmp	w2, 16
	bne	.L23
	sbfiz	x0, x1, 2, 32
	sxtw	x5, w1
	add	x0, x0, 15
	and	x0, x0, -16
	sub	sp, sp, x0
	mov	x3, sp
	cmp	w1, 0
	ble	.L24
	mov	x2, 0
	.p2align 3,,7
.L25:
	and	x0, x2, 15
	ldr	w0, [x4, x0, lsl 2]
	str	w0, [x3, x2, lsl 2]
	add	x2, x2, 1
	cmp	x5, x2
	bne	.L25
.L24:
	sub	w1, w1, #1
	ldr	w0, [x4, 12]
	ldr	w1, [x3, w1, sxtw 2]
	mov	sp, x29
	add	w0, w1, w0
	ldp	x29, x30, [sp], 128
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE26:
	.size	aligned_local, .-aligned_local
	.section	.rodata.str1.8
	.align	3
.LC1:
	.string	"%s\n"
	.text
	.align	2
	.p2align 4,,11
	.global	die
	.type	die, %function
die:
.LFB27:
	.cfi_startproc
	adrp	x3, :got:stderr
	ldr	x3, [x3, :got_lo12:stderr]
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x2, x0
	mov	x29, sp
	ldr	x0, [x3]
	adrp	x1, .LC1
	add	x1, x1, :lo12:.LC1
	bl	fprintf
	mov	w0, 2
	bl	exit
	.cfi_endproc
.LFE27:
	.size	die, .-die
	.section	.rodata.str1.8
	.align	3
.LC2:
	.string	"negative"
	.text
	.align	2
	.p2align 4,,11
	.global	checked
	.type	checked, %function
checked:
.LFB28:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	tbnz	w0, #31, .L35
	mov	w1, w0
	cmp	w0, 1000
	bgt	.L36
	ldp	x29, x30, [sp], 16
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	b	leaf
.L35:
	.cfi_restore_state
	adrp	x0, .LC2
	add	x0, x0, :lo12:.LC2
	bl	die
.L36:
	bl	abort
	.cfi_endproc
.LFE28:
	.size	checked, .-checked
	.align	2
	.p2align 4,,11
	.global	fib
	.type	fib, %function
fib:
.LFB29:
	.cfi_startproc
	cmp	x0, 1
	ble	.L43
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	stp	x21, x22, [sp, 32]
	.cfi_offset 21, -16
	.cfi_offset 22, -8
	sub	x22, x0, #2
	sub	x21, x0, #3
	and	x1, x22, -2
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -32
	.cfi_offset 20, -24
	sub	x21, x21, x1
	sub	x20, x0, #1
	mov	x19, 0
.L39:
	mov	x0, x20
	sub	x20, x20, #2
	bl	fib
	add	x19, x19, x0
	cmp	x20, x21
	bne	.L39
	and	x22, x22, 1
	add	x0, x22, x19
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L43:
	ret
	.cfi_endproc
.LFE29:
	.size	fib, .-fib
	.align	2
	.p2align 4,,11
	.global	sum
	.type	sum, %function
sum:
.LFB30:
	.cfi_startproc
	sub	sp, sp, #96
	.cfi_def_cfa_offset 96
	mov	w9, w0
	add	x10, sp, 32
	add	x0, sp, 96
	mov	w8, -56
	stp	x0, x0, [sp]
	str	x10, [sp, 16]
	stp	w8, wzr, [sp, 24]
	stp	x1, x2, [sp, 40]
	stp	x3, x4, [sp, 56]
	stp	x5, x6, [sp, 72]
	str	x7, [sp, 88]
	cmp	w9, 0
	ble	.L52
	mov	x3, x0
	mov	x6, x0
	mov	w1, w8
	mov	w2, 0
	mov	w0, 0
	b	.L51
	.p2align 2,,3
.L55:
	mov	x4, x3
	add	w2, w2, 1
	add	x3, x3, 8
	ldr	w4, [x4]
	add	w0, w0, w4
	cmp	w9, w2
	beq	.L46
.L51:
	add	w5, w1, 8
	tbz	w1, #31, .L55
	add	x4, x6, w1, sxtw
	mov	w1, w5
	cmp	w5, 0
	bgt	.L55
	ldr	w4, [x4]
	add	w2, w2, 1
	add	w0, w0, w4
	cmp	w9, w2
	bne	.L51
.L46:
	add	sp, sp, 96
	.cfi_remember_state
	.cfi_def_cfa_offset 0
	ret
	.p2align 2,,3
.L52:
	.cfi_restore_state
	mov	w0, 0
	add	sp, sp, 96
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE30:
	.size	sum, .-sum
	.align	2
	.p2align 4,,11
	.global	tail
	.type	tail, %function
tail:
.LFB31:
	.cfi_startproc
	add	w0, w0, 1
	b	checked
	.cfi_endproc
.LFE31:
	.size	tail, .-tail
	.align	2
	.p2align 4,,11
	.global	maybe_cold
	.type	maybe_cold, %function
maybe_cold:
.LFB33:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	w1, 12345
	mov	x29, sp
	str	x19, [sp, 16]
	.cfi_offset 19, -16
	mov	w19, w0
	cmp	w0, w1
	beq	.L61
.L59:
	mov	w0, w19
	mov	w1, 2
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 32
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	b	leaf
.L61:
	.cfi_restore_state
	bl	cold_path
	b	.L59
	.cfi_endproc
.LFE33:
	.size	maybe_cold, .-maybe_cold
	.section	.rodata.str1.8
	.align	3
.LC3:
	.string	"%ld\n"
	.section	.text.startup,"ax",@progbits
	.align	2
	.p2align 4,,11
	.global	main
	.type	main, %function
main:
.LFB34:
	.cfi_startproc
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x5, 6
	mov	x4, 5
	mov	x29, sp
	mov	x1, 2
	mov	x3, 4
	mov	x2, 3
	sxtw	x0, w0
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -32
	.cfi_offset 20, -24
	mov	x20, x0
	str	x21, [sp, 32]
	.cfi_offset 21, -16
	bl	many_saved
	mov	x21, x0
	add	w0, w20, 10
	bl	use_alloca
	mov	w19, w0
	add	w0, w20, 5
	bl	use_vla
	add	w19, w19, w0
	add	w0, w20, 3
	bl	aligned_local
	add	w19, w19, w0
	mov	w0, w20
	bl	checked
	mov	w7, w0
	mov	x0, 10
	bl	fib
	mov	w3, 3
	add	x7, x0, w7, sxtw
	mov	w2, 2
	mov	w0, w3
	add	x19, x21, w19, sxtw
	mov	w1, 1
	bl	sum
	mov	w21, w0
	mov	w0, w20
	add	x21, x7, w21, sxtw
	bl	tail
	mov	w1, w0
	mov	w0, w20
	add	x21, x21, w1, sxtw
	bl	maybe_cold
	mov	w1, w0
	adrp	x0, .LC3
	add	x0, x0, :lo12:.LC3
	add	x1, x21, w1, sxtw
	add	x1, x1, x19
	bl	printf
	ldp	x19, x20, [sp, 16]
	mov	w0, 0
	ldr	x21, [sp, 32]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 21
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE34:
	.size	main, .-main
	.global	sink
	.bss
	.align	2
	.set	.LANCHOR0,. + 0
	.type	sink, %object
	.size	sink, 4
sink:
	.zero	4
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
