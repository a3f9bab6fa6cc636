package resolve

import (
	"bytes"
	"debug/elf"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/testutil"
)

// TestRelCFAVsLinked: the CFA of a relocatable object (relocated
// .debug_frame, package sframe/cfi) equals the CFA of the same code linked
// (.debug_frame of the ELF, read through delve's parser) at every byte of
// every function.
func TestRelCFAVsLinked(t *testing.T) {
	for _, arch := range fixtureArchs {
		t.Run(arch, func(t *testing.T) {
			rel, err := Open(Options{File: fixture(arch + ".o"), Bases: []string{fixture(arch + ".elf")}})
			if err != nil {
				t.Fatal(err)
			}
			lnk, err := Open(Options{File: fixture(arch + ".elf")})
			if err != nil {
				t.Fatal(err)
			}
			if rel.CFA == nil || lnk.CFA == nil {
				t.Fatal("no CFA function")
			}
			checked := 0
			syms, err := rel.elf.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
					continue
				}
				sec := rel.elf.Sections[s.Section].Name
				l := lnk.Syms.ByName(s.Name)
				if len(l) != 1 {
					t.Fatalf("%s: %d linked symbols", s.Name, len(l))
				}
				for off := uint64(0); off < s.Size; off++ {
					site := siteAt(sec, s.Value+off)
					r1, o1, ok1 := rel.CFA(rel.cfaPC(&site))
					r2, o2, ok2 := lnk.CFA(l[0].Addr + off)
					if r1 != r2 || o1 != o2 || ok1 != ok2 {
						t.Fatalf("%s+%#x: relocatable %d%+d %v, linked %d%+d %v", s.Name, off, r1, o1, ok1, r2, o2, ok2)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("nothing checked")
			}
			t.Logf("%d pcs agree", checked)
		})
	}
}

// TestKernelModuleFBReg: with the module's .debug_frame, every site
// parameter at DW_OP_fbreg becomes a stack fetch.
func TestKernelModuleFBReg(t *testing.T) { forKernels(t, checkModuleFBReg) }

func checkModuleFBReg(t *testing.T, k testutil.Kernel, vmlinux string) {
	// fuse is built into 6.12, overlay stands in for it there.
	for _, m := range k.Modules() {
		if m != "virtio_net" && m != "fuse" && m != "overlay" {
			continue
		}
		t.Run(m, func(t *testing.T) {
			ko := k.Module(m)
			inl := encodeModule(t, vmlinux, ko)
			tg, err := Open(Options{File: inl, Bases: []string{vmlinux, ko}})
			if err != nil {
				t.Fatal(err)
			}
			sites, _, err := tg.Sites()
			if err != nil {
				t.Fatal(err)
			}
			ok, bad := 0, 0
			for i := range sites {
				s := &sites[i]
				for _, l := range s.Params {
					if l.Reg != 0xffffffff || l.Kind == 0 {
						continue
					}
					if _, _, found := tg.CFA(tg.cfaPC(s)); found {
						ok++
					} else {
						bad++
						t.Errorf("%s+%#x (%s): no CFA", s.Caller, s.CallerOff, s.Func.Name)
					}
				}
			}
			if ok == 0 {
				t.Error("no fbreg parameter")
			}
			t.Logf("%d fbreg parameters with a CFA, %d without", ok, bad)
		})
	}
}

func siteAt(sec string, off uint64) site.Site {
	return site.Site{Section: sec, SectionOff: off}
}

// encodeModule writes the .BTF.inline of module ko with "btfinline encode".
func encodeModule(t *testing.T, vmlinux, ko string) string {
	t.Helper()
	inl := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(ko), ".ko")+".inline")
	// At the entry pcs, which the comparisons with perf need.
	cmd := exec.Command("go", "run", "./cmd/btfinline", "encode", ko, "-B", vmlinux, "-o", inl, "-q", "--probe-point", "entry")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("encode: %v\n%s", err, out)
	}
	return inl
}

var regOffset = regexp.MustCompile(`value is %\w+[+-]\d+`)

// TestKernelModuleFBRegVsPerf: in virtio_net, every argument at a
// DW_OP_fbreg location that perf probe also fetches is fetched at the
// same stack slot (perf computes the CFA from the .ko's .debug_frame too).
func TestKernelModuleFBRegVsPerf(t *testing.T) { forKernels(t, checkModuleFBRegVsPerf) }

func checkModuleFBRegVsPerf(t *testing.T, k testutil.Kernel, vmlinux string) {
	perf := testutil.SystemTool(t, "perf")
	ko := filepath.Join(k.Dir, "modules", "virtio_net.ko")
	tg, err := Open(Options{File: encodeModule(t, vmlinux, ko), Bases: []string{vmlinux, ko}})
	if err != nil {
		t.Fatal(err)
	}
	sites, _, err := tg.Sites()
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	for _, s := range sites {
		for _, l := range s.Params {
			if l.Reg == site.FBReg && l.Kind != site.LocUnavailable {
				funcs[s.Func.Name] = true
			}
		}
	}
	same, differ, perfOnly, perfRefused, stackValue := 0, 0, 0, 0, 0
	var perfCrashed []string
	perfOnlyWhy := map[string]int{}
	for _, fn := range slices.Sorted(maps.Keys(funcs)) {
		r, err := tg.Resolve(fn, nil)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(perf, "probe", "-k", vmlinux, "-m", ko, "-D", fn+" $params", "--max-probes=4096")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			// perf refuses a whole function when one of its sites has a
			// parameter it cannot locate: a named perf failure, counted.
			if strings.Contains(stderr.String(), "Failed to find the location of the '$params' variable") {
				perfRefused++
				continue
			}
			// Debian 12's perf (6.1) dies of SIGSEGV reading some of
			// Debian 13's arm64 virtio_net.ko: named and counted.
			if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				perfCrashed = append(perfCrashed, fn+" ("+st.Signal().String()+")")
				continue
			}
			t.Errorf("perf probe -m virtio_net -D %s: %v\n%s", fn, err, stderr.String())
			continue
		}
		theirs := map[string]map[string]string{} // "sym+dec" -> name -> fetch
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || !strings.HasPrefix(f[0], "p:") {
				continue
			}
			args := map[string]string{}
			for _, a := range f[2:] {
				name, fetch, _ := strings.Cut(a, "=")
				if i := strings.LastIndexByte(fetch, ':'); i > 0 {
					fetch = fetch[:i]
				}
				args[name] = fetch
			}
			theirs[strings.TrimPrefix(f[1], "virtio_net:")] = args
		}
		for _, p := range r.Places {
			args, ok := theirs[fmt.Sprintf("%s+%d", p.Caller, p.CallerOff)]
			if !ok && p.CallerOff == 0 {
				args, ok = theirs[p.Caller]
			}
			if !ok {
				continue
			}
			for _, f := range p.Fetches {
				if !strings.Contains(f.Loc, "fbreg") {
					continue
				}
				want, has := args[f.Name]
				got := f.Arg
				if i := strings.LastIndexByte(got, ':'); i > 0 {
					got = got[:i]
				}
				switch {
				case !has:
				case got == "":
					// Ours says why; each reason is counted and written
					// down with the figures.
					perfOnly++
					perfOnlyWhy[regOffset.ReplaceAllString(f.Unavailable, "value is REG+OFF")]++
					if f.Unavailable == "" {
						t.Errorf("only perf: %s at %s+%#x: %s = %s; ours %s without a reason", fn, p.Caller, p.CallerOff, f.Name, want, f.Loc)
					}
				case got == want:
					same++
				case isStackValue(want, got, f):
					// perf dereferences a DW_OP_stack_value address
					// (the same class as in TestKernelResolveVsPerf).
					stackValue++
				default:
					differ++
					t.Errorf("%s at %s+%#x: %s = %s, perf %s (%s)", fn, p.Caller, p.CallerOff, f.Name, got, want, f.Loc)
				}
			}
		}
	}
	if same == 0 {
		t.Error("no fbreg argument compared")
	}
	fig := fmt.Sprintf("virtio_net: %d functions with frame-base arguments (perf refuses %d: a site where it cannot locate $params); fbreg arguments: %d equal to perf's, %d where perf dereferences a DW_OP_stack_value address, %d differ, %d only perf fetches\n", len(funcs), perfRefused, same, stackValue, differ, perfOnly)
	for _, why := range slices.Sorted(maps.Keys(perfOnlyWhy)) {
		fig += fmt.Sprintf("  only perf fetches, ours unavailable: %s: %d\n", why, perfOnlyWhy[why])
	}
	if len(perfCrashed) > 0 {
		fig += fmt.Sprintf("  perf crashes on %d: %s\n", len(perfCrashed), strings.Join(perfCrashed, ", "))
	}
	testutil.Figures(t, k, "module-fbreg-vs-perf.txt", fig)
}
