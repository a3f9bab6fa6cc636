package resolve

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/testutil"
)

// TestPatchSitesFixture: the jump-label, static-call and BUG() tables are
// read from the linked image (between __start_ and __stop_ markers) and,
// for the relocatable object, from the RELA relocations of the same
// tables; both must refuse exactly the three sites whose first
// instruction is patched.
func TestPatchSitesFixture(t *testing.T) {
	want := map[string]string{
		"tick+0x0":   "jump label patch site",
		"run+0x0":    "static call site",
		"check+0x17": "BUG() trap",
	}
	for _, obj := range []string{"patch.elf", "patch.o"} {
		t.Run(obj, func(t *testing.T) {
			var base []string
			if strings.HasSuffix(obj, ".o") {
				base = []string{fixture("patch.elf")}
			}
			sites, marks := fixtureSites(t, obj, base, 8)
			for i, s := range sites {
				where := fmt.Sprintf("%s+%#x", s.Caller, s.CallerOff)
				if got := marks[i].NoTrace; got != want[where] {
					t.Errorf("%s (%s): notrace %q, want %q", where, s.Func.Name, got, want[where])
				}
			}
		})
	}
}

// fixtureSites opens a resolve/testdata object on bases and returns its
// sites with their refusal reasons, failing unless there are n.
func fixtureSites(t *testing.T, obj string, bases []string, n int) ([]site.Site, []site.Marks) {
	t.Helper()
	tg, err := Open(Options{File: fixture(obj), Bases: bases})
	if err != nil {
		t.Fatal(err)
	}
	sites, marks, err := tg.Sites()
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != n {
		t.Fatalf("%s: %d sites, want %d", obj, len(sites), n)
	}
	return sites, marks
}

// TestDeadWeakFixture: the inline site in a __weak definition that
// another object overrides has no symbol around it and is marked dead
// code; the same inline function in a live function is not.
func TestDeadWeakFixture(t *testing.T) {
	sites, marks := fixtureSites(t, "weak.elf", nil, 2)
	for i, s := range sites {
		want := ""
		if s.Caller == "" {
			want = kprobe.DeadCodeReason
		}
		if marks[i].NoTrace != want {
			t.Errorf("%#x in %q: notrace %q, want %q", s.Addr, s.Caller, marks[i].NoTrace, want)
		}
	}
	if sites[0].Caller != "" || sites[1].Caller != "live" {
		t.Errorf("callers %q, %q; want none (dead weak hook) and live", sites[0].Caller, sites[1].Caller)
	}
}

// TestKernelModulePatchSites: on the Debian modules, every inline site
// refused as a patch site starts with the instruction the table says
// (objdump of the .ko's section), and each table's entries were all read.
func TestKernelModulePatchSites(t *testing.T) { forKernels(t, checkModulePatchSites) }

func checkModulePatchSites(t *testing.T, k testutil.Kernel, vmlinux string) {
	want := patchInsns[k.Arch]
	for _, m := range k.Modules() {
		t.Run(m, func(t *testing.T) {
			ko := filepath.Join(k.Dir, "modules", m+".ko")
			inl := encodeModule(t, vmlinux, ko)
			tg, err := Open(Options{File: inl, Bases: []string{vmlinux, ko}})
			if err != nil {
				t.Fatal(err)
			}
			// Every table entry became a point.
			entries := map[string]int{}
			for sec, pts := range tg.Rules.PatchSites() {
				for _, p := range pts {
					if tg.elf.Section(sec) == nil {
						t.Errorf("point in unknown section %q", sec)
					}
					entries[p.Reason]++
				}
			}
			for name, why := range map[string]string{"__jump_table": "jump label patch site", ".static_call_sites": "static call site", "__bug_table": "BUG() trap"} {
				s := tg.elf.Section(name)
				if s == nil {
					continue
				}
				n := int(s.Size / map[string]uint64{"__jump_table": 16, ".static_call_sites": 8, "__bug_table": 12}[name])
				// Entries pointing at non-code (e.g. .init.text is code too) all count.
				if entries[why] != n {
					t.Errorf("%s: %d entries, %d points", name, n, entries[why])
				}
			}
			sites, marks, err := tg.Sites()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for i := range sites {
				why := marks[i].NoTrace
				ok := want[why]
				if ok == nil {
					continue
				}
				seen[why]++
				s := &sites[i]
				sec := tg.elf.Section(s.Section)
				if sec == nil {
					t.Fatalf("site in unknown section %s", s.Section)
				}
				// A module's sections are at 0: decode at the offset.
				if op := decodeAt(t, &elf.File{FileHeader: tg.elf.FileHeader, Sections: []*elf.Section{sec}}, k.Arch, sec.Addr+s.SectionOff); !slices.Contains(ok, op) {
					t.Errorf("%s at %s+%#x: %s there", why, s.Section, s.SectionOff, op)
				}
			}
			// The big modules have jump labels and BUG()s in inline code.
			if (m == "xfs" || m == "nf_tables") && seen["jump label patch site"]+seen["BUG() trap"] == 0 {
				t.Errorf("no inline site of %s refused as a patch site: %v", m, seen)
			}
			t.Logf("table entries %v; refused inline sites %v", entries, seen)
		})
	}
}

// TestBarriersFixture: the instructions a probe moved past an inline
// expansion's entry pc must not reach (kprobe.Rules.Barrier) are read
// from the same tables, in the linked image and in the relocatable
// object: the jump label's NOP and the label it jumps to, the static
// call and the BUG() trap; the plain instructions after each are none.
func TestBarriersFixture(t *testing.T) {
	// Offsets from each function's start (tick, run, check are at the
	// same offsets in both objects) and instruction lengths.
	cases := []struct {
		fn       string
		off, len uint64
		barrier  bool
	}{
		{"tick", 0x0, 5, true},   // jump label NOP
		{"tick", 0x5, 10, false}, // movl
		{"tick", 0x10, 6, true},  // the jump label's target (l_yes)
		{"tick", 0x16, 10, false},
		{"run", 0x0, 5, true}, // static call
		{"run", 0x5, 6, false},
		{"check", 0x17, 2, true}, // ud2 in __bug_table
		{"check", 0x6, 6, false},
	}
	for _, obj := range []string{"patch.elf", "patch.o"} {
		t.Run(obj, func(t *testing.T) {
			f, err := elfobj.Open(fixture(obj))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rules, err := kprobe.ForELF(f)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			start := map[string]uint64{}
			for _, s := range syms {
				start[s.Name] = s.Value
			}
			for _, c := range cases {
				a := start[c.fn] + c.off
				if got := rules.Barrier(".text", a, a+c.len); got != c.barrier {
					t.Errorf("%s+%#x: Barrier %v, want %v", c.fn, c.off, got, c.barrier)
				}
			}
		})
	}
}
