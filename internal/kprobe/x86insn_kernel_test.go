package kprobe

import (
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/testutil"
)

// TestKernelX86InsnRules: on the Debian x86-64 kernels the version comes
// from linux_banner and each module's vermagic, and the x86 instruction
// rules change the verdict of no inline site of vmlinux (as sites --dwarf
// --traceable reads them): the compiler puts no INT, UD, IRET, far or VMX
// instruction at a site that another rule does not refuse already (UD2s
// are BUG() traps). The one rule that would refuse sites, the indirect
// call through memory, meets only paravirt calls through pv_ops, which
// the kernel makes direct calls at boot; without that exception it
// would refuse them.
func TestKernelX86InsnRules(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		if k.Arch != "x86_64" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			for _, m := range k.Modules() {
				_, r := openRules(t, k.Module(m))
				if got := r.KernelVersion().String(); got != k.Release {
					t.Errorf("%s: kernel version %s, want %s", m, got, k.Release)
				}
			}
			f, r := openRules(t, k.Vmlinux())
			if got := r.KernelVersion().String(); got != k.Release {
				t.Fatalf("vmlinux: kernel version %s, want %s", got, k.Release)
			}
			if k.Release == "6.12" {
				// 6.12 pads each function: 4 bytes into do_one_initcall's
				// __pfx_ symbol is refused as such.
				fn := r.syms.ByName("do_one_initcall")
				if len(fn) != 1 {
					t.Fatalf("do_one_initcall: %d symbols", len(fn))
				}
				if got := r.Check(".text", fn[0].Addr-12, "?"); got.Rule != Padding || !strings.Contains(got.Detail, "function padding (__pfx_do_one_initcall)") {
					t.Errorf("do_one_initcall-12: %q, want function padding", got)
				}
			}
			x, err := dwarfsite.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.Sites(dwarfsite.Options{Text: r, ProbePoint: dwarfsite.ProbeBlock})
			if err != nil {
				t.Fatal(err)
			}
			without := *r
			without.x86 = nil
			changed, waived := 0, map[uint64]bool{}
			for _, s := range res.Sites {
				got, old := r.Check(s.Section, s.Addr, s.Caller).String(), without.Check(s.Section, s.Addr, s.Caller).String()
				if got != old {
					changed++
					if changed <= 10 {
						t.Errorf("%s+%#x (%s): %q, without the x86 rules %q", s.Caller, s.CallerOff, s.Func.Name, got, old)
					}
				}
				if _, code := r.x86.code("", s.Addr); got == "" && X86Refusal(code, r.kver, false) != "" {
					waived[s.Addr] = true
				}
			}
			if changed > 0 {
				t.Errorf("%d of %d sites change verdict", changed, len(res.Sites))
			}
			if len(waived) == 0 {
				t.Error("no paravirt call at a site: the boot-patch exception is not exercised")
			}
			t.Logf("%d sites, %d change verdict; at %d addresses an indirect call through pv_ops is let through", len(res.Sites), changed, len(waived))
		})
	}
}
