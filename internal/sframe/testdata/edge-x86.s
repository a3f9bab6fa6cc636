# Hand-written CFI edge cases for the SFrame translator (x86-64): what gcc
# rarely emits but GNU as --gsframe has rules for. Assembled by the
# reference as with and without --gsframe (see Makefile).
	.text
	.globl	ra_undefined
	.type	ra_undefined, @function
ra_undefined:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	nop
	.cfi_undefined rip
	nop
	popq	%rbp
	ret
	.cfi_endproc
	.size	ra_undefined, .-ra_undefined

	.globl	ra_in_register
	.type	ra_in_register, @function
ra_in_register:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	movq	8(%rbp), %rbx
	.cfi_register rip, rbx
	nop
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
	.size	ra_in_register, .-ra_in_register

	.globl	signal_tramp
	.type	signal_tramp, @function
signal_tramp:
	.cfi_startproc
	.cfi_signal_frame
	nop
	.cfi_escape 0x0f, 0x03, 0x77, 0xa0, 0x01
	.cfi_escape 0x10, 0x10, 0x02, 0x77, 0x28
	nop
	ret
	.cfi_endproc
	.size	signal_tramp, .-signal_tramp

	.globl	signal_ok
	.type	signal_ok, @function
signal_ok:
	.cfi_startproc
	.cfi_signal_frame
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
	addq	$24, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	signal_ok, .-signal_ok

	.globl	drap
	.type	drap, @function
drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa 10, 0
	andq	$-32, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x78,0x6
	nop
	movq	-8(%rbp), %r10
	.cfi_def_cfa 10, 0
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
	.size	drap, .-drap

	.globl	states
	.type	states, @function
states:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	.cfi_offset 3, -24
	testq	%rdi, %rdi
	je	1f
	.cfi_remember_state
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
1:
	.cfi_restore_state
	.cfi_escape 0x2e, 0x10
	subq	$16, %rsp
	.cfi_adjust_cfa_offset 16
	call	leafy
	.cfi_escape 0x2e, 0
	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	states, .-states

	.globl	fp_args
	.type	fp_args, @function
fp_args:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	.cfi_escape 0x2e, 0x20
	subq	$32, %rsp
	call	leafy
	.cfi_val_offset 3, -24
	.cfi_same_value rbp
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
	.size	fp_args, .-fp_args

	.globl	big_frame
	.type	big_frame, @function
big_frame:
	.cfi_startproc
	subq	$200000, %rsp
	.cfi_def_cfa_offset 200008
	pushq	%rbp
	.cfi_def_cfa_offset 200016
	.cfi_offset 6, -200016
	popq	%rbp
	.cfi_def_cfa_offset 200008
	.cfi_restore 6
	addq	$200000, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_frame, .-big_frame

	.globl	val_sp
	.type	val_sp, @function
val_sp:
	.cfi_startproc
	nop
	.cfi_val_offset 7, 16
	ret
	.cfi_endproc
	.size	val_sp, .-val_sp

	.globl	leafy
	.type	leafy, @function
leafy:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	leafy, .-leafy

	.section .text.big,"ax",@progbits
	.globl	long_func
	.type	long_func, @function
long_func:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	.fill	300, 1, 0x90
	popq	%rbp
	.cfi_def_cfa_offset 8
	.fill	70000, 1, 0x90
	ret
	.cfi_endproc
	.size	long_func, .-long_func
	.section .note.GNU-stack,"",@progbits
