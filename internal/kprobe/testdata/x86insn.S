# x86-64 kprobe instruction rules (kprobe/x86insn.go): each instruction
# a rule names, and a few it lets through, at the start of a function of
# its own (x86insn_test.go probes each function's first byte). The bytes
# are written out, so that the assembler neither picks another encoding
# nor refuses one that is invalid in 64-bit mode (9A, EA, CE, 17).
#
# linux_banner (a vmlinux) or .modinfo vermagic (a module) names the
# kernel version, which decides the INT/UD rule of Linux 6.9 and later:
# VERSION is "6.1.0-53-cloud-amd64" or "6.12.117+deb13-cloud-amd64".

	.macro case name, bytes:vararg
	.globl \name
	.type \name, @function
\name:
	.byte \bytes
	ret
	.size \name, . - \name
	.endm

	.text
	case plain_mov, 0x48, 0x89, 0xf8		# mov %rdi,%rax
	case plain_ret, 0xc3
	case int3, 0xcc
	case int_n, 0xcd, 0x80			# int $0x80
	case into, 0xce				# invalid in 64-bit mode
	case int1, 0xf1				# icebp
	case ud0, 0x0f, 0xff, 0xc0			# ud0 %eax,%eax
	case ud1, 0x0f, 0xb9, 0x40, 0x10		# ud1 0x10(%rax),%eax
	case ud2, 0x0f, 0x0b
	case iretq, 0x48, 0xcf
	case lcall_abs, 0x9a, 1, 2, 3, 4, 5, 6	# invalid in 64-bit mode
	case ljmp_abs, 0xea, 1, 2, 3, 4, 5, 6	# invalid in 64-bit mode
	case lcall_ind, 0xff, 0x1c, 0x24		# lcall *(%rsp)
	case ljmp_ind, 0xff, 0x2c, 0x24		# ljmp *(%rsp)
	case call_mem, 0xff, 0x10			# call *(%rax)
	case jmp_mem, 0xff, 0x60, 0x08		# jmp *0x8(%rax)
	case call_reg, 0xff, 0xd0			# call *%rax
	case jmp_reg, 0x41, 0xff, 0xe3		# jmp *%r11
	case call_addr32, 0x67, 0xff, 0xd0		# addr32 call *%rax
	case vmcall, 0x0f, 0x01, 0xc1
	case vmlaunch, 0x0f, 0x01, 0xc2
	case rdtscp, 0x0f, 0x01, 0xf9		# group 7, not VMX
	case mov_ss, 0x8e, 0xd0			# mov %eax,%ss
	case pop_ss, 0x17				# invalid in 64-bit mode
	case xen_cpuid, 0x0f, 0x0b, 0x78, 0x65, 0x6e, 0x0f, 0xa2	# ud2; .ascii "xen"; cpuid
	case kvm_cpuid, 0x0f, 0x0b, 0x6b, 0x76, 0x6d, 0x0f, 0xa2	# ud2; .ascii "kvm"; cpuid

	# A function with its 16-byte padding symbol in front, as 6.12's
	# CONFIG_FUNCTION_PADDING lays it out.
	.globl __pfx_padded
	.type __pfx_padded, @function
__pfx_padded:
	.fill 16, 1, 0x90
	.size __pfx_padded, 16
	case padded, 0x90

	# An indirect call through pv_ops: refused as the ELF has it, but a
	# paravirt patch site, which the kernel makes a direct call at boot.
	.globl call_pv
	.type call_pv, @function
call_pv:
0:	call *pv_ops(%rip)
	ret
	.size call_pv, . - call_pv

	.section .parainstructions, "a"
	.quad 0b				# struct paravirt_patch_site: instr,
	.byte 0, 6				# type, len
	.balign 16

	.data
pv_ops:	.quad 0

#ifdef MODULE
	.section .modinfo, "a"
	.asciz "vermagic=" VERSION " SMP preempt mod_unload modversions "
#else
	.section .rodata
	.globl linux_banner
linux_banner:
	.asciz "Linux version " VERSION " (fixture) #1 SMP PREEMPT_DYNAMIC\n"
#endif
