package kprobe

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/testutil"
)

// runningRoot is a fake running kernel: kallsyms naming fn at text, the
// text in /proc/kcore, and the kprobes registered now at armed.
func runningRoot(t *testing.T, text uint64, code []byte, armed ...uint64) (ksys.System, *ksym.Kallsyms) {
	t.Helper()
	root := t.TempDir()
	page := make([]byte, 4096)
	copy(page, code)
	testutil.WriteKcore(t, filepath.Join(root, "proc/kcore"), testutil.KcoreSegment{Addr: text, Data: page})
	ks := fmt.Sprintf("%016x T _stext\n%016x T fn\n%016x T after\n", text, text, text+0x800)
	write := func(p, s string) {
		p = filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/kallsyms", ks)
	write("proc/sys/kernel/osrelease", "6.12.117+deb13-cloud-amd64\n")
	var l strings.Builder
	for _, a := range armed {
		fmt.Fprintf(&l, "%016x  k  fn+0x%x\n", a, a-text)
	}
	write("sys/kernel/debug/kprobes/list", l.String())
	sys := ksys.System{Root: root}
	k, err := sys.Kallsyms()
	if err != nil {
		t.Fatal(err)
	}
	return sys, k
}

// runningCase is one address of a fake running kernel's text: want is a
// part of the refusal, "" when the rules allow it.
type runningCase struct {
	name  string
	addr  uint64
	armed []uint64
	want  string
}

func checkRunning(t *testing.T, a arch.Arch, text uint64, code []byte, cases []runningCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys, k := runningRoot(t, text, code, c.armed...)
			r, err := RunningRules(sys, k, a, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range r.Notes {
				if strings.Contains(n, "instruction rules") {
					t.Errorf("note with kcore readable: %s", n)
				}
			}
			got := r.ForSyms(k.SymTab("")).Check("", c.addr, "fn")
			if c.want == "" && !got.OK() || c.want != "" && !strings.Contains(got.Detail, c.want) {
				t.Errorf("Check(%#x) = %q, want %q", c.addr, got.Detail, c.want)
			}
		})
	}
}

// With /proc/kcore readable, the running kernel's rules decode the text
// the kernel has, as they do a vmlinux's; where a kprobe is registered
// now, the text is its breakpoint and the rules leave it to the kernel.
func TestRunningRulesKcore(t *testing.T) {
	const text = 0xffff_8000_8001_0000
	t.Run("arm64", func(t *testing.T) {
		var code []byte
		for _, w := range []uint32{0x885f7c01, 0xd503201f, 0xd503201f, 0xd50342df, 0xd503201f} { // ldxr w1, [x0]; nop; nop; msr daifset, #2; nop
			code = binary.LittleEndian.AppendUint32(code, w)
		}
		checkRunning(t, arch.ARM64, text, code, []runningCase{
			{"after a load-exclusive", text + 8, nil, "exclusive"},
			{"MSR", text + 12, nil, "MSR"},
			{"a kprobe there already", text + 8, []uint64{text + 8}, ""},
			{"a kprobe at another place", text + 8, []uint64{text + 4}, "exclusive"},
			{"outside the text", text + 4096, nil, ""},
		})
	})
	t.Run("x86-64", func(t *testing.T) {
		code := []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xcc, 0x90, 0x0f, 0x0b} // nops; int3; nop; ud2
		checkRunning(t, arch.X86_64, text, code, []runningCase{
			{"INT3", text + 8, nil, "INT3"},
			{"UD2 on 6.12", text + 10, nil, "UD2"},
			{"NOP", text + 9, nil, ""},
			{"a kprobe there already", text + 8, []uint64{text + 8}, ""},
			{"an optimized kprobe's jump over it", text + 10, []uint64{text + 7}, ""},
			{"a kprobe after it", text + 8, []uint64{text + 9}, "INT3"},
		})
	})
	for _, c := range []struct{ name, remove, note string }{
		{"no kcore", "proc/kcore", "through /proc/kcore (no such file or directory)"},
		{"no kprobes list", "sys/kernel/debug/kprobes/list", "kprobes/list, which says where other kprobes' breakpoints are, is unreadable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys, k := runningRoot(t, text, []byte{0xcc})
			os.Remove(filepath.Join(sys.Root, c.remove))
			r, err := RunningRules(sys, k, arch.X86_64, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q do not say %q", r.Notes, c.note)
			}
			if got := r.ForSyms(k.SymTab("")).Check("", text, "fn"); !got.OK() {
				t.Errorf("instruction rules applied without what they need: %q", got.Detail)
			}
		})
	}
}
