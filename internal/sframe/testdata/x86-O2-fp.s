	.file	"frames.c"
	.text
	.section	.rodata.str1.1,"aMS",@progbits,1
.LC0:
	.string	"cold %d\n"
	.section	.text.unlikely,"ax",@progbits
	.type	cold_path, @function
cold_path:
.LFB32:
	.cfi_startproc
	movl	%edi, %esi
	xorl	%eax, %eax
	leaq	.LC0(%rip), %rdi
	jmp	printf@PLT
	.cfi_endproc
.LFE32:
	.size	cold_path, .-cold_path
	.text
	.p2align 4
	.globl	leaf
	.type	leaf, @function
leaf:
.LFB22:
	.cfi_startproc
	imull	%esi, %edi
	leal	3(%rdi), %eax
	ret
	.cfi_endproc
.LFE22:
	.size	leaf, .-leaf
	.p2align 4
	.globl	many_saved
	.type	many_saved, @function
many_saved:
.LFB23:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rcx, %rax
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r14
	pushq	%r13
	pushq	%r12
	.cfi_offset 14, -24
	.cfi_offset 13, -32
	.cfi_offset 12, -40
	movq	%rdi, %r12
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	leaq	0(,%rsi,8), %r10
	pushq	%rbx
	.cfi_offset 3, -48
	leaq	(%r12,%r12,2), %rdx
	subq	%rsi, %r10
	leaq	(%rax,%rax,4), %rsi
	leaq	(%rdi,%rdi,4), %rcx
	leaq	(%rax,%rsi,2), %rbx
	leaq	(%r8,%r8,2), %rax
	leaq	(%r8,%rax,4), %r11
	movq	%r9, %rax
	salq	$4, %rax
	leaq	(%rax,%r9), %r8
	testq	%r12, %r12
	jle	.L5
	xorl	%r9d, %r9d
	.p2align 4,,10
	.p2align 3
.L6:
	movl	%r10d, %esi
	movl	%ecx, %edi
	addl	$1, %r9d
	call	leaf
	movl	%ebx, %esi
	movl	%r10d, %edi
	cltq
	addq	%rax, %rdx
	call	leaf
	movl	%r11d, %esi
	movl	%ebx, %edi
	cltq
	addq	%rax, %rcx
	call	leaf
	movl	%r8d, %esi
	movl	%r11d, %edi
	cltq
	addq	%rax, %r10
	call	leaf
	movl	%r8d, %edi
	movl	%edx, %esi
	cltq
	addq	%rax, %rbx
	call	leaf
	movl	%ecx, %esi
	movl	%edx, %edi
	cltq
	addq	%rax, %r11
	call	leaf
	cltq
	addq	%rax, %r8
	cmpl	%r12d, %r9d
	jne	.L6
.L5:
	movq	%rdx, %rax
	xorq	%rcx, %rax
	xorq	%r10, %rax
	xorq	%rbx, %rax
	popq	%rbx
	popq	%r12
	xorq	%r11, %rax
	popq	%r13
	popq	%r14
	xorq	%r8, %rax
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE23:
	.size	many_saved, .-many_saved
	.p2align 4
	.globl	use_alloca
	.type	use_alloca, @function
use_alloca:
.LFB24:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movl	$97, %esi
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r12
	.cfi_offset 12, -24
	movslq	%edi, %r12
	leal	1(%r12), %eax
	pushq	%rbx
	.cfi_offset 3, -32
	movq	%r12, %rdx
	cltq
	addq	$23, %rax
	andq	$-16, %rax
	subq	%rax, %rsp
	leaq	15(%rsp), %rdi
	andq	$-16, %rdi
	call	memset@PLT
	movb	$0, (%rax,%r12)
	movq	%rax, %rdi
	movl	%r12d, %eax
	shrl	$31, %eax
	addl	%r12d, %eax
	sarl	%eax
	cltq
	movsbl	(%rdi,%rax), %eax
	movl	%eax, sink(%rip)
	call	strlen@PLT
	leaq	-16(%rbp), %rsp
	popq	%rbx
	popq	%r12
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE24:
	.size	use_alloca, .-use_alloca
	.p2align 4
	.globl	use_vla
	.type	use_vla, @function
use_vla:
.LFB25:
	.cfi_startproc
	movslq	%edi, %r9
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	leaq	0(,%r9,4), %r8
	leaq	15(%r8), %rax
	andq	$-16, %rax
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	%rax, %rsp
	testl	%r9d, %r9d
	jle	.L15
	movq	%r9, %rsi
	movq	%rsp, %rdx
	xorl	%ecx, %ecx
	.p2align 4,,10
	.p2align 3
.L13:
	movl	%ecx, %edi
	call	leaf
	movl	%eax, (%rdx,%rcx,4)
	addq	$1, %rcx
	cmpq	%rcx, %r9
	jne	.L13
	movq	%rdx, %rax
	leaq	(%rdx,%r8), %rcx
	xorl	%edx, %edx
	.p2align 4,,10
	.p2align 3
.L14:
	addl	(%rax), %edx
	addq	$4, %rax
	cmpq	%rcx, %rax
	jne	.L14
	leave
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	movl	%edx, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L15:
	.cfi_restore_state
	leave
	.cfi_def_cfa 7, 8
	xorl	%edx, %edx
	movl	%edx, %eax
	ret
	.cfi_endproc
.LFE25:
	.size	use_vla, .-use_vla
	.p2align 4
	.globl	aligned_local
	.type	aligned_local, @function
aligned_local:
.LFB26:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa 10, 0
	andq	$-64, %rsp
	movl	%edi, %ecx
	xorl	%edx, %edx
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x78,0x6
	leaq	-112(%rbp), %r8
	subq	$104, %rsp
	.p2align 4,,10
	.p2align 3
.L20:
	movl	%edx, %edi
	movl	%ecx, %esi
	call	leaf
	movl	%eax, (%r8,%rdx,4)
	addq	$1, %rdx
	cmpq	$16, %rdx
	jne	.L20
	movslq	%ecx, %rdi
	leaq	15(,%rdi,4), %rax
	andq	$-16, %rax
	subq	%rax, %rsp
	movq	%rsp, %rsi
	testl	%ecx, %ecx
	jle	.L21
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L22:
	movq	%rax, %rdx
	andl	$15, %edx
	movl	-112(%rbp,%rdx,4), %edx
	movl	%edx, (%rsi,%rax,4)
	addq	$1, %rax
	cmpq	%rax, %rdi
	jne	.L22
.L21:
	movq	-8(%rbp), %r10
	.cfi_def_cfa 10, 0
	subl	$1, %ecx
	movl	-100(%rbp), %eax
	movslq	%ecx, %rcx
	addl	(%rsi,%rcx,4), %eax
	leave
	leaq	-8(%r10), %rsp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE26:
	.size	aligned_local, .-aligned_local
	.section	.rodata.str1.1
.LC1:
	.string	"%s\n"
	.text
	.p2align 4
	.globl	die
	.type	die, @function
die:
.LFB27:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rdi, %rdx
	movq	stderr(%rip), %rdi
	xorl	%eax, %eax
	leaq	.LC1(%rip), %rsi
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	call	fprintf@PLT
	movl	$2, %edi
	call	exit@PLT
	.cfi_endproc
.LFE27:
	.size	die, .-die
	.section	.rodata.str1.1
.LC2:
	.string	"negative"
	.section	.text.unlikely
.LCOLDB3:
	.text
.LHOTB3:
	.p2align 4
	.globl	checked
	.type	checked, @function
checked:
.LFB28:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	testl	%edi, %edi
	js	.L33
	cmpl	$1000, %edi
	jg	.L31
	movl	%edi, %esi
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	jmp	leaf
.L33:
	.cfi_restore_state
	leaq	.LC2(%rip), %rdi
	call	die
	.cfi_endproc
	.section	.text.unlikely
	.cfi_startproc
	.type	checked.cold, @function
checked.cold:
.LFSB28:
.L31:
	.cfi_def_cfa 6, 16
	.cfi_offset 6, -16
	call	abort@PLT
	.cfi_endproc
.LFE28:
	.text
	.size	checked, .-checked
	.section	.text.unlikely
	.size	checked.cold, .-checked.cold
.LCOLDE3:
	.text
.LHOTE3:
	.p2align 4
	.globl	fib
	.type	fib, @function
fib:
.LFB29:
	.cfi_startproc
	cmpq	$1, %rdi
	jle	.L39
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r13
	.cfi_offset 13, -24
	movq	%rdi, %r13
	pushq	%r12
	.cfi_offset 12, -32
	xorl	%r12d, %r12d
	pushq	%rbx
	.cfi_offset 3, -40
	movq	%rdi, %rbx
	subq	$8, %rsp
.L36:
	leaq	-1(%rbx), %rdi
	subq	$2, %rbx
	call	fib
	addq	%rax, %r12
	cmpq	$1, %rbx
	jg	.L36
	addq	$8, %rsp
	andl	$1, %r13d
	leaq	0(%r13,%r12), %rax
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.L39:
	.cfi_restore 3
	.cfi_restore 6
	.cfi_restore 12
	.cfi_restore 13
	movq	%rdi, %rax
	ret
	.cfi_endproc
.LFE29:
	.size	fib, .-fib
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB30:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	leaq	16(%rbp), %rax
	movq	%rsi, -40(%rbp)
	movq	%rax, -64(%rbp)
	leaq	-48(%rbp), %rax
	movq	%rdx, -32(%rbp)
	movq	%rcx, -24(%rbp)
	movq	%r8, -16(%rbp)
	movq	%r9, -8(%rbp)
	movl	$8, -72(%rbp)
	movq	%rax, -56(%rbp)
	testl	%edi, %edi
	jle	.L49
	movq	%rax, %r9
	movl	$8, %ecx
	leaq	16(%rbp), %r8
	xorl	%eax, %eax
	xorl	%esi, %esi
	jmp	.L48
	.p2align 4,,10
	.p2align 3
.L52:
	movl	%ecx, %edx
	addl	$1, %eax
	addl	$8, %ecx
	addq	%r9, %rdx
	addl	(%rdx), %esi
	cmpl	%eax, %edi
	je	.L44
.L48:
	cmpl	$47, %ecx
	jbe	.L52
	movq	%r8, %rdx
	addl	$1, %eax
	addq	$8, %r8
	addl	(%rdx), %esi
	cmpl	%eax, %edi
	jne	.L48
.L44:
	movl	%esi, %eax
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.L49:
	.cfi_restore_state
	xorl	%esi, %esi
	movl	%esi, %eax
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE30:
	.size	sum, .-sum
	.p2align 4
	.globl	tail
	.type	tail, @function
tail:
.LFB31:
	.cfi_startproc
	addl	$1, %edi
	jmp	checked
	.cfi_endproc
.LFE31:
	.size	tail, .-tail
	.section	.text.unlikely
.LCOLDB4:
	.text
.LHOTB4:
	.p2align 4
	.globl	maybe_cold
	.type	maybe_cold, @function
maybe_cold:
.LFB33:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	.cfi_offset 3, -24
	movl	%edi, %ebx
	subq	$8, %rsp
	cmpl	$12345, %edi
	je	.L56
.L55:
	movl	%ebx, %edi
	movq	-8(%rbp), %rbx
	movl	$2, %esi
	leave
	.cfi_def_cfa 7, 8
	jmp	leaf
	.cfi_endproc
	.section	.text.unlikely
	.cfi_startproc
	.type	maybe_cold.cold, @function
maybe_cold.cold:
.LFSB33:
.L56:
	.cfi_def_cfa 6, 16
	.cfi_offset 3, -24
	.cfi_offset 6, -16
	movl	$12345, %edi
	call	cold_path
	jmp	.L55
	.cfi_endproc
.LFE33:
	.text
	.size	maybe_cold, .-maybe_cold
	.section	.text.unlikely
	.size	maybe_cold.cold, .-maybe_cold.cold
.LCOLDE4:
	.text
.LHOTE4:
	.section	.rodata.str1.1
.LC5:
	.string	"%ld\n"
	.section	.text.startup,"ax",@progbits
	.p2align 4
	.globl	main
	.type	main, @function
main:
.LFB34:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movslq	%edi, %rdi
	movl	$5, %r8d
	movl	$6, %r9d
	movl	$4, %ecx
	movl	$3, %edx
	movl	$2, %esi
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r14
	pushq	%r13
	pushq	%r12
	.cfi_offset 14, -24
	.cfi_offset 13, -32
	.cfi_offset 12, -40
	movq	%rdi, %r12
	pushq	%rbx
	.cfi_offset 3, -48
	call	many_saved
	leal	10(%r12), %edi
	movq	%rax, %r13
	call	use_alloca
	leal	5(%r12), %edi
	movl	%eax, %ebx
	call	use_vla
	leal	3(%r12), %edi
	addl	%eax, %ebx
	call	aligned_local
	movl	%r12d, %edi
	addl	%eax, %ebx
	call	checked
	movl	$10, %edi
	movl	$3, %ecx
	movslq	%ebx, %rbx
	movslq	%eax, %r10
	movl	$2, %edx
	movl	$1, %esi
	addq	%r13, %rbx
	call	fib
	movl	$3, %edi
	addq	%rax, %r10
	xorl	%eax, %eax
	call	sum
	movl	%r12d, %edi
	movslq	%eax, %r14
	addq	%r10, %r14
	call	tail
	movl	%r12d, %edi
	movslq	%eax, %r13
	call	maybe_cold
	addq	%r14, %r13
	leaq	.LC5(%rip), %rdi
	movslq	%eax, %rsi
	xorl	%eax, %eax
	addq	%r13, %rsi
	addq	%rbx, %rsi
	call	printf@PLT
	popq	%rbx
	xorl	%eax, %eax
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE34:
	.size	main, .-main
	.globl	sink
	.bss
	.align 4
	.type	sink, @object
	.size	sink, 4
sink:
	.zero	4
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
