package kprobe

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/elfobj"
)

// x86Cases are the functions of testdata/x86insn.S and what a kprobe on
// each one's first byte gets, on 6.1 and on 6.12 (a substring of the
// refusal; "" for none).
var x86Cases = []struct {
	fn, want61, want612 string
	off                 uint64 // probe offset in fn
}{
	{"plain_mov", "", "", 0},
	{"plain_ret", "", "", 0},
	{"int3", "INT3", "INT3", 0},
	{"int_n", "", "INT n is refused from Linux 6.9", 0},
	{"into", "", "INT (CE) is refused from Linux 6.9", 0},
	{"int1", "", "ICEBP is refused from Linux 6.9", 0},
	{"ud0", "", "UD0 is refused from Linux 6.9", 0},
	{"ud1", "", "UD1 is refused from Linux 6.9", 0},
	{"ud2", "", "UD2 is refused from Linux 6.9", 0},
	{"iretq", "IRET", "IRET", 0},
	{"lcall_abs", "far CALL/JMP", "far CALL/JMP", 0},
	{"ljmp_abs", "far CALL/JMP", "far CALL/JMP", 0},
	{"lcall_ind", "far CALL/JMP", "far CALL/JMP", 0},
	{"ljmp_ind", "far CALL/JMP", "far CALL/JMP", 0},
	{"call_mem", "through memory", "through memory", 0},
	{"jmp_mem", "through memory", "through memory", 0},
	{"call_reg", "", "", 0},
	{"jmp_reg", "", "", 0},
	{"call_addr32", "address-size prefix", "address-size prefix", 0},
	{"vmcall", "VMX", "VMX", 0},
	{"vmlaunch", "VMX", "VMX", 0},
	{"rdtscp", "", "", 0},
	{"mov_ss", "MOV to SS", "MOV to SS", 0},
	{"pop_ss", "MOV to SS", "MOV to SS", 0},
	{"xen_cpuid", "forced-emulation prefix", "forced-emulation prefix", 0},
	{"kvm_cpuid", "forced-emulation prefix", "forced-emulation prefix", 0},
	// The CPUID behind the prefix: inside the kernel's instruction.
	{"xen_cpuid", "not an instruction boundary", "not an instruction boundary", 5},
	// A paravirt patch site: a direct call once the kernel has booted.
	{"call_pv", "", "", 0},
	// Padding before a function: a symbol of its own in kallsyms, which
	// kprobes refuse (not dead code); the function after it is fine.
	{"__pfx_padded", "function padding (__pfx_padded)", "function padding (__pfx_padded)", 4},
	{"padded", "", "", 0},
}

// TestX86RulesFixture checks Rules.Check on the x86insn fixture as a
// linked image of each kernel version and as a 6.12 module, whose
// version comes from linux_banner or vermagic.
func TestX86RulesFixture(t *testing.T) {
	for _, obj := range []struct {
		file string
		v    KernelVersion
	}{
		{"x86insn-6.1.elf", KernelVersion{6, 1}},
		{"x86insn-6.12.elf", KernelVersion{6, 12}},
		{"x86insn-6.12.o", KernelVersion{6, 12}},
	} {
		t.Run(obj.file, func(t *testing.T) {
			f, r := openRules(t, filepath.Join("testdata", obj.file))
			if got := r.KernelVersion(); got != obj.v {
				t.Fatalf("kernel version %v, want %v", got, obj.v)
			}
			start := funcAddrs(t, f)
			for _, c := range x86Cases {
				want := c.want612
				if obj.v == (KernelVersion{6, 1}) {
					want = c.want61
				}
				a, ok := start[c.fn]
				if !ok {
					t.Fatalf("no function %s", c.fn)
				}
				name := c.fn
				if c.off != 0 {
					name = fmt.Sprintf("%s+%#x", c.fn, c.off)
				}
				t.Run(name, func(t *testing.T) {
					f := r.Check(".text", a+c.off, c.fn)
					got := f.String()
					if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
						t.Errorf("Check = %q, want %q", got, want)
					}
					// The rule behind it: the padding's, or the instruction's.
					rule := Instruction
					switch {
					case want == "":
						rule = Allowed
					case strings.HasPrefix(want, "function padding"):
						rule = Padding
					}
					if f.Rule != rule || f.OK() != (rule == Allowed) {
						t.Errorf("Check's rule = %v, want %v", f.Rule, rule)
					}
				})
			}
		})
	}
}

// funcAddrs maps f's function symbols to their addresses.
func funcAddrs(t *testing.T, f *elfobj.File) map[string]uint64 {
	t.Helper()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			at[s.Name] = s.Value
		}
	}
	return at
}

// openRules opens an ELF and reads its rules, closing it when t ends.
func openRules(t *testing.T, path string) (*elfobj.File, *Rules) {
	t.Helper()
	f, err := elfobj.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := ForELF(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

func TestX86Refusal(t *testing.T) {
	v61, v612 := KernelVersion{6, 1}, KernelVersion{6, 12}
	for _, tc := range []struct {
		name, code string
		v          KernelVersion
		pv         bool
		want       string
	}{
		{"int3 with a prefix", "66cc", v61, false, "INT3"},
		{"ud2 on 6.9", "0f0b", KernelVersion{6, 9}, false, "UD2"},
		{"ud2 on 6.8", "0f0b", KernelVersion{6, 8}, false, ""},
		{"ud2, version unknown", "0f0b", KernelVersion{}, false, ""},
		{"int3, version unknown", "cc", KernelVersion{}, false, "INT3"},
		{"ud0 without ModRM", "0fff", v612, false, "UD (0F FF)"},
		{"far call FF /3 register form", "ffd8", v61, false, "far CALL/JMP"},
		{"call through pv_ops, boot-patched", "ff1500000000", v61, true, ""},
		{"call through pv_ops, not patched", "ff1500000000", v61, false, "through memory"},
		{"call *%r11", "41ffd3", v612, false, ""},
		{"vmresume with REX", "400f01c3", v61, false, "VMX"},
		{"lgdt (0F 01 /2 memory)", "0f0110", v612, false, ""},
		{"mov %ss,%eax (from SS)", "8cd0", v612, false, ""},
		{"vzeroupper (VEX)", "c5f877", v612, false, ""},
		{"empty", "", v612, false, ""},
		{"prefixes only", "6666666666666666666666666666666666", v612, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := hex.DecodeString(tc.code)
			if err != nil {
				t.Fatal(err)
			}
			got := X86Refusal(code, tc.v, tc.pv)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("X86Refusal(%s, %v) = %q, want %q", tc.code, tc.v, got, tc.want)
			}
		})
	}
}

func TestParseKernelRelease(t *testing.T) {
	for _, tc := range []struct {
		s  string
		v  KernelVersion
		ok bool
	}{
		{"6.12.117+deb13-cloud-amd64", KernelVersion{6, 12}, true},
		{"6.1.0-53-cloud-amd64 SMP mod_unload modversions ", KernelVersion{6, 1}, true},
		{"6.9", KernelVersion{6, 9}, true},
		{"5.15.0-91-generic", KernelVersion{5, 15}, true},
		{"6", KernelVersion{}, false},
		{"v6.1", KernelVersion{}, false},
		{"0.1", KernelVersion{}, false},
		{"6.x", KernelVersion{}, false},
		{"", KernelVersion{}, false},
	} {
		v, ok := ParseKernelRelease(tc.s)
		if v != tc.v || ok != tc.ok {
			t.Errorf("ParseKernelRelease(%q) = %v, %v; want %v, %v", tc.s, v, ok, tc.v, tc.ok)
		}
	}
}

// FuzzX86Refusal: any bytes, any version, either boot-patch state give a
// reason or none, never a panic; the reason does not depend on bytes
// past the longest instruction; a release string parses or is refused.
func FuzzX86Refusal(f *testing.F) {
	for _, c := range []string{"cc", "0f0b", "0f0b78656e0fa2", "ff1500000000", "67ffd0", "0f01c1", "8ed0", "17", "9a010203040506", "c5f877", "f3f3f3f30f"} {
		b, _ := hex.DecodeString(c)
		f.Add(b, uint8(6), uint8(12), false, "6.12.117+deb13-cloud-amd64")
	}
	f.Fuzz(func(t *testing.T, code []byte, major, minor uint8, patched bool, release string) {
		v := KernelVersion{int(major), int(minor)}
		why := X86Refusal(code, v, patched)
		if why != "" && !strings.HasPrefix(why, "x86: ") {
			t.Fatalf("reason %q", why)
		}
		if len(code) > maxX86Insn+emulatePrefixLen {
			if got := X86Refusal(code[:maxX86Insn+emulatePrefixLen], v, patched); got != why {
				t.Fatalf("%x: %q, cut to %d bytes %q", code, why, maxX86Insn+emulatePrefixLen, got)
			}
		}
		inEmulatePrefix(code)
		if v, ok := ParseKernelRelease(release); ok != v.Known() {
			t.Fatalf("ParseKernelRelease(%q) = %v, %v", release, v, ok)
		}
	})
}
