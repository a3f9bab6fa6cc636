	.file	"frames.c"
	.text
	.globl	sink
	.bss
	.align 4
	.type	sink, @object
	.size	sink, 4
sink:
	.zero	4
	.text
	.globl	leaf
	.type	leaf, @function
leaf:
.LFB6:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	movl	%edi, -4(%rbp)
	movl	%esi, -8(%rbp)
	movl	-4(%rbp), %eax
	imull	-8(%rbp), %eax
	addl	$3, %eax
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE6:
	.size	leaf, .-leaf
	.globl	many_saved
	.type	many_saved, @function
many_saved:
.LFB7:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$112, %rsp
	movq	%rdi, -72(%rbp)
	movq	%rsi, -80(%rbp)
	movq	%rdx, -88(%rbp)
	movq	%rcx, -96(%rbp)
	movq	%r8, -104(%rbp)
	movq	%r9, -112(%rbp)
	movq	-72(%rbp), %rdx
	movq	%rdx, %rax
	addq	%rax, %rax
	addq	%rdx, %rax
	movq	%rax, -8(%rbp)
	movq	-80(%rbp), %rdx
	movq	%rdx, %rax
	salq	$2, %rax
	addq	%rdx, %rax
	movq	%rax, -16(%rbp)
	movq	-88(%rbp), %rdx
	movq	%rdx, %rax
	salq	$3, %rax
	subq	%rdx, %rax
	movq	%rax, -24(%rbp)
	movq	-96(%rbp), %rdx
	movq	%rdx, %rax
	salq	$2, %rax
	addq	%rdx, %rax
	addq	%rax, %rax
	addq	%rdx, %rax
	movq	%rax, -32(%rbp)
	movq	-104(%rbp), %rdx
	movq	%rdx, %rax
	addq	%rax, %rax
	addq	%rdx, %rax
	salq	$2, %rax
	addq	%rdx, %rax
	movq	%rax, -40(%rbp)
	movq	-112(%rbp), %rdx
	movq	%rdx, %rax
	salq	$4, %rax
	addq	%rdx, %rax
	movq	%rax, -48(%rbp)
	movl	$0, -52(%rbp)
	jmp	.L4
.L5:
	movq	-24(%rbp), %rax
	movl	%eax, %edx
	movq	-16(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -8(%rbp)
	movq	-32(%rbp), %rax
	movl	%eax, %edx
	movq	-24(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -16(%rbp)
	movq	-40(%rbp), %rax
	movl	%eax, %edx
	movq	-32(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -24(%rbp)
	movq	-48(%rbp), %rax
	movl	%eax, %edx
	movq	-40(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -32(%rbp)
	movq	-8(%rbp), %rax
	movl	%eax, %edx
	movq	-48(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -40(%rbp)
	movq	-16(%rbp), %rax
	movl	%eax, %edx
	movq	-8(%rbp), %rax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	cltq
	addq	%rax, -48(%rbp)
	addl	$1, -52(%rbp)
.L4:
	movl	-52(%rbp), %eax
	cltq
	cmpq	%rax, -72(%rbp)
	jg	.L5
	movq	-8(%rbp), %rax
	xorq	-16(%rbp), %rax
	xorq	-24(%rbp), %rax
	xorq	-32(%rbp), %rax
	xorq	-40(%rbp), %rax
	xorq	-48(%rbp), %rax
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE7:
	.size	many_saved, .-many_saved
	.globl	use_alloca
	.type	use_alloca, @function
use_alloca:
.LFB8:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$32, %rsp
	movl	%edi, -20(%rbp)
	movl	-20(%rbp), %eax
	addl	$1, %eax
	cltq
	leaq	8(%rax), %rdx
	movl	$16, %eax
	subq	$1, %rax
	addq	%rdx, %rax
	movl	$16, %ecx
	movl	$0, %edx
	divq	%rcx
	imulq	$16, %rax, %rax
	subq	%rax, %rsp
	movq	%rsp, %rax
	addq	$15, %rax
	shrq	$4, %rax
	salq	$4, %rax
	movq	%rax, -8(%rbp)
	movl	-20(%rbp), %eax
	movslq	%eax, %rdx
	movq	-8(%rbp), %rax
	movl	$97, %esi
	movq	%rax, %rdi
	call	memset@PLT
	movl	-20(%rbp), %eax
	movslq	%eax, %rdx
	movq	-8(%rbp), %rax
	addq	%rdx, %rax
	movb	$0, (%rax)
	movl	-20(%rbp), %eax
	movl	%eax, %edx
	shrl	$31, %edx
	addl	%edx, %eax
	sarl	%eax
	movslq	%eax, %rdx
	movq	-8(%rbp), %rax
	addq	%rdx, %rax
	movzbl	(%rax), %eax
	movsbl	%al, %eax
	movl	%eax, sink(%rip)
	movq	-8(%rbp), %rax
	movq	%rax, %rdi
	call	strlen@PLT
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE8:
	.size	use_alloca, .-use_alloca
	.globl	use_vla
	.type	use_vla, @function
use_vla:
.LFB9:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$56, %rsp
	.cfi_offset 3, -24
	movl	%edi, -52(%rbp)
	movq	%rsp, %rax
	movq	%rax, %rbx
	movl	-52(%rbp), %eax
	movslq	%eax, %rdx
	subq	$1, %rdx
	movq	%rdx, -40(%rbp)
	movslq	%eax, %rdx
	movq	%rdx, %r10
	movl	$0, %r11d
	movslq	%eax, %rdx
	movq	%rdx, %r8
	movl	$0, %r9d
	cltq
	leaq	0(,%rax,4), %rdx
	movl	$16, %eax
	subq	$1, %rax
	addq	%rdx, %rax
	movl	$16, %esi
	movl	$0, %edx
	divq	%rsi
	imulq	$16, %rax, %rax
	subq	%rax, %rsp
	movq	%rsp, %rax
	addq	$3, %rax
	shrq	$2, %rax
	salq	$2, %rax
	movq	%rax, -48(%rbp)
	movl	$0, -20(%rbp)
	jmp	.L10
.L11:
	movl	-52(%rbp), %edx
	movl	-20(%rbp), %eax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	movq	-48(%rbp), %rdx
	movl	-20(%rbp), %ecx
	movslq	%ecx, %rcx
	movl	%eax, (%rdx,%rcx,4)
	addl	$1, -20(%rbp)
.L10:
	movl	-20(%rbp), %eax
	cmpl	-52(%rbp), %eax
	jl	.L11
	movl	$0, -24(%rbp)
	movl	$0, -28(%rbp)
	jmp	.L12
.L13:
	movq	-48(%rbp), %rax
	movl	-28(%rbp), %edx
	movslq	%edx, %rdx
	movl	(%rax,%rdx,4), %eax
	addl	%eax, -24(%rbp)
	addl	$1, -28(%rbp)
.L12:
	movl	-28(%rbp), %eax
	cmpl	-52(%rbp), %eax
	jl	.L13
	movl	-24(%rbp), %eax
	movq	%rbx, %rsp
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE9:
	.size	use_vla, .-use_vla
	.globl	aligned_local
	.type	aligned_local, @function
aligned_local:
.LFB10:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa 10, 0
	andq	$-64, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x58,0x6
	.cfi_escape 0x10,0xf,0x2,0x76,0x78
	.cfi_escape 0x10,0xe,0x2,0x76,0x70
	.cfi_escape 0x10,0xd,0x2,0x76,0x68
	.cfi_escape 0x10,0xc,0x2,0x76,0x60
	pushq	%rbx
	subq	$192, %rsp
	.cfi_escape 0x10,0x3,0x2,0x76,0x50
	movl	%edi, -180(%rbp)
	movq	%rsp, %rax
	movq	%rax, %rbx
	movl	$0, -52(%rbp)
	jmp	.L16
.L17:
	movl	-180(%rbp), %edx
	movl	-52(%rbp), %eax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	movl	-52(%rbp), %edx
	movslq	%edx, %rdx
	movl	%eax, -176(%rbp,%rdx,4)
	addl	$1, -52(%rbp)
.L16:
	cmpl	$15, -52(%rbp)
	jle	.L17
	movl	-180(%rbp), %eax
	movslq	%eax, %rdx
	subq	$1, %rdx
	movq	%rdx, -64(%rbp)
	movslq	%eax, %rdx
	movq	%rdx, %r14
	movl	$0, %r15d
	movslq	%eax, %rdx
	movq	%rdx, %r12
	movl	$0, %r13d
	cltq
	leaq	0(,%rax,4), %rdx
	movl	$16, %eax
	subq	$1, %rax
	addq	%rdx, %rax
	movl	$16, %esi
	movl	$0, %edx
	divq	%rsi
	imulq	$16, %rax, %rax
	subq	%rax, %rsp
	movq	%rsp, %rax
	addq	$3, %rax
	shrq	$2, %rax
	salq	$2, %rax
	movq	%rax, -72(%rbp)
	movl	$0, -56(%rbp)
	jmp	.L18
.L19:
	movl	-56(%rbp), %edx
	movl	%edx, %eax
	sarl	$31, %eax
	shrl	$28, %eax
	addl	%eax, %edx
	andl	$15, %edx
	subl	%eax, %edx
	movl	%edx, %eax
	cltq
	movl	-176(%rbp,%rax,4), %ecx
	movq	-72(%rbp), %rax
	movl	-56(%rbp), %edx
	movslq	%edx, %rdx
	movl	%ecx, (%rax,%rdx,4)
	addl	$1, -56(%rbp)
.L18:
	movl	-56(%rbp), %eax
	cmpl	-180(%rbp), %eax
	jl	.L19
	movl	-180(%rbp), %eax
	leal	-1(%rax), %edx
	movq	-72(%rbp), %rax
	movslq	%edx, %rdx
	movl	(%rax,%rdx,4), %edx
	movl	-164(%rbp), %eax
	addl	%edx, %eax
	movq	%rbx, %rsp
	leaq	-48(%rbp), %rsp
	popq	%rbx
	popq	%r10
	.cfi_def_cfa 10, 0
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE10:
	.size	aligned_local, .-aligned_local
	.section	.rodata
.LC0:
	.string	"%s\n"
	.text
	.globl	die
	.type	die, @function
die:
.LFB11:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$16, %rsp
	movq	%rdi, -8(%rbp)
	movq	stderr(%rip), %rax
	movq	-8(%rbp), %rdx
	leaq	.LC0(%rip), %rcx
	movq	%rcx, %rsi
	movq	%rax, %rdi
	movl	$0, %eax
	call	fprintf@PLT
	movl	$2, %edi
	call	exit@PLT
	.cfi_endproc
.LFE11:
	.size	die, .-die
	.section	.rodata
.LC1:
	.string	"negative"
	.text
	.globl	checked
	.type	checked, @function
checked:
.LFB12:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$16, %rsp
	movl	%edi, -4(%rbp)
	cmpl	$0, -4(%rbp)
	jns	.L23
	leaq	.LC1(%rip), %rax
	movq	%rax, %rdi
	call	die
.L23:
	cmpl	$1000, -4(%rbp)
	jle	.L24
	call	abort@PLT
.L24:
	movl	-4(%rbp), %edx
	movl	-4(%rbp), %eax
	movl	%edx, %esi
	movl	%eax, %edi
	call	leaf
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE12:
	.size	checked, .-checked
	.globl	fib
	.type	fib, @function
fib:
.LFB13:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$24, %rsp
	.cfi_offset 3, -24
	movq	%rdi, -24(%rbp)
	cmpq	$1, -24(%rbp)
	jle	.L27
	movq	-24(%rbp), %rax
	subq	$1, %rax
	movq	%rax, %rdi
	call	fib
	movq	%rax, %rbx
	movq	-24(%rbp), %rax
	subq	$2, %rax
	movq	%rax, %rdi
	call	fib
	addq	%rbx, %rax
	jmp	.L29
.L27:
	movq	-24(%rbp), %rax
.L29:
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE13:
	.size	fib, .-fib
	.globl	sum
	.type	sum, @function
sum:
.LFB14:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$104, %rsp
	movl	%edi, -212(%rbp)
	movq	%rsi, -168(%rbp)
	movq	%rdx, -160(%rbp)
	movq	%rcx, -152(%rbp)
	movq	%r8, -144(%rbp)
	movq	%r9, -136(%rbp)
	testb	%al, %al
	je	.L37
	movaps	%xmm0, -128(%rbp)
	movaps	%xmm1, -112(%rbp)
	movaps	%xmm2, -96(%rbp)
	movaps	%xmm3, -80(%rbp)
	movaps	%xmm4, -64(%rbp)
	movaps	%xmm5, -48(%rbp)
	movaps	%xmm6, -32(%rbp)
	movaps	%xmm7, -16(%rbp)
.L37:
	movl	$0, -180(%rbp)
	movl	$8, -208(%rbp)
	movl	$48, -204(%rbp)
	leaq	16(%rbp), %rax
	movq	%rax, -200(%rbp)
	leaq	-176(%rbp), %rax
	movq	%rax, -192(%rbp)
	movl	$0, -184(%rbp)
	jmp	.L32
.L35:
	movl	-208(%rbp), %eax
	cmpl	$47, %eax
	ja	.L33
	movq	-192(%rbp), %rax
	movl	-208(%rbp), %edx
	movl	%edx, %edx
	addq	%rdx, %rax
	movl	-208(%rbp), %edx
	addl	$8, %edx
	movl	%edx, -208(%rbp)
	jmp	.L34
.L33:
	movq	-200(%rbp), %rax
	leaq	8(%rax), %rdx
	movq	%rdx, -200(%rbp)
.L34:
	movl	(%rax), %eax
	addl	%eax, -180(%rbp)
	addl	$1, -184(%rbp)
.L32:
	movl	-184(%rbp), %eax
	cmpl	-212(%rbp), %eax
	jl	.L35
	movl	-180(%rbp), %eax
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE14:
	.size	sum, .-sum
	.globl	tail
	.type	tail, @function
tail:
.LFB15:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$16, %rsp
	movl	%edi, -4(%rbp)
	movl	-4(%rbp), %eax
	addl	$1, %eax
	movl	%eax, %edi
	call	checked
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE15:
	.size	tail, .-tail
	.section	.rodata
.LC2:
	.string	"cold %d\n"
	.text
	.type	cold_path, @function
cold_path:
.LFB16:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$16, %rsp
	movl	%edi, -4(%rbp)
	movl	-4(%rbp), %eax
	movl	%eax, %esi
	leaq	.LC2(%rip), %rax
	movq	%rax, %rdi
	movl	$0, %eax
	call	printf@PLT
	nop
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE16:
	.size	cold_path, .-cold_path
	.globl	maybe_cold
	.type	maybe_cold, @function
maybe_cold:
.LFB17:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$16, %rsp
	movl	%edi, -4(%rbp)
	cmpl	$12345, -4(%rbp)
	sete	%al
	movzbl	%al, %eax
	testq	%rax, %rax
	je	.L42
	movl	-4(%rbp), %eax
	movl	%eax, %edi
	call	cold_path
.L42:
	movl	-4(%rbp), %eax
	movl	$2, %esi
	movl	%eax, %edi
	call	leaf
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE17:
	.size	maybe_cold, .-maybe_cold
	.section	.rodata
.LC3:
	.string	"%ld\n"
	.text
	.globl	main
	.type	main, @function
main:
.LFB18:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$40, %rsp
	.cfi_offset 3, -24
	movl	%edi, -36(%rbp)
	movq	%rsi, -48(%rbp)
	movl	-36(%rbp), %eax
	cltq
	movl	$6, %r9d
	movl	$5, %r8d
	movl	$4, %ecx
	movl	$3, %edx
	movl	$2, %esi
	movq	%rax, %rdi
	call	many_saved
	movq	%rax, -24(%rbp)
	movl	-36(%rbp), %eax
	addl	$10, %eax
	movl	%eax, %edi
	call	use_alloca
	movl	%eax, %ebx
	movl	-36(%rbp), %eax
	addl	$5, %eax
	movl	%eax, %edi
	call	use_vla
	addl	%eax, %ebx
	movl	-36(%rbp), %eax
	addl	$3, %eax
	movl	%eax, %edi
	call	aligned_local
	addl	%ebx, %eax
	cltq
	addq	%rax, -24(%rbp)
	movl	-36(%rbp), %eax
	movl	%eax, %edi
	call	checked
	movslq	%eax, %rbx
	movl	$10, %edi
	call	fib
	addq	%rax, %rbx
	movl	$3, %ecx
	movl	$2, %edx
	movl	$1, %esi
	movl	$3, %edi
	movl	$0, %eax
	call	sum
	cltq
	addq	%rax, %rbx
	movl	-36(%rbp), %eax
	movl	%eax, %edi
	call	tail
	cltq
	addq	%rax, %rbx
	movl	-36(%rbp), %eax
	movl	%eax, %edi
	call	maybe_cold
	cltq
	addq	%rbx, %rax
	addq	%rax, -24(%rbp)
	movq	-24(%rbp), %rax
	movq	%rax, %rsi
	leaq	.LC3(%rip), %rax
	movq	%rax, %rdi
	movl	$0, %eax
	call	printf@PLT
	movl	$0, %eax
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE18:
	.size	main, .-main
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
