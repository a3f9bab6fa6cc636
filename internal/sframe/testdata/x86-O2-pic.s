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
	pushq	%r15
	.cfi_def_cfa_offset 16
	.cfi_offset 15, -16
	leaq	(%rcx,%rcx,4), %rax
	pushq	%r14
	.cfi_def_cfa_offset 24
	.cfi_offset 14, -24
	leaq	(%rcx,%rax,2), %r15
	leaq	(%r8,%r8,2), %rax
	pushq	%r13
	.cfi_def_cfa_offset 32
	.cfi_offset 13, -32
	leaq	(%r8,%rax,4), %r14
	movq	%r9, %rax
	pushq	%r12
	.cfi_def_cfa_offset 40
	.cfi_offset 12, -40
	salq	$4, %rax
	leaq	0(,%rdx,8), %r12
	pushq	%rbp
	.cfi_def_cfa_offset 48
	.cfi_offset 6, -48
	subq	%rdx, %r12
	leaq	(%rsi,%rsi,4), %rbp
	leaq	(%rax,%r9), %r13
	pushq	%rbx
	.cfi_def_cfa_offset 56
	.cfi_offset 3, -56
	leaq	(%rdi,%rdi,2), %rbx
	subq	$40, %rsp
	.cfi_def_cfa_offset 96
	movq	%rdi, 24(%rsp)
	testq	%rdi, %rdi
	jle	.L5
	xorl	%edx, %edx
	.p2align 4,,10
	.p2align 3
.L6:
	movl	%r12d, %esi
	movl	%ebp, %edi
	movq	%rdx, 16(%rsp)
	movl	%r12d, 8(%rsp)
	call	leaf@PLT
	movl	8(%rsp), %edi
	movl	%r15d, %esi
	movl	%r15d, 12(%rsp)
	cltq
	addq	%rax, %rbx
	call	leaf@PLT
	movl	12(%rsp), %edi
	movl	%r14d, %esi
	movl	%r14d, 8(%rsp)
	cltq
	addq	%rax, %rbp
	call	leaf@PLT
	movl	8(%rsp), %edi
	movl	%r13d, %esi
	movl	%r13d, 12(%rsp)
	cltq
	addq	%rax, %r12
	call	leaf@PLT
	movl	12(%rsp), %edi
	movl	%ebx, %esi
	movl	%ebx, 8(%rsp)
	cltq
	addq	%rax, %r15
	call	leaf@PLT
	movl	8(%rsp), %edi
	movl	%ebp, %esi
	cltq
	addq	%rax, %r14
	call	leaf@PLT
	movq	16(%rsp), %rdx
	cltq
	addq	%rax, %r13
	addq	$1, %rdx
	cmpq	%rdx, 24(%rsp)
	jne	.L6
.L5:
	movq	%rbx, %rax
	addq	$40, %rsp
	.cfi_def_cfa_offset 56
	xorq	%rbp, %rax
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%rbp
	.cfi_def_cfa_offset 40
	xorq	%r12, %rax
	popq	%r12
	.cfi_def_cfa_offset 32
	xorq	%r15, %rax
	xorq	%r14, %rax
	xorq	%r13, %rax
	popq	%r13
	.cfi_def_cfa_offset 24
	popq	%r14
	.cfi_def_cfa_offset 16
	popq	%r15
	.cfi_def_cfa_offset 8
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
	movsbl	(%rdi,%rax), %edx
	movq	sink@GOTPCREL(%rip), %rax
	movl	%edx, (%rax)
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
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r15
	.cfi_offset 15, -24
	movslq	%edi, %r15
	pushq	%r14
	.cfi_offset 14, -32
	leaq	0(,%r15,4), %r14
	pushq	%r13
	leaq	15(%r14), %rax
	pushq	%r12
	andq	$-16, %rax
	pushq	%rbx
	subq	$8, %rsp
	.cfi_offset 13, -40
	.cfi_offset 12, -48
	.cfi_offset 3, -56
	subq	%rax, %rsp
	testl	%r15d, %r15d
	jle	.L15
	movq	%r15, %r13
	movq	%rsp, %rbx
	xorl	%r12d, %r12d
	.p2align 4,,10
	.p2align 3
.L13:
	movl	%r12d, %edi
	movl	%r13d, %esi
	call	leaf@PLT
	movl	%eax, (%rbx,%r12,4)
	addq	$1, %r12
	cmpq	%r12, %r15
	jne	.L13
	movq	%rbx, %rax
	addq	%rbx, %r14
	xorl	%edx, %edx
	.p2align 4,,10
	.p2align 3
.L14:
	addl	(%rax), %edx
	addq	$4, %rax
	cmpq	%r14, %rax
	jne	.L14
.L11:
	leaq	-40(%rbp), %rsp
	movl	%edx, %eax
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.L15:
	.cfi_restore_state
	xorl	%edx, %edx
	jmp	.L11
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
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	pushq	%r13
	pushq	%r12
	.cfi_escape 0x10,0xd,0x2,0x76,0x78
	.cfi_escape 0x10,0xc,0x2,0x76,0x70
	leaq	-112(%rbp), %r13
	movl	%edi, %r12d
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x68,0x6
	pushq	%rbx
	.cfi_escape 0x10,0x3,0x2,0x76,0x60
	xorl	%ebx, %ebx
	subq	$80, %rsp
	.p2align 4,,10
	.p2align 3
.L20:
	movl	%ebx, %edi
	movl	%r12d, %esi
	call	leaf@PLT
	movl	%eax, 0(%r13,%rbx,4)
	addq	$1, %rbx
	cmpq	$16, %rbx
	jne	.L20
	movslq	%r12d, %rsi
	leaq	15(,%rsi,4), %rax
	andq	$-16, %rax
	subq	%rax, %rsp
	movq	%rsp, %rcx
	testl	%r12d, %r12d
	jle	.L21
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L22:
	movq	%rax, %rdx
	andl	$15, %edx
	movl	-112(%rbp,%rdx,4), %edx
	movl	%edx, (%rcx,%rax,4)
	addq	$1, %rax
	cmpq	%rax, %rsi
	jne	.L22
.L21:
	subl	$1, %r12d
	movl	-100(%rbp), %eax
	movslq	%r12d, %r12
	addl	(%rcx,%r12,4), %eax
	leaq	-32(%rbp), %rsp
	popq	%rbx
	popq	%r10
	.cfi_def_cfa 10, 0
	popq	%r12
	popq	%r13
	popq	%rbp
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
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	movq	stderr@GOTPCREL(%rip), %rax
	movq	%rdi, %rdx
	leaq	.LC1(%rip), %rsi
	movq	(%rax), %rdi
	xorl	%eax, %eax
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
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	testl	%edi, %edi
	js	.L33
	cmpl	$1000, %edi
	jg	.L31
	movl	%edi, %esi
	addq	$8, %rsp
	.cfi_remember_state
	.cfi_def_cfa_offset 8
	jmp	leaf@PLT
.L33:
	.cfi_restore_state
	leaq	.LC2(%rip), %rdi
	call	die@PLT
	.cfi_endproc
	.section	.text.unlikely
	.cfi_startproc
	.type	checked.cold, @function
checked.cold:
.LFSB28:
.L31:
	.cfi_def_cfa_offset 16
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
	pushq	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset 12, -16
	movq	%rdi, %r12
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset 6, -24
	xorl	%ebp, %ebp
	pushq	%rbx
	.cfi_def_cfa_offset 32
	.cfi_offset 3, -32
	movq	%rdi, %rbx
.L36:
	leaq	-1(%rbx), %rdi
	subq	$2, %rbx
	call	fib.localalias
	addq	%rax, %rbp
	cmpq	$1, %rbx
	jg	.L36
	andl	$1, %r12d
	popq	%rbx
	.cfi_def_cfa_offset 24
	leaq	(%r12,%rbp), %rax
	popq	%rbp
	.cfi_def_cfa_offset 16
	popq	%r12
	.cfi_def_cfa_offset 8
	ret
	.p2align 4,,10
	.p2align 3
.L39:
	.cfi_restore 3
	.cfi_restore 6
	.cfi_restore 12
	movq	%rdi, %rax
	ret
	.cfi_endproc
.LFE29:
	.size	fib, .-fib
	.set	fib.localalias,fib
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB30:
	.cfi_startproc
	leaq	8(%rsp), %rax
	movq	%rsi, -40(%rsp)
	movq	%rax, -64(%rsp)
	leaq	-48(%rsp), %rax
	movq	%rdx, -32(%rsp)
	movq	%rcx, -24(%rsp)
	movq	%r8, -16(%rsp)
	movq	%r9, -8(%rsp)
	movl	$8, -72(%rsp)
	movq	%rax, -56(%rsp)
	testl	%edi, %edi
	jle	.L49
	movq	%rax, %r9
	movl	$8, %ecx
	leaq	8(%rsp), %r8
	xorl	%eax, %eax
	xorl	%esi, %esi
	jmp	.L48
	.p2align 4,,10
	.p2align 3
.L51:
	movl	%ecx, %edx
	addl	$1, %eax
	addl	$8, %ecx
	addq	%r9, %rdx
	addl	(%rdx), %esi
	cmpl	%eax, %edi
	je	.L44
.L48:
	cmpl	$47, %ecx
	jbe	.L51
	movq	%r8, %rdx
	addl	$1, %eax
	addq	$8, %r8
	addl	(%rdx), %esi
	cmpl	%eax, %edi
	jne	.L48
.L44:
	movl	%esi, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L49:
	xorl	%esi, %esi
	movl	%esi, %eax
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
	jmp	checked@PLT
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
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movl	%edi, %ebx
	cmpl	$12345, %edi
	je	.L55
.L54:
	movl	%ebx, %edi
	movl	$2, %esi
	popq	%rbx
	.cfi_def_cfa_offset 8
	jmp	leaf@PLT
	.cfi_endproc
	.section	.text.unlikely
	.cfi_startproc
	.type	maybe_cold.cold, @function
maybe_cold.cold:
.LFSB33:
.L55:
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movl	$12345, %edi
	call	cold_path
	jmp	.L54
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
	pushq	%r13
	.cfi_def_cfa_offset 16
	.cfi_offset 13, -16
	movslq	%edi, %rdi
	movl	$6, %r9d
	movl	$4, %ecx
	pushq	%r12
	.cfi_def_cfa_offset 24
	.cfi_offset 12, -24
	movl	$5, %r8d
	movl	$3, %edx
	movl	$2, %esi
	pushq	%rbp
	.cfi_def_cfa_offset 32
	.cfi_offset 6, -32
	movq	%rdi, %rbp
	pushq	%rbx
	.cfi_def_cfa_offset 40
	.cfi_offset 3, -40
	subq	$8, %rsp
	.cfi_def_cfa_offset 48
	call	many_saved@PLT
	leal	10(%rbp), %edi
	movq	%rax, %r12
	call	use_alloca@PLT
	leal	5(%rbp), %edi
	movl	%eax, %ebx
	call	use_vla@PLT
	leal	3(%rbp), %edi
	addl	%eax, %ebx
	call	aligned_local@PLT
	movl	%ebp, %edi
	addl	%eax, %ebx
	call	checked@PLT
	movslq	%ebx, %rbx
	movl	$10, %edi
	addq	%r12, %rbx
	movslq	%eax, %r12
	call	fib@PLT
	movl	$3, %ecx
	movl	$2, %edx
	movl	$1, %esi
	addq	%rax, %r12
	movl	$3, %edi
	xorl	%eax, %eax
	call	sum@PLT
	movl	%ebp, %edi
	movslq	%eax, %r13
	call	tail@PLT
	movl	%ebp, %edi
	addq	%r12, %r13
	movslq	%eax, %r12
	call	maybe_cold@PLT
	addq	%r13, %r12
	leaq	.LC5(%rip), %rdi
	movslq	%eax, %rsi
	xorl	%eax, %eax
	addq	%r12, %rsi
	addq	%rbx, %rsi
	call	printf@PLT
	addq	$8, %rsp
	.cfi_def_cfa_offset 40
	xorl	%eax, %eax
	popq	%rbx
	.cfi_def_cfa_offset 32
	popq	%rbp
	.cfi_def_cfa_offset 24
	popq	%r12
	.cfi_def_cfa_offset 16
	popq	%r13
	.cfi_def_cfa_offset 8
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
