	.arch armv8-a
	.file	"frames.c"
	.text
	.global	sink
	.bss
	.align	2
	.type	sink, %object
	.size	sink, 4
sink:
	.zero	4
	.text
	.align	2
	.global	leaf
	.type	leaf, %function
leaf:
.LFB6:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset 16
	str	w0, [sp, 12]
	str	w1, [sp, 8]
	ldr	w1, [sp, 12]
	ldr	w0, [sp, 8]
	mul	w0, w1, w0
	add	w0, w0, 3
	add	sp, sp, 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE6:
	.size	leaf, .-leaf
	.align	2
	.global	many_saved
	.type	many_saved, %function
many_saved:
.LFB7:
	.cfi_startproc
	stp	x29, x30, [sp, -128]!
	.cfi_def_cfa_offset 128
	.cfi_offset 29, -128
	.cfi_offset 30, -120
	mov	x29, sp
	str	x0, [sp, 56]
	str	x1, [sp, 48]
	str	x2, [sp, 40]
	str	x3, [sp, 32]
	str	x4, [sp, 24]
	str	x5, [sp, 16]
	ldr	x1, [sp, 56]
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	str	x0, [sp, 120]
	ldr	x1, [sp, 48]
	mov	x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	str	x0, [sp, 112]
	ldr	x1, [sp, 40]
	mov	x0, x1
	lsl	x0, x0, 3
	sub	x0, x0, x1
	str	x0, [sp, 104]
	ldr	x1, [sp, 32]
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	lsl	x0, x0, 2
	sub	x0, x0, x1
	str	x0, [sp, 96]
	ldr	x1, [sp, 24]
	mov	x0, x1
	lsl	x0, x0, 1
	add	x0, x0, x1
	lsl	x0, x0, 2
	add	x0, x0, x1
	str	x0, [sp, 88]
	ldr	x1, [sp, 16]
	mov	x0, x1
	lsl	x0, x0, 4
	add	x0, x0, x1
	str	x0, [sp, 80]
	str	wzr, [sp, 76]
	b	.L4
.L5:
	ldr	x0, [sp, 112]
	mov	w2, w0
	ldr	x0, [sp, 104]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 120]
	add	x0, x1, x0
	str	x0, [sp, 120]
	ldr	x0, [sp, 104]
	mov	w2, w0
	ldr	x0, [sp, 96]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 112]
	add	x0, x1, x0
	str	x0, [sp, 112]
	ldr	x0, [sp, 96]
	mov	w2, w0
	ldr	x0, [sp, 88]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 104]
	add	x0, x1, x0
	str	x0, [sp, 104]
	ldr	x0, [sp, 88]
	mov	w2, w0
	ldr	x0, [sp, 80]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 96]
	add	x0, x1, x0
	str	x0, [sp, 96]
	ldr	x0, [sp, 80]
	mov	w2, w0
	ldr	x0, [sp, 120]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 88]
	add	x0, x1, x0
	str	x0, [sp, 88]
	ldr	x0, [sp, 120]
	mov	w2, w0
	ldr	x0, [sp, 112]
	mov	w1, w0
	mov	w0, w2
	bl	leaf
	sxtw	x0, w0
	ldr	x1, [sp, 80]
	add	x0, x1, x0
	str	x0, [sp, 80]
	ldr	w0, [sp, 76]
	add	w0, w0, 1
	str	w0, [sp, 76]
.L4:
	ldrsw	x0, [sp, 76]
	ldr	x1, [sp, 56]
	cmp	x1, x0
	bgt	.L5
	ldr	x1, [sp, 120]
	ldr	x0, [sp, 112]
	eor	x1, x1, x0
	ldr	x0, [sp, 104]
	eor	x1, x1, x0
	ldr	x0, [sp, 96]
	eor	x1, x1, x0
	ldr	x0, [sp, 88]
	eor	x1, x1, x0
	ldr	x0, [sp, 80]
	eor	x0, x1, x0
	ldp	x29, x30, [sp], 128
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE7:
	.size	many_saved, .-many_saved
	.align	2
	.global	use_alloca
	.type	use_alloca, %function
use_alloca:
.LFB8:
	.cfi_startproc
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	.cfi_def_cfa_register 29
	str	w0, [x29, 28]
	ldr	w0, [x29, 28]
	add	w0, w0, 1
	sxtw	x0, w0
	add	x0, x0, 15
	lsr	x0, x0, 4
	lsl	x0, x0, 4
	sub	sp, sp, x0
	mov	x0, sp
	add	x0, x0, 15
	lsr	x0, x0, 4
	lsl	x0, x0, 4
	str	x0, [x29, 40]
	ldrsw	x0, [x29, 28]
	mov	x2, x0
	mov	w1, 97
	ldr	x0, [x29, 40]
	bl	memset
	ldrsw	x0, [x29, 28]
	ldr	x1, [x29, 40]
	add	x0, x1, x0
	strb	wzr, [x0]
	ldr	w0, [x29, 28]
	lsr	w1, w0, 31
	add	w0, w1, w0
	asr	w0, w0, 1
	sxtw	x0, w0
	ldr	x1, [x29, 40]
	add	x0, x1, x0
	ldrb	w0, [x0]
	mov	w1, w0
	adrp	x0, sink
	add	x0, x0, :lo12:sink
	str	w1, [x0]
	ldr	x0, [x29, 40]
	bl	strlen
	mov	sp, x29
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE8:
	.size	use_alloca, .-use_alloca
	.align	2
	.global	use_vla
	.type	use_vla, %function
use_vla:
.LFB9:
	.cfi_startproc
	stp	x29, x30, [sp, -80]!
	.cfi_def_cfa_offset 80
	.cfi_offset 29, -80
	.cfi_offset 30, -72
	mov	x29, sp
	.cfi_def_cfa_register 29
	str	x19, [sp, 16]
	.cfi_offset 19, -64
	str	w0, [x29, 44]
	mov	x0, sp
	mov	x19, x0
	ldr	w0, [x29, 44]
	sxtw	x1, w0
	sub	x1, x1, #1
	str	x1, [x29, 56]
	sxtw	x1, w0
	mov	x8, x1
	mov	x9, 0
	lsr	x1, x8, 59
	lsl	x5, x9, 5
	orr	x5, x1, x5
	lsl	x4, x8, 5
	sxtw	x1, w0
	mov	x6, x1
	mov	x7, 0
	lsr	x1, x6, 59
	lsl	x3, x7, 5
	orr	x3, x1, x3
	lsl	x2, x6, 5
	sxtw	x0, w0
	lsl	x0, x0, 2
	add	x0, x0, 15
	lsr	x0, x0, 4
	lsl	x0, x0, 4
	sub	sp, sp, x0
	mov	x0, sp
	add	x0, x0, 3
	lsr	x0, x0, 2
	lsl	x0, x0, 2
	str	x0, [x29, 48]
	str	wzr, [x29, 76]
	b	.L10
.L11:
	ldr	w1, [x29, 44]
	ldr	w0, [x29, 76]
	bl	leaf
	mov	w2, w0
	ldr	x0, [x29, 48]
	ldrsw	x1, [x29, 76]
	str	w2, [x0, x1, lsl 2]
	ldr	w0, [x29, 76]
	add	w0, w0, 1
	str	w0, [x29, 76]
.L10:
	ldr	w1, [x29, 76]
	ldr	w0, [x29, 44]
	cmp	w1, w0
	blt	.L11
	str	wzr, [x29, 72]
	str	wzr, [x29, 68]
	b	.L12
.L13:
	ldr	x0, [x29, 48]
	ldrsw	x1, [x29, 68]
	ldr	w0, [x0, x1, lsl 2]
	ldr	w1, [x29, 72]
	add	w0, w1, w0
	str	w0, [x29, 72]
	ldr	w0, [x29, 68]
	add	w0, w0, 1
	str	w0, [x29, 68]
.L12:
	ldr	w1, [x29, 68]
	ldr	w0, [x29, 44]
	cmp	w1, w0
	blt	.L13
	ldr	w0, [x29, 72]
	mov	sp, x19
	mov	sp, x29
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 80
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE9:
	.size	use_vla, .-use_vla
	.align	2
	.global	aligned_local
	.type	aligned_local, %function
aligned_local:
.LFB10:
	.cfi_startproc
	stp	x29, x30, [sp, -256]!
	.cfi_def_cfa_offset 256
	.cfi_offset 29, -256
	.cfi_offset 30, -248
	mov	x29, sp
	.cfi_def_cfa_register 29
	stp	x19, x20, [sp, 16]
	stp	x21, x22, [sp, 32]
	stp	x23, x24, [sp, 48]
	stp	x25, x26, [sp, 64]
	stp	x27, x28, [sp, 80]
	.cfi_offset 19, -240
	.cfi_offset 20, -232
	.cfi_offset 21, -224
	.cfi_offset 22, -216
	.cfi_offset 23, -208
	.cfi_offset 24, -200
	.cfi_offset 25, -192
	.cfi_offset 26, -184
	.cfi_offset 27, -176
	.cfi_offset 28, -168
	str	w0, [x29, 108]
	add	x0, x29, 256
	sub	x0, x0, #144
	add	x0, x0, 63
	lsr	x0, x0, 6
	lsl	x19, x0, 6
	mov	x0, sp
	mov	x28, x0
	str	wzr, [x29, 252]
	b	.L16
.L17:
	ldr	w1, [x29, 108]
	ldr	w0, [x29, 252]
	bl	leaf
	mov	w1, w0
	ldrsw	x0, [x29, 252]
	str	w1, [x19, x0, lsl 2]
	ldr	w0, [x29, 252]
	add	w0, w0, 1
	str	w0, [x29, 252]
.L16:
	ldr	w0, [x29, 252]
	cmp	w0, 15
	ble	.L17
	ldr	w0, [x29, 108]
	sxtw	x1, w0
	sub	x1, x1, #1
	str	x1, [x29, 240]
	sxtw	x1, w0
	mov	x26, x1
	mov	x27, 0
	lsr	x1, x26, 59
	lsl	x23, x27, 5
	orr	x23, x1, x23
	lsl	x22, x26, 5
	sxtw	x1, w0
	mov	x24, x1
	mov	x25, 0
	lsr	x1, x24, 59
	lsl	x21, x25, 5
	orr	x21, x1, x21
	lsl	x20, x24, 5
	sxtw	x0, w0
	lsl	x0, x0, 2
	add	x0, x0, 15
	lsr	x0, x0, 4
	lsl	x0, x0, 4
	sub	sp, sp, x0
	mov	x0, sp
	add	x0, x0, 3
	lsr	x0, x0, 2
	lsl	x0, x0, 2
	str	x0, [x29, 232]
	str	wzr, [x29, 248]
	b	.L18
.L19:
	ldr	w0, [x29, 248]
	negs	w1, w0
	and	w0, w0, 15
	and	w1, w1, 15
	csneg	w0, w0, w1, mi
	sxtw	x0, w0
	ldr	w2, [x19, x0, lsl 2]
	ldr	x0, [x29, 232]
	ldrsw	x1, [x29, 248]
	str	w2, [x0, x1, lsl 2]
	ldr	w0, [x29, 248]
	add	w0, w0, 1
	str	w0, [x29, 248]
.L18:
	ldr	w1, [x29, 248]
	ldr	w0, [x29, 108]
	cmp	w1, w0
	blt	.L19
	ldr	w0, [x29, 108]
	sub	w1, w0, #1
	ldr	x0, [x29, 232]
	sxtw	x1, w1
	ldr	w1, [x0, x1, lsl 2]
	ldr	w0, [x19, 12]
	add	w0, w1, w0
	mov	sp, x28
	mov	sp, x29
	ldp	x19, x20, [sp, 16]
	ldp	x21, x22, [sp, 32]
	ldp	x23, x24, [sp, 48]
	ldp	x25, x26, [sp, 64]
	ldp	x27, x28, [sp, 80]
	ldp	x29, x30, [sp], 256
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 27
	.cfi_restore 28
	.cfi_restore 25
	.cfi_restore 26
	.cfi_restore 23
	.cfi_restore 24
	.cfi_restore 21
	.cfi_restore 22
	.cfi_restore 19
	.cfi_restore 20
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
.LFE10:
	.size	aligned_local, .-aligned_local
	.section	.rodata
	.align	3
.LC0:
	.string	"%s\n"
	.text
	.align	2
	.global	die
	.type	die, %function
die:
.LFB11:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x0, [sp, 24]
	adrp	x0, :got:stderr
	ldr	x0, [x0, :got_lo12:stderr]
	ldr	x3, [x0]
	ldr	x2, [sp, 24]
	adrp	x0, .LC0
	add	x1, x0, :lo12:.LC0
	mov	x0, x3
	bl	fprintf
	mov	w0, 2
	bl	exit
	.cfi_endproc
.LFE11:
	.size	die, .-die
	.section	.rodata
	.align	3
.LC1:
	.string	"negative"
	.text
	.align	2
	.global	checked
	.type	checked, %function
checked:
.LFB12:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	w0, [sp, 28]
	ldr	w0, [sp, 28]
	cmp	w0, 0
	bge	.L23
	adrp	x0, .LC1
	add	x0, x0, :lo12:.LC1
	bl	die
.L23:
	ldr	w0, [sp, 28]
	cmp	w0, 1000
	ble	.L24
	bl	abort
.L24:
	ldr	w1, [sp, 28]
	ldr	w0, [sp, 28]
	bl	leaf
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE12:
	.size	checked, .-checked
	.align	2
	.global	fib
	.type	fib, %function
fib:
.LFB13:
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
	ble	.L27
	ldr	x0, [sp, 40]
	sub	x0, x0, #1
	bl	fib
	mov	x19, x0
	ldr	x0, [sp, 40]
	sub	x0, x0, #2
	bl	fib
	add	x0, x19, x0
	b	.L29
.L27:
	ldr	x0, [sp, 40]
.L29:
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE13:
	.size	fib, .-fib
	.align	2
	.global	sum
	.type	sum, %function
sum:
.LFB14:
	.cfi_startproc
	sub	sp, sp, #256
	.cfi_def_cfa_offset 256
	str	w0, [sp, 12]
	str	x1, [sp, 200]
	str	x2, [sp, 208]
	str	x3, [sp, 216]
	str	x4, [sp, 224]
	str	x5, [sp, 232]
	str	x6, [sp, 240]
	str	x7, [sp, 248]
	str	q0, [sp, 64]
	str	q1, [sp, 80]
	str	q2, [sp, 96]
	str	q3, [sp, 112]
	str	q4, [sp, 128]
	str	q5, [sp, 144]
	str	q6, [sp, 160]
	str	q7, [sp, 176]
	str	wzr, [sp, 60]
	add	x0, sp, 256
	str	x0, [sp, 24]
	add	x0, sp, 256
	str	x0, [sp, 32]
	add	x0, sp, 192
	str	x0, [sp, 40]
	mov	w0, -56
	str	w0, [sp, 48]
	mov	w0, -128
	str	w0, [sp, 52]
	str	wzr, [sp, 56]
	b	.L31
.L36:
	ldr	w1, [sp, 48]
	ldr	x0, [sp, 24]
	cmp	w1, 0
	blt	.L32
	add	x1, x0, 11
	and	x1, x1, -8
	str	x1, [sp, 24]
	b	.L33
.L32:
	add	w2, w1, 8
	str	w2, [sp, 48]
	ldr	w2, [sp, 48]
	cmp	w2, 0
	ble	.L34
	add	x1, x0, 11
	and	x1, x1, -8
	str	x1, [sp, 24]
	b	.L33
.L34:
	ldr	x2, [sp, 32]
	sxtw	x0, w1
	add	x0, x2, x0
.L33:
	ldr	w0, [x0]
	ldr	w1, [sp, 60]
	add	w0, w1, w0
	str	w0, [sp, 60]
	ldr	w0, [sp, 56]
	add	w0, w0, 1
	str	w0, [sp, 56]
.L31:
	ldr	w1, [sp, 56]
	ldr	w0, [sp, 12]
	cmp	w1, w0
	blt	.L36
	ldr	w0, [sp, 60]
	add	sp, sp, 256
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE14:
	.size	sum, .-sum
	.align	2
	.global	tail
	.type	tail, %function
tail:
.LFB15:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	w0, [sp, 28]
	ldr	w0, [sp, 28]
	add	w0, w0, 1
	bl	checked
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE15:
	.size	tail, .-tail
	.section	.rodata
	.align	3
.LC2:
	.string	"cold %d\n"
	.text
	.align	2
	.type	cold_path, %function
cold_path:
.LFB16:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	w0, [sp, 28]
	ldr	w1, [sp, 28]
	adrp	x0, .LC2
	add	x0, x0, :lo12:.LC2
	bl	printf
	nop
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE16:
	.size	cold_path, .-cold_path
	.align	2
	.global	maybe_cold
	.type	maybe_cold, %function
maybe_cold:
.LFB17:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	w0, [sp, 28]
	ldr	w1, [sp, 28]
	mov	w0, 12345
	cmp	w1, w0
	cset	w0, eq
	and	w0, w0, 255
	and	x0, x0, 255
	cmp	x0, 0
	beq	.L42
	ldr	w0, [sp, 28]
	bl	cold_path
.L42:
	mov	w1, 2
	ldr	w0, [sp, 28]
	bl	leaf
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE17:
	.size	maybe_cold, .-maybe_cold
	.section	.rodata
	.align	3
.LC3:
	.string	"%ld\n"
	.text
	.align	2
	.global	main
	.type	main, %function
main:
.LFB18:
	.cfi_startproc
	stp	x29, x30, [sp, -64]!
	.cfi_def_cfa_offset 64
	.cfi_offset 29, -64
	.cfi_offset 30, -56
	mov	x29, sp
	str	x19, [sp, 16]
	.cfi_offset 19, -48
	str	w0, [sp, 44]
	str	x1, [sp, 32]
	ldrsw	x0, [sp, 44]
	mov	x5, 6
	mov	x4, 5
	mov	x3, 4
	mov	x2, 3
	mov	x1, 2
	bl	many_saved
	str	x0, [sp, 56]
	ldr	w0, [sp, 44]
	add	w0, w0, 10
	bl	use_alloca
	mov	w19, w0
	ldr	w0, [sp, 44]
	add	w0, w0, 5
	bl	use_vla
	add	w19, w19, w0
	ldr	w0, [sp, 44]
	add	w0, w0, 3
	bl	aligned_local
	add	w0, w19, w0
	sxtw	x0, w0
	ldr	x1, [sp, 56]
	add	x0, x1, x0
	str	x0, [sp, 56]
	ldr	w0, [sp, 44]
	bl	checked
	sxtw	x19, w0
	mov	x0, 10
	bl	fib
	add	x19, x19, x0
	mov	w3, 3
	mov	w2, 2
	mov	w1, 1
	mov	w0, 3
	bl	sum
	sxtw	x0, w0
	add	x19, x19, x0
	ldr	w0, [sp, 44]
	bl	tail
	sxtw	x0, w0
	add	x19, x19, x0
	ldr	w0, [sp, 44]
	bl	maybe_cold
	sxtw	x0, w0
	add	x0, x19, x0
	ldr	x1, [sp, 56]
	add	x0, x1, x0
	str	x0, [sp, 56]
	ldr	x1, [sp, 56]
	adrp	x0, .LC3
	add	x0, x0, :lo12:.LC3
	bl	printf
	mov	w0, 0
	ldr	x19, [sp, 16]
	ldp	x29, x30, [sp], 64
	.cfi_restore 30
	.cfi_restore 29
	.cfi_restore 19
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
.LFE18:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
