/* badform-x86_64.s: "gcc -O2 -g -S" of wideconst.c (gcc 12.2, the flags
   of the Makefile), edited by hand in one place (marked "edited"): the
   abbreviation of the valid_dma variable gives DW_AT_decl_line the form
   0x7e, which no DWARF version defines, so that entry can be neither
   sized nor decoded. It sits inside "first", whose DW_AT_sibling lets a
   reader resume after it: the sites of the other functions survive. */
	.file	"wideconst.c"
	.text
.Ltext0:
	.file 0 "." "wideconst.c"
	.p2align 4
	.globl	second
	.type	second, @function
second:
.LVL0:
.LFB1:
	.file 1 "wideconst.c"
	.loc 1 10 1 view -0
	.cfi_startproc
	.loc 1 11 2 view .LVU1
.LBB14:
.LBI14:
	.loc 1 4 50 view .LVU2
.LBB15:
	.loc 1 6 2 view .LVU3
	.loc 1 6 20 is_stmt 0 view .LVU4
	movl	%esi, %edx
.LBE15:
.LBE14:
	.loc 1 11 22 view .LVU5
	leal	(%rsi,%rsi), %eax
.LBB18:
.LBB16:
	.loc 1 6 20 view .LVU6
	negl	%edx
	cmpq	$11, %rdi
.LBE16:
.LBE18:
.LBB19:
.LBB20:
	movl	%eax, %ecx
.LBE20:
.LBE19:
.LBB23:
.LBB17:
	cmovnb	%esi, %edx
.LVL1:
	.loc 1 6 20 view .LVU7
.LBE17:
.LBE23:
.LBB24:
.LBI19:
	.loc 1 4 50 is_stmt 1 view .LVU8
.LBB21:
	.loc 1 6 2 view .LVU9
.LBE21:
.LBE24:
	.loc 1 11 22 is_stmt 0 view .LVU10
	addq	$1, %rdi
.LVL2:
.LBB25:
.LBB22:
	.loc 1 6 20 view .LVU11
	negl	%ecx
	cmpq	$11, %rdi
	cmovb	%ecx, %eax
.LVL3:
	.loc 1 6 20 view .LVU12
.LBE22:
.LBE25:
	.loc 1 11 20 view .LVU13
	addl	%edx, %eax
	.loc 1 12 1 view .LVU14
	ret
	.cfi_endproc
.LFE1:
	.size	second, .-second
	.p2align 4
	.globl	first
	.type	first, @function
first:
.LVL4:
.LFB2:
	.loc 1 15 1 is_stmt 1 view -0
	.cfi_startproc
	.loc 1 16 2 view .LVU16
	.loc 1 17 2 view .LVU17
	.loc 1 17 34 is_stmt 0 view .LVU18
	movabsq	$-8070450532247928832, %rax
	andq	%rax, %rdi
.LVL5:
	.loc 1 17 25 view .LVU19
	movq	%rdi, -8(%rsp)
	.loc 1 18 2 is_stmt 1 view .LVU20
	.loc 1 18 9 is_stmt 0 view .LVU21
	movq	-8(%rsp), %rax
.LVL6:
.LBB26:
.LBI26:
	.loc 1 4 50 is_stmt 1 view .LVU22
.LBB27:
	.loc 1 6 2 view .LVU23
	.loc 1 6 20 is_stmt 0 view .LVU24
	cmpq	$11, %rax
	sbbl	%eax, %eax
.LVL7:
	.loc 1 6 20 view .LVU25
	andl	$-6, %eax
	addl	$3, %eax
.LBE27:
.LBE26:
	.loc 1 19 1 view .LVU26
	ret
	.cfi_endproc
.LFE2:
	.size	first, .-first
	.p2align 4
	.globl	third
	.type	third, @function
third:
.LVL8:
.LFB3:
	.loc 1 22 1 is_stmt 1 view -0
	.cfi_startproc
	.loc 1 23 2 view .LVU28
.LBB28:
.LBI28:
	.loc 1 4 50 view .LVU29
.LBB29:
	.loc 1 6 2 view .LVU30
.LBE29:
.LBE28:
	.loc 1 23 9 is_stmt 0 view .LVU31
	movq	%rdi, %rcx
.LBB32:
.LBB30:
	.loc 1 6 20 view .LVU32
	movl	%esi, %edx
.LBE30:
.LBE32:
	.loc 1 22 1 view .LVU33
	movl	%esi, %eax
	.loc 1 23 9 view .LVU34
	xorq	$5, %rcx
.LVL9:
.LBB33:
.LBB31:
	.loc 1 6 20 view .LVU35
	negl	%edx
	cmpq	$11, %rcx
	cmovb	%edx, %eax
.LVL10:
	.loc 1 6 20 view .LVU36
.LBE31:
.LBE33:
.LBB34:
.LBI34:
	.loc 1 4 50 is_stmt 1 view .LVU37
.LBB35:
	.loc 1 6 2 view .LVU38
	.loc 1 6 20 is_stmt 0 view .LVU39
	cmpq	$11, %rdi
	sbbl	%edx, %edx
	andl	$-14, %edx
	addl	$7, %edx
.LVL11:
	.loc 1 6 20 view .LVU40
.LBE35:
.LBE34:
	.loc 1 23 24 view .LVU41
	subl	%edx, %eax
	.loc 1 24 1 view .LVU42
	ret
	.cfi_endproc
.LFE3:
	.size	third, .-third
	.p2align 4
	.globl	fourth
	.type	fourth, @function
fourth:
.LVL12:
.LFB5:
	.loc 1 35 1 is_stmt 1 view -0
	.cfi_startproc
	.loc 1 36 2 view .LVU44
.LBB36:
.LBI36:
	.loc 1 28 50 view .LVU45
.LBB37:
	.loc 1 30 2 view .LVU46
.LVL13:
	.loc 1 31 2 view .LVU47
	.loc 1 31 11 is_stmt 0 view .LVU48
	leal	1(%rdi), %eax
.LBE37:
.LBE36:
	.loc 1 37 1 view .LVU49
	ret
	.cfi_endproc
.LFE5:
	.size	fourth, .-fourth
.Letext0:
	.section	.debug_info,"",@progbits
.Ldebug_info0:
	.long	0x2c5
	.value	0x5
	.byte	0x1
	.byte	0x8
	.long	.Ldebug_abbrev0
	.uleb128 0x8
	.long	.LASF10
	.byte	0x1d
	.long	.LASF0
	.long	.LASF1
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.long	.Ldebug_line0
	.uleb128 0x2
	.long	.LASF4
	.byte	0x22
	.long	0x9b
	.quad	.LFB5
	.quad	.LFE5-.LFB5
	.uleb128 0x1
	.byte	0x9c
	.long	0x9b
	.uleb128 0x3
	.string	"y"
	.byte	0x22
	.byte	0x10
	.long	0x9b
	.long	.LLST14
	.long	.LVUS14
	.uleb128 0x4
	.long	0xa2
	.quad	.LBI36
	.byte	.LVU45
	.quad	.LBB36
	.quad	.LBE36-.LBB36
	.byte	0x24
	.byte	0x9
	.uleb128 0x1
	.long	0xbf
	.long	.LLST15
	.long	.LVUS15
	.uleb128 0x1
	.long	0xb3
	.long	.LLST16
	.long	.LVUS16
	.byte	0
	.byte	0
	.uleb128 0x9
	.byte	0x4
	.byte	0x5
	.string	"int"
	.uleb128 0xa
	.string	"tag"
	.byte	0x1
	.byte	0x1c
	.byte	0x32
	.long	0x9b
	.byte	0x3
	.long	0xc9
	.uleb128 0xb
	.long	.LASF2
	.byte	0x1
	.byte	0x1c
	.byte	0x44
	.long	0xc9
	.uleb128 0x5
	.string	"y"
	.byte	0x1c
	.byte	0x4e
	.long	0x9b
	.byte	0
	.uleb128 0xc
	.byte	0x8
	.byte	0x7
	.long	.LASF3
	.uleb128 0xd
	.long	0xc9
	.uleb128 0xe
	.long	0xc9
	.uleb128 0x2
	.long	.LASF5
	.byte	0x15
	.long	0x9b
	.quad	.LFB3
	.quad	.LFE3-.LFB3
	.uleb128 0x1
	.byte	0x9c
	.long	0x17e
	.uleb128 0x6
	.string	"x"
	.byte	0x15
	.byte	0x19
	.long	0xc9
	.uleb128 0x1
	.byte	0x55
	.uleb128 0x6
	.string	"y"
	.byte	0x15
	.byte	0x20
	.long	0x9b
	.uleb128 0x1
	.byte	0x54
	.uleb128 0x7
	.long	0x2a8
	.quad	.LBI28
	.byte	.LVU29
	.long	.LLRL9
	.byte	0x17
	.long	0x142
	.uleb128 0x1
	.long	0x2be
	.long	.LLST10
	.long	.LVUS10
	.uleb128 0x1
	.long	0x2b5
	.long	.LLST11
	.long	.LVUS11
	.byte	0
	.uleb128 0x4
	.long	0x2a8
	.quad	.LBI34
	.byte	.LVU37
	.quad	.LBB34
	.quad	.LBE34-.LBB34
	.byte	0x17
	.byte	0x1a
	.uleb128 0x1
	.long	0x2be
	.long	.LLST12
	.long	.LVUS12
	.uleb128 0x1
	.long	0x2b5
	.long	.LLST13
	.long	.LVUS13
	.byte	0
	.byte	0
	.uleb128 0x2
	.long	.LASF6
	.byte	0xe
	.long	0x9b
	.quad	.LFB2
	.quad	.LFE2-.LFB2
	.uleb128 0x1
	.byte	0x9c
	.long	0x209
	.uleb128 0x3
	.string	"x"
	.byte	0xe
	.byte	0x19
	.long	0xc9
	.long	.LLST7
	.long	.LVUS7
	.uleb128 0xf
	.long	.LASF7
	.byte	0x1
	.byte	0x10
	.byte	0x16
	.long	0xd0
	.sleb128 -8070450532247928832
	.uleb128 0x10
	.long	.LASF8
	.byte	0x1
	.byte	0x11
	.byte	0x19
	.long	0xd5
	.uleb128 0x2
	.byte	0x91
	.sleb128 -16
	.uleb128 0x4
	.long	0x2a8
	.quad	.LBI26
	.byte	.LVU22
	.quad	.LBB26
	.quad	.LBE26-.LBB26
	.byte	0x12
	.byte	0x9
	.uleb128 0x11
	.long	0x2be
	.byte	0x3
	.uleb128 0x1
	.long	0x2b5
	.long	.LLST8
	.long	.LVUS8
	.byte	0
	.byte	0
	.uleb128 0x2
	.long	.LASF9
	.byte	0x9
	.long	0x9b
	.quad	.LFB1
	.quad	.LFE1-.LFB1
	.uleb128 0x1
	.byte	0x9c
	.long	0x2a8
	.uleb128 0x3
	.string	"x"
	.byte	0x9
	.byte	0x1a
	.long	0xc9
	.long	.LLST0
	.long	.LVUS0
	.uleb128 0x6
	.string	"y"
	.byte	0x9
	.byte	0x21
	.long	0x9b
	.uleb128 0x1
	.byte	0x54
	.uleb128 0x7
	.long	0x2a8
	.quad	.LBI14
	.byte	.LVU2
	.long	.LLRL1
	.byte	0xb
	.long	0x277
	.uleb128 0x1
	.long	0x2be
	.long	.LLST2
	.long	.LVUS2
	.uleb128 0x1
	.long	0x2b5
	.long	.LLST3
	.long	.LVUS3
	.byte	0
	.uleb128 0x12
	.long	0x2a8
	.quad	.LBI19
	.byte	.LVU8
	.long	.LLRL4
	.byte	0x1
	.byte	0xb
	.byte	0x16
	.uleb128 0x1
	.long	0x2be
	.long	.LLST5
	.long	.LVUS5
	.uleb128 0x1
	.long	0x2b5
	.long	.LLST6
	.long	.LVUS6
	.byte	0
	.byte	0
	.uleb128 0x13
	.long	.LASF11
	.byte	0x1
	.byte	0x4
	.byte	0x32
	.long	0x9b
	.byte	0x3
	.uleb128 0x5
	.string	"x"
	.byte	0x4
	.byte	0x45
	.long	0xc9
	.uleb128 0x5
	.string	"y"
	.byte	0x4
	.byte	0x4c
	.long	0x9b
	.byte	0
	.byte	0
	.section	.debug_abbrev,"",@progbits
.Ldebug_abbrev0:
	.uleb128 0x1
	.uleb128 0x5
	.byte	0
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x17
	.uleb128 0x2137
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x2
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0x21
	.sleb128 5
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40
	.uleb128 0x18
	.uleb128 0x7a
	.uleb128 0x19
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x3
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x17
	.uleb128 0x2137
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x4
	.uleb128 0x1d
	.byte	0x1
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x52
	.uleb128 0x1
	.uleb128 0x2138
	.uleb128 0xb
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x58
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x59
	.uleb128 0xb
	.uleb128 0x57
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x5
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x6
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x7
	.uleb128 0x1d
	.byte	0x1
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x52
	.uleb128 0x1
	.uleb128 0x2138
	.uleb128 0xb
	.uleb128 0x55
	.uleb128 0x17
	.uleb128 0x58
	.uleb128 0x21
	.sleb128 1
	.uleb128 0x59
	.uleb128 0xb
	.uleb128 0x57
	.uleb128 0x21
	.sleb128 9
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x8
	.uleb128 0x11
	.byte	0x1
	.uleb128 0x25
	.uleb128 0xe
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x1f
	.uleb128 0x1b
	.uleb128 0x1f
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x10
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x9
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0
	.byte	0
	.uleb128 0xa
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x20
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xb
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xc
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0xe
	.byte	0
	.byte	0
	.uleb128 0xd
	.uleb128 0x26
	.byte	0
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xe
	.uleb128 0x35
	.byte	0
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xf
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0x7e	/* edited: was 0xb (DW_FORM_data1) */
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x1c
	.uleb128 0xd
	.byte	0
	.byte	0
	.uleb128 0x10
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x11
	.uleb128 0x5
	.byte	0
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x1c
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x12
	.uleb128 0x1d
	.byte	0x1
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x52
	.uleb128 0x1
	.uleb128 0x2138
	.uleb128 0xb
	.uleb128 0x55
	.uleb128 0x17
	.uleb128 0x58
	.uleb128 0xb
	.uleb128 0x59
	.uleb128 0xb
	.uleb128 0x57
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x13
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x20
	.uleb128 0xb
	.byte	0
	.byte	0
	.byte	0
	.section	.debug_loclists,"",@progbits
	.long	.Ldebug_loc3-.Ldebug_loc2
.Ldebug_loc2:
	.value	0x5
	.byte	0x8
	.byte	0
	.long	0
.Ldebug_loc0:
.LVUS14:
	.uleb128 0
	.uleb128 .LVU47
	.uleb128 .LVU47
	.uleb128 0
.LLST14:
	.byte	0x4
	.uleb128 .LVL12-.Ltext0
	.uleb128 .LVL13-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0x4
	.uleb128 .LVL13-.Ltext0
	.uleb128 .LFE5-.Ltext0
	.uleb128 0x4
	.byte	0xa3
	.uleb128 0x1
	.byte	0x55
	.byte	0x9f
	.byte	0
.LVUS15:
	.uleb128 .LVU45
	.uleb128 .LVU48
.LLST15:
	.byte	0x4
	.uleb128 .LVL12-.Ltext0
	.uleb128 .LVL13-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0
.LVUS16:
	.uleb128 .LVU45
	.uleb128 .LVU48
.LLST16:
	.byte	0x4
	.uleb128 .LVL12-.Ltext0
	.uleb128 .LVL13-.Ltext0
	.uleb128 0x6
	.byte	0x4c
	.byte	0x8
	.byte	0x3a
	.byte	0x24
	.byte	0x1f
	.byte	0x9f
	.byte	0
.LVUS10:
	.uleb128 .LVU29
	.uleb128 .LVU36
.LLST10:
	.byte	0x4
	.uleb128 .LVL8-.Ltext0
	.uleb128 .LVL10-.Ltext0
	.uleb128 0x1
	.byte	0x54
	.byte	0
.LVUS11:
	.uleb128 .LVU29
	.uleb128 .LVU35
	.uleb128 .LVU35
	.uleb128 .LVU36
.LLST11:
	.byte	0x4
	.uleb128 .LVL8-.Ltext0
	.uleb128 .LVL9-.Ltext0
	.uleb128 0x5
	.byte	0x75
	.sleb128 0
	.byte	0x35
	.byte	0x27
	.byte	0x9f
	.byte	0x4
	.uleb128 .LVL9-.Ltext0
	.uleb128 .LVL10-.Ltext0
	.uleb128 0x1
	.byte	0x52
	.byte	0
.LVUS12:
	.uleb128 .LVU36
	.uleb128 .LVU40
.LLST12:
	.byte	0x4
	.uleb128 .LVL10-.Ltext0
	.uleb128 .LVL11-.Ltext0
	.uleb128 0x2
	.byte	0x37
	.byte	0x9f
	.byte	0
.LVUS13:
	.uleb128 .LVU36
	.uleb128 .LVU40
.LLST13:
	.byte	0x4
	.uleb128 .LVL10-.Ltext0
	.uleb128 .LVL11-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0
.LVUS7:
	.uleb128 0
	.uleb128 .LVU19
	.uleb128 .LVU19
	.uleb128 0
.LLST7:
	.byte	0x4
	.uleb128 .LVL4-.Ltext0
	.uleb128 .LVL5-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0x4
	.uleb128 .LVL5-.Ltext0
	.uleb128 .LFE2-.Ltext0
	.uleb128 0x4
	.byte	0xa3
	.uleb128 0x1
	.byte	0x55
	.byte	0x9f
	.byte	0
.LVUS8:
	.uleb128 .LVU22
	.uleb128 .LVU25
.LLST8:
	.byte	0x4
	.uleb128 .LVL6-.Ltext0
	.uleb128 .LVL7-.Ltext0
	.uleb128 0x1
	.byte	0x50
	.byte	0
.LVUS0:
	.uleb128 0
	.uleb128 .LVU11
	.uleb128 .LVU11
	.uleb128 0
.LLST0:
	.byte	0x4
	.uleb128 .LVL0-.Ltext0
	.uleb128 .LVL2-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0x4
	.uleb128 .LVL2-.Ltext0
	.uleb128 .LFE1-.Ltext0
	.uleb128 0x3
	.byte	0x75
	.sleb128 -1
	.byte	0x9f
	.byte	0
.LVUS2:
	.uleb128 .LVU2
	.uleb128 .LVU7
.LLST2:
	.byte	0x4
	.uleb128 .LVL0-.Ltext0
	.uleb128 .LVL1-.Ltext0
	.uleb128 0x1
	.byte	0x54
	.byte	0
.LVUS3:
	.uleb128 .LVU2
	.uleb128 .LVU7
.LLST3:
	.byte	0x4
	.uleb128 .LVL0-.Ltext0
	.uleb128 .LVL1-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0
.LVUS5:
	.uleb128 .LVU7
	.uleb128 .LVU12
.LLST5:
	.byte	0x4
	.uleb128 .LVL1-.Ltext0
	.uleb128 .LVL3-.Ltext0
	.uleb128 0x1
	.byte	0x50
	.byte	0
.LVUS6:
	.uleb128 .LVU7
	.uleb128 .LVU11
	.uleb128 .LVU11
	.uleb128 .LVU12
.LLST6:
	.byte	0x4
	.uleb128 .LVL1-.Ltext0
	.uleb128 .LVL2-.Ltext0
	.uleb128 0x3
	.byte	0x75
	.sleb128 1
	.byte	0x9f
	.byte	0x4
	.uleb128 .LVL2-.Ltext0
	.uleb128 .LVL3-.Ltext0
	.uleb128 0x1
	.byte	0x55
	.byte	0
.Ldebug_loc3:
	.section	.debug_aranges,"",@progbits
	.long	0x2c
	.value	0x2
	.long	.Ldebug_info0
	.byte	0x8
	.byte	0
	.value	0
	.value	0
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.quad	0
	.quad	0
	.section	.debug_rnglists,"",@progbits
.Ldebug_ranges0:
	.long	.Ldebug_ranges3-.Ldebug_ranges2
.Ldebug_ranges2:
	.value	0x5
	.byte	0x8
	.byte	0
	.long	0
.LLRL1:
	.byte	0x4
	.uleb128 .LBB14-.Ltext0
	.uleb128 .LBE14-.Ltext0
	.byte	0x4
	.uleb128 .LBB18-.Ltext0
	.uleb128 .LBE18-.Ltext0
	.byte	0x4
	.uleb128 .LBB23-.Ltext0
	.uleb128 .LBE23-.Ltext0
	.byte	0
.LLRL4:
	.byte	0x4
	.uleb128 .LBB19-.Ltext0
	.uleb128 .LBE19-.Ltext0
	.byte	0x4
	.uleb128 .LBB24-.Ltext0
	.uleb128 .LBE24-.Ltext0
	.byte	0x4
	.uleb128 .LBB25-.Ltext0
	.uleb128 .LBE25-.Ltext0
	.byte	0
.LLRL9:
	.byte	0x4
	.uleb128 .LBB28-.Ltext0
	.uleb128 .LBE28-.Ltext0
	.byte	0x4
	.uleb128 .LBB32-.Ltext0
	.uleb128 .LBE32-.Ltext0
	.byte	0x4
	.uleb128 .LBB33-.Ltext0
	.uleb128 .LBE33-.Ltext0
	.byte	0
.Ldebug_ranges3:
	.section	.debug_line,"",@progbits
.Ldebug_line0:
	.section	.debug_str,"MS",@progbits,1
.LASF3:
	.string	"long unsigned int"
.LASF8:
	.string	"keep"
.LASF4:
	.string	"fourth"
.LASF6:
	.string	"first"
.LASF10:
	.string	"GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O2 -ffreestanding -fno-stack-protector -fno-pie -fcf-protection=none -fasynchronous-unwind-tables"
.LASF5:
	.string	"third"
.LASF9:
	.string	"second"
.LASF11:
	.string	"pick"
.LASF2:
	.string	"mask"
.LASF7:
	.string	"valid_dma"
	.section	.debug_line_str,"MS",@progbits,1
.LASF0:
	.string	"wideconst.c"
.LASF1:
	.string	"."
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
