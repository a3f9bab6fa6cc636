	.file	"plt.c"
	.text
	.p2align 4
	.type	dup_arg, @function
dup_arg:
.LFB22:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	.cfi_offset 3, -24
	movq	%rdi, %rbx
	subq	$8, %rsp
	.cfi_def_cfa_offset 32
	call	strlen@PLT
	leaq	1(%rax), %rbp
	movq	%rbp, %rdi
	call	malloc@PLT
	movq	%rax, %rcx
	testq	%rax, %rax
	je	.L1
	movq	%rbp, %rdx
	movq	%rbx, %rsi
	movq	%rax, %rdi
	call	memcpy@PLT
	movq	%rax, %rcx
.L1:
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	movq	%rcx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE22:
	.size	dup_arg, .-dup_arg
	.section	.rodata.str1.1,"aMS",@progbits,1
.LC0:
	.string	"1"
.LC1:
	.string	"%s %d\n"
.LC2:
	.string	"done"
	.section	.text.startup,"ax",@progbits
	.p2align 4
	.globl	main
	.type	main, @function
main:
.LFB23:
	.cfi_startproc
	endbr64
	pushq	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset 12, -16
	movl	%edi, %r12d
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset 6, -24
	movq	%rsi, %rbp
	pushq	%rbx
	.cfi_def_cfa_offset 32
	.cfi_offset 3, -32
	movq	(%rsi), %rdi
	call	dup_arg
	leaq	.LC0(%rip), %rdi
	movq	%rax, %rbx
	cmpl	$1, %r12d
	jle	.L9
	movq	8(%rbp), %rdi
.L9:
	movl	$10, %edx
	xorl	%esi, %esi
	call	strtol@PLT
	movq	%rbx, %rsi
	leaq	.LC1(%rip), %rdi
	movl	%eax, %edx
	xorl	%eax, %eax
	call	printf@PLT
	movq	%rbx, %rdi
	call	*say(%rip)
	leaq	.LC2(%rip), %rdi
	call	puts@PLT
	movq	%rbx, %rdi
	call	free@PLT
	popq	%rbx
	.cfi_def_cfa_offset 24
	xorl	%eax, %eax
	popq	%rbp
	.cfi_def_cfa_offset 16
	popq	%r12
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE23:
	.size	main, .-main
	.globl	say
	.section	.data.rel,"aw"
	.align 8
	.type	say, @object
	.size	say, 8
say:
	.quad	puts
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
	.section	.note.gnu.property,"a"
	.align 8
	.long	1f - 0f
	.long	4f - 1f
	.long	5
0:
	.string	"GNU"
1:
	.align 8
	.long	0xc0000002
	.long	3f - 2f
2:
	.long	0x3
3:
	.align 8
4:
