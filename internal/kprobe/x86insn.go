package kprobe

import (
	"bytes"
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/insn"
	"golang.org/x/arch/x86/x86asm"
)

// The x86-64 kprobe instruction rules (arch/x86/kernel/kprobes/core.c:
// can_probe, __copy_instruction, prepare_emulation): the instructions the
// kernel neither single-steps out of line nor emulates, and so refuses a
// kprobe on.
//
//   - In every version: INT3 (the copy refuses what it takes for another
//     debugger's breakpoint), IRET, far CALL and JMP (absolute 9A and EA,
//     indirect FF /3 and FF /5), near indirect CALL and JMP (FF /2, FF /4)
//     through memory or with an address-size prefix (only a register
//     operand is emulated), the VMX group (0F 01 C0-C7: VMCALL, VMLAUNCH,
//     VMRESUME, VMXOFF, ...), MOV to SS and POP SS (they hold off the
//     single-step trap), an instruction behind the Xen or KVM
//     forced-emulation prefix (UD2 then "xen" or "kvm"), and an address
//     inside that prefix's instruction, which can_probe's decoding walk
//     from the function's start steps over.
//   - From Linux 6.9 (commit e884edbb844f, "x86/kprobes: Prohibit
//     kprobing on INT and UD"): INT n, INTO, INT1 (ICEBP), UD0, UD1 and
//     UD2, refused by can_probe with EILSEQ. Before, a probe there was
//     accepted and the trap taken from the copy. The Debian kernels show
//     it in their code: 6.1's can_probe ends at the boundary test, 6.12's
//     compares the opcode with CC-CE, F1 and 0F FF, B9, 0B.
//
// The rules read the text as the ELF has it. At a paravirt patch site
// (.parainstructions up to 6.7, an ALT_CALL alternative after) that text
// is an indirect call through pv_ops, which the kernel turns into a
// direct call at boot: the memory-indirect rule is not applied there
// (on the Debian vmlinux files, the only sites that rule would refuse;
// TestKernelX86InsnRules). Other alternatives run as the file has them on
// a CPU without the feature.

// KernelVersion is a kernel release's major and minor version, as the
// object says it (vmlinux's linux_banner, a module's vermagic); zero when
// unknown.
type KernelVersion struct{ Major, Minor int }

// Known reports whether v was read.
func (v KernelVersion) Known() bool { return v.Major > 0 }

// AtLeast reports whether v is major.minor or later (false when unknown).
func (v KernelVersion) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

func (v KernelVersion) String() string {
	if !v.Known() {
		return "unknown"
	}
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor)
}

// ParseKernelRelease reads the version at the start of a kernel release
// string ("6.12.117+deb13-cloud-amd64", as uname -r, vermagic and
// linux_banner spell it).
func ParseKernelRelease(s string) (KernelVersion, bool) {
	num := func(s string) (int, string, bool) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i > 4 {
			return 0, s, false
		}
		n, _ := strconv.Atoi(s[:i])
		return n, s[i:], true
	}
	major, rest, ok := num(s)
	if !ok || major == 0 || !strings.HasPrefix(rest, ".") {
		return KernelVersion{}, false
	}
	minor, _, ok := num(rest[1:])
	if !ok {
		return KernelVersion{}, false
	}
	return KernelVersion{major, minor}, true
}

// bannerPrefix starts linux_banner (init/version.c) and /proc/version.
const bannerPrefix = "Linux version "

// ELFKernelVersion reads the kernel version f was built for: a linked
// image's linux_banner (its address among markers), a module's vermagic
// in .modinfo. ok is false when f has neither.
func ELFKernelVersion(f *elfobj.File, markers map[string]uint64) (v KernelVersion, ok bool) {
	if f.Type == elf.ET_REL {
		s := f.Section(".modinfo")
		if s == nil || s.Type != elf.SHT_PROGBITS {
			return KernelVersion{}, false
		}
		d, err := f.Range(s, 0, s.Size)
		if err != nil {
			return KernelVersion{}, false
		}
		for _, kv := range bytes.Split(d, []byte{0}) {
			if r, found := bytes.CutPrefix(kv, []byte("vermagic=")); found {
				return ParseKernelRelease(string(r))
			}
		}
		return KernelVersion{}, false
	}
	a, found := markers["linux_banner"]
	if !found {
		return KernelVersion{}, false
	}
	s := f.AllocSection(a, a+1)
	if s == nil {
		return KernelVersion{}, false
	}
	d, err := f.AddrRange(a, a+min(128, s.Addr+s.Size-a))
	if err != nil {
		return KernelVersion{}, false
	}
	r, found := bytes.CutPrefix(d, []byte(bannerPrefix))
	if !found {
		return KernelVersion{}, false
	}
	return ParseKernelRelease(string(r))
}

// intUDSince is the release from which can_probe refuses INT and UD.
var intUDSince = KernelVersion{6, 9}

// The refusals, by rule.
const (
	whyEmulatePrefix = "x86: an instruction behind the Xen/KVM forced-emulation prefix (UD2 then \"xen\" or \"kvm\") is not single-stepped"
	whyNotBoundary   = "x86: not an instruction boundary: the kernel decodes the forced-emulation prefix before it as part of the instruction (can_probe)"
	whyINT3          = "x86: INT3 is not single-stepped (kprobes take it for another debugger's breakpoint)"
	whyIntUD         = " is refused from Linux 6.9 (can_probe: INT and UD are not probed)"
	whyIRET          = "x86: IRET is not emulated (no in-kernel IRET)"
	whyFar           = "x86: far CALL/JMP is not emulated (segments)"
	whyAddrSize      = "x86: indirect CALL/JMP with an address-size prefix is not emulated"
	whyIndirectMem   = "x86: indirect CALL/JMP through memory is not emulated (only a register operand)"
	whyVMX           = "x86: VMX instruction (0F 01 C0-C7: VMCALL, VMLAUNCH, VMRESUME, VMXOFF, ...) is not emulated"
	whyMovSS         = "x86: MOV to SS / POP SS holds off the single-step trap: not single-stepped"
)

// x86EmulatePrefixes are the forced-emulation prefixes (asm/emulate_prefix.h).
var x86EmulatePrefixes = [][]byte{[]byte("\x0f\x0bxen"), []byte("\x0f\x0bkvm")}

const emulatePrefixLen = 5

// inEmulatePrefix reports whether before, the bytes before an address,
// end in a forced-emulation prefix: the kernel's decoder takes prefix and
// instruction as one, so the address is inside it. The compiler's own
// instruction starts (DWARF's) are the kernel decoder's everywhere else
// (a walk from each function's start over both Debian kernels' sites
// found no other), so can_probe's walk is not repeated.
func inEmulatePrefix(before []byte) bool {
	for _, p := range x86EmulatePrefixes {
		if bytes.HasSuffix(before, p) {
			return true
		}
	}
	return false
}

// X86Refusal says which x86-64 instruction rule refuses a kprobe on the
// instruction at the start of code, on kernel version v (unknown: only
// the rules of every version), or "" when none does. bootPatched says the
// kernel rewrites the instruction at boot (a paravirt or alternative
// site): its indirect call through pv_ops becomes a direct call.
func X86Refusal(code []byte, v KernelVersion, bootPatched bool) string {
	for _, p := range x86EmulatePrefixes {
		if bytes.HasPrefix(code, p) {
			return whyEmulatePrefix
		}
	}
	op := x86Opcode(code)
	if len(op) == 0 || !x86Candidates[op[0]] || op[0] == 0x0f && (len(op) < 2 || !x86Candidates0F[op[1]]) {
		return "" // the common case, without decoding
	}
	intUD := v.AtLeast(intUDSince.Major, intUDSince.Minor)
	in, err := insn.Decode(elf.EM_X86_64, code, 0)
	x, ok := in.X86()
	if err != nil || !ok {
		return x86RawRefusal(op, intUD)
	}
	switch x.Op {
	case x86asm.INT:
		if op[0] == 0xcc {
			return whyINT3
		}
		if intUD {
			return "x86: INT n" + whyIntUD
		}
	case x86asm.INTO, x86asm.ICEBP, x86asm.UD0, x86asm.UD1, x86asm.UD2:
		if intUD {
			return "x86: " + x.Op.String() + whyIntUD
		}
	case x86asm.IRET, x86asm.IRETD, x86asm.IRETQ:
		return whyIRET
	case x86asm.LCALL, x86asm.LJMP:
		return whyFar
	case x86asm.CALL, x86asm.JMP:
		if op[0] != 0xff {
			break
		}
		if x.AddrSize != 64 {
			return whyAddrSize
		}
		if _, mem := x.Args[0].(x86asm.Mem); mem && !bootPatched {
			return whyIndirectMem
		}
	case x86asm.MOV:
		if x.Args[0] == x86asm.SS {
			return whyMovSS
		}
	}
	return ""
}

// x86Candidates are the first opcode bytes a rule names: INT3, INT n,
// INTO, INT1, IRET, far CALL and JMP, group 5 (FF), MOV to Sreg, POP SS
// and the 0F escape, of which x86Candidates0F names the second bytes
// (group 7 for VMX, UD2, UD1, UD0).
var (
	x86Candidates = [256]bool{0xcc: true, 0xcd: true, 0xce: true, 0xf1: true, 0xcf: true,
		0x9a: true, 0xea: true, 0xff: true, 0x8e: true, 0x17: true, 0x0f: true}
	x86Candidates0F = [256]bool{0x01: true, 0x0b: true, 0xb9: true, 0xff: true}
)

// x86Opcode returns code from its opcode on, past the legacy and REX
// prefixes, as the kernel's decoder reads opcode.bytes. VEX and EVEX
// instructions start with C4, C5 or 62, which no rule names.
func x86Opcode(code []byte) []byte {
	i := 0
	for i < len(code) && i < maxX86Insn && bytes.IndexByte(x86LegacyPrefixes, code[i]) >= 0 {
		i++
	}
	if i < len(code) && code[i]&0xf0 == 0x40 { // REX
		i++
	}
	return code[i:]
}

// x86LegacyPrefixes are the legacy prefix bytes: segment overrides,
// operand and address size, LOCK, REPNE and REP.
var x86LegacyPrefixes = []byte{0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3}

// x86RawRefusal applies the rules to the opcode bytes of an encoding
// x86asm does not decode: those invalid in 64-bit mode that the kernel's
// decoder still takes as one-byte instructions (9A, EA, 17, CE), the VMX
// group (VMCALL and the rest), FF /3 and /5 with a register operand, UD0
// without a ModRM byte.
func x86RawRefusal(op []byte, intUD bool) string {
	modrm := func(reg byte) bool { return len(op) > 1 && (op[1]>>3)&7 == reg }
	switch op[0] {
	case 0x9a, 0xea:
		return whyFar
	case 0x17:
		return whyMovSS
	case 0x8e:
		if modrm(2) {
			return whyMovSS
		}
	case 0xcc:
		return whyINT3
	case 0xcf:
		return whyIRET
	case 0xcd, 0xce, 0xf1:
		if intUD {
			return fmt.Sprintf("x86: INT (%02X)", op[0]) + whyIntUD
		}
	case 0xff:
		if modrm(3) || modrm(5) {
			return whyFar
		}
	case 0x0f:
		switch {
		case len(op) > 2 && op[1] == 0x01 && op[2] >= 0xc0 && op[2] <= 0xc7:
			return whyVMX
		case len(op) > 1 && op[1] != 0x01 && intUD:
			return fmt.Sprintf("x86: UD (0F %02X)", op[1]) + whyIntUD
		}
	}
	return ""
}

// x86Text reads the executable sections of an x86-64 object for the
// instruction rules.
type x86Text struct {
	at func(section string, addr uint64) ([]byte, uint64, bool)
}

func newX86Text(f *elfobj.File) *x86Text { return &x86Text{at: sectionText(f)} }

// maxX86Insn is MAX_INSN_SIZE: the longest x86 instruction.
const maxX86Insn = 15

// code returns up to maxX86Insn bytes at addr and the up to
// emulatePrefixLen bytes before it.
func (t *x86Text) code(section string, addr uint64) (before, at []byte) {
	d, off, ok := t.at(section, addr)
	if !ok {
		return nil, nil
	}
	return d[off-min(off, emulatePrefixLen) : off], d[off:min(uint64(len(d)), off+maxX86Insn)]
}

// sectionText returns a reader of f's executable sections: for an
// address (a linked image) or a section and offset (a module), the
// section's bytes and the offset in them. Sections are read whole on
// first use.
func sectionText(f *elfobj.File) func(section string, addr uint64) ([]byte, uint64, bool) {
	var mu sync.Mutex
	cache := map[*elf.Section][]byte{}
	addrs := func(i int) uint64 { return f.Sections[i].Addr }
	return func(section string, addr uint64) ([]byte, uint64, bool) {
		var sec *elf.Section
		off := addr
		if f.Type == elf.ET_REL {
			for _, s := range f.Sections {
				if s.Name == section && s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
					sec = s
					break
				}
			}
		} else if i, o, ok := execSectionAt(f.File, addrs, addr, 1); ok {
			sec, off = f.Sections[i], o
		}
		if sec == nil {
			return nil, 0, false
		}
		mu.Lock()
		d, ok := cache[sec]
		if !ok {
			d, _ = f.Range(sec, 0, sec.Size)
			cache[sec] = d
		}
		mu.Unlock()
		if off >= uint64(len(d)) {
			return nil, 0, false
		}
		return d, off, true
	}
}

// checkX86 applies the x86-64 instruction rules at addr.
func (r *Rules) checkX86(section string, addr uint64) string {
	before, code := r.x86.code(section, addr)
	if len(code) == 0 {
		return ""
	}
	if inEmulatePrefix(before) {
		return whyNotBoundary
	}
	key := ""
	if r.rel {
		key = section
	}
	return X86Refusal(code, r.kver, r.flow.rewrittenAtBoot(key, addr))
}

// rewrittenAtBoot reports whether the instruction at addr is the start
// of a paravirt patch site or an alternative: code the kernel rewrites
// at boot.
func (fl *flow) rewrittenAtBoot(sec string, addr uint64) bool {
	if fl == nil {
		return false
	}
	fl.bootRegions()
	return covers(fl.boot[sec], addr, addr+1)
}

// setX86 turns on the x86-64 instruction rules for f, with the kernel
// version f names.
func (r *Rules) setX86(f *elfobj.File, markers map[string]uint64) {
	r.x86 = newX86Text(f)
	var ok bool
	if r.kver, ok = ELFKernelVersion(f, markers); !ok {
		r.Notes = append(r.Notes, "kernel version unknown (no linux_banner or vermagic): the x86 INT/UD rule of Linux 6.9 and later not checked")
	}
}

// KernelVersion returns the kernel version the rules apply (x86-64:
// read from the ELF; zero when unknown or not needed).
func (r *Rules) KernelVersion() KernelVersion { return r.kver }
