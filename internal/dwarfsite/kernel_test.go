package dwarfsite

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/dwarf"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/testutil"
)

// What llvm-dwarfdump --debug-info reports for the kernel builds:
// DW_TAG_inlined_subroutine entries and DW_TAG_formal_parameter entries
// directly under them (dwarfdumpCounts gives the same numbers; running it
// on a vmlinux takes minutes, so the numbers are kept here), and for the
// pinned 6.1 builds the number of inline sites perf probe finds for three
// functions. The 6.12 builds' are for the package version named (the
// archive replaces it): for another, llvm-dwarfdump counts live.
var kernelCounts = map[string]struct {
	version         string // "": the pinned build
	inlined, params int
	perf            map[string]int
}{
	"6.1-x86_64":  {"", 309946, 484717, map[string]int{"tcp_snd_cwnd_set": 20, "msecs_to_jiffies": 110, "kmalloc": 1814}},
	"6.1-arm64":   {"", 424906, 665748, map[string]int{"tcp_snd_cwnd_set": 18, "msecs_to_jiffies": 110, "kmalloc": 1857}},
	"6.12-x86_64": {"6.12.117-1", 383524, 633007, nil},
	"6.12-arm64":  {"6.12.117-1", 558827, 894662, nil},
}

// perfFuncs are the functions whose sites are compared with perf's on
// every kernel (on a pinned one, with the counts written down).
var perfFuncs = []string{"tcp_snd_cwnd_set", "msecs_to_jiffies", "kmalloc", "kmalloc_noprof"}

func TestKernelVmlinux(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) { checkKernelVmlinux(t, k) })
	}
}

func checkKernelVmlinux(t *testing.T, k testutil.Kernel) {
	want, known := kernelCounts[k.Name]
	vmlinux := filepath.Join(k.Dir, "vmlinux")
	if !known || want.version != "" && want.version != k.Version() {
		// Another build than the one written down: llvm-dwarfdump
		// counts live.
		want.inlined, want.params = dwarfdumpCounts(t, vmlinux)
	}
	res, err := ReadFile(vmlinux, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &res.Stats
	if st.Entries != want.inlined || st.ParamEntries != want.params {
		t.Errorf("read %d inlined subroutines / %d parameters, llvm-dwarfdump %d / %d",
			st.Entries, st.ParamEntries, want.inlined, want.params)
	}
	if st.Sites+st.NoAddress != st.Entries {
		t.Errorf("%d sites + %d without address != %d", st.Sites, st.NoAddress, st.Entries)
	}
	if st.Warnings != 0 {
		t.Errorf("%d warnings: %q", st.Warnings, res.Warnings)
	}
	var buf bytes.Buffer
	WriteStats(&buf, st)
	// At the entry pcs (perf's, compared below); cmd's
	// TestKernelSitesStats writes the default, block probe points.
	testutil.Figures(t, k, "sites-dwarf-entry-vmlinux.txt", buf.String())

	t.Run("perf", func(t *testing.T) {
		perf := testutil.SystemTool(t, "perf")
		f, err := elf.Open(vmlinux)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		syms, err := f.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		byName := make(map[string][]uint64)
		for _, s := range syms {
			byName[s.Name] = append(byName[s.Name], s.Value)
		}
		perfMeant := testutil.PerfAddrs(t, vmlinux)
		compared := 0
		defer func() {
			if compared == 0 {
				t.Error("no site compared with perf's")
			}
		}()
		for _, fn := range perfFuncs {
			ours := make(map[uint64]bool)
			for i := range res.Sites {
				if s := &res.Sites[i]; s.Func.Name == fn {
					ours[s.Addr] = true
				}
			}
			// perf also lists an out-of-line copy of the function
			// itself (arm64 has one of tcp_snd_cwnd_set): not a site.
			var theirs [][]uint64
			for _, cands := range perfProbeAddrs(t, perf, vmlinux, fn, byName, perfMeant) {
				if len(cands) == 1 && slices.Contains(byName[fn], cands[0]) {
					continue
				}
				theirs = append(theirs, cands)
			}
			n, ok := want.perf[fn]
			if !ok {
				n = len(theirs)
			}
			if len(theirs) != n || len(ours) != n || ok && n == 0 {
				t.Errorf("%s: perf %d sites, ours %d, want %d", fn, len(theirs), len(ours), n)
			}
			compared += n
			matched := 0
			for _, cands := range theirs {
				ok := false
				for _, a := range cands {
					if ours[a] {
						ok = true
					}
				}
				if ok {
					matched++
				} else {
					t.Errorf("%s: perf probe at %v not among our sites", fn, cands)
				}
			}
			t.Logf("%s: %d perf probe addresses, %d of our sites, %d matched", fn, len(theirs), len(ours), matched)
		}
	})
}

var perfProbeRE = regexp.MustCompile(`^p:\S+ (\S+)`)

// perfProbeAddrs runs "perf probe -D" and converts each definition
// (SYM+OFF with a decimal offset, or 0xADDR) to its candidate addresses
// (local symbols can share a name), each as perfMeant
// (testutil.PerfAddrs) says perf meant it.
func perfProbeAddrs(t *testing.T, perf, vmlinux, fn string, byName map[string][]uint64, perfMeant func(uint64) []uint64) [][]uint64 {
	t.Helper()
	cmd := exec.Command(perf, "probe", "-k", vmlinux, "-D", fn, "--max-probes=4096")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// A function the build does not have (6.12's kmalloc is a macro
		// over kmalloc_noprof): no sites, which ours must agree with.
		if strings.Contains(stderr.String(), "Probe point '"+fn+"' not found") {
			return nil
		}
		t.Fatalf("perf probe -D %s: %v\n%s", fn, err, stderr.String())
	}
	var res [][]uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := perfProbeRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		target := m[1]
		if a, err := strconv.ParseUint(strings.TrimPrefix(target, "0x"), 16, 64); err == nil && strings.HasPrefix(target, "0x") {
			res = append(res, []uint64{a})
			continue
		}
		name, off := target, "0"
		if i := strings.LastIndexByte(target, '+'); i > 0 {
			name, off = target[:i], target[i+1:]
		}
		o, err := strconv.ParseUint(off, 0, 64)
		if err != nil {
			t.Fatalf("perf target %q", target)
		}
		var cands []uint64
		for _, a := range byName[name] {
			cands = append(cands, a+o)
		}
		if len(cands) == 0 {
			// perf names functions by their DWARF name: the symbol of
			// a gcc clone carries a suffix (".constprop.0", ".isra.0").
			for n, as := range byName {
				if strings.HasPrefix(n, name+".") {
					for _, a := range as {
						cands = append(cands, a+o)
					}
				}
			}
		}
		if len(cands) == 0 {
			t.Fatalf("perf target %q: no symbol %s", target, name)
		}
		var meant []uint64
		for _, a := range cands {
			meant = append(meant, perfMeant(a)...)
		}
		res = append(res, meant)
	}
	return res
}

func TestKernelModules(t *testing.T) {
	var mods []string
	for _, k := range testutil.Kernels(t) {
		for _, m := range k.Modules() {
			mods = append(mods, filepath.Join(k.Dir, "modules", m+".ko"))
		}
	}
	for _, m := range mods {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(m)))+"/"+filepath.Base(m), func(t *testing.T) {
			res, err := ReadFile(m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Rel {
				t.Fatal("module not read as ET_REL")
			}
			inl, params := dwarfdumpCounts(t, m)
			if res.Stats.Entries != inl || res.Stats.ParamEntries != params {
				t.Errorf("read %d inlined subroutines / %d parameters, llvm-dwarfdump %d / %d",
					res.Stats.Entries, res.Stats.ParamEntries, inl, params)
			}
			if res.Stats.Warnings != 0 {
				t.Errorf("%d warnings: %q", res.Stats.Warnings, res.Warnings)
			}
			for i := range res.Sites {
				s := &res.Sites[i]
				if s.Section == "" || s.Caller == "" {
					t.Errorf("site without section or caller: %+v", s)
					break
				}
			}
			t.Logf("%d sites, %d parameters, %d located", res.Stats.Sites, res.Stats.Params, res.Stats.Located)
		})
	}
}

func TestKernelWorkersDeterministic(t *testing.T) {
	dir := testutil.KernelData(t)
	m := filepath.Join(dir, "modules", "xfs.ko")
	var first [32]byte
	for i, n := range []int{1, 2, 5} {
		res, err := ReadFile(m, Options{Workers: n})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		site.WriteJSON(&buf, res.Sites, site.FormatOptions{})
		WriteStats(&buf, &res.Stats)
		sum := sha256.Sum256(buf.Bytes())
		if i == 0 {
			first = sum
		} else if sum != first {
			t.Errorf("output with %d workers differs from 1 worker", n)
		}
	}
}

// TestKernelModulePerf compares the sites of every function inlined into
// a module (ET_REL, relocated by the reader) with "perf probe -m MOD -D",
// which prints MOD:SYMBOL+OFFSET (decimal) per site. Both are compared as
// section:offset (symbol names differ between aliases). perf does not look
// for instances inside an instance of the same function (or inside the
// function's own out-of-line copy), and lists the out-of-line copy itself
// at +0: those differences are expected and skipped.
func TestKernelModulePerf(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) { checkModulePerf(t, k.Dir) })
	}
}

func checkModulePerf(t *testing.T, dir string) {
	perf := testutil.SystemTool(t, "perf")
	base := func(name string) string {
		// perf prints DWARF names; symbols of gcc clones have suffixes.
		if i := strings.IndexByte(name, '.'); i > 0 {
			return name[:i]
		}
		return name
	}
	for _, mod := range []string{"tcp_bbr.ko", "virtio_net.ko"} {
		t.Run(mod, func(t *testing.T) {
			path := filepath.Join(dir, "modules", mod)
			res, err := ReadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			symLoc := make(map[string][]string) // base name -> "section:value"
			for _, s := range syms {
				if s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) {
					continue
				}
				n := base(s.Name)
				symLoc[n] = append(symLoc[n], f.Sections[s.Section].Name+":"+strconv.FormatUint(s.Value, 10))
			}
			// perf's -v offsets count from the DWARF entry of the
			// function, past arm64's two patchable-entry NOPs of ftrace.
			lowPC := make(map[string][]uint64)
			d, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			names := make(map[dwarf.Offset]string)
			type concrete struct {
				origin dwarf.Offset
				lo     uint64
			}
			var concretes []concrete // out-of-line copies of inline functions
			for r := d.Reader(); ; {
				e, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				if e == nil {
					break
				}
				if e.Tag != dwarf.TagSubprogram {
					continue
				}
				name, _ := e.Val(dwarf.AttrName).(string)
				names[e.Offset] = name
				// Each range start is a candidate entry (a hot/cold
				// split function has ranges); entryOf picks the one at
				// the symbol.
				ranges, err := d.Ranges(e)
				if err != nil {
					t.Fatal(err)
				}
				origin, isCopy := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
				for _, rg := range ranges {
					switch {
					case name != "":
						lowPC[name] = append(lowPC[name], rg[0])
					case isCopy:
						concretes = append(concretes, concrete{origin, rg[0]})
					}
				}
			}
			for _, c := range concretes {
				if n := names[c.origin]; n != "" {
					lowPC[n] = append(lowPC[n], c.lo)
				}
			}
			// entryOf gives the DWARF entries of symbol value v of name.
			entryOf := func(name string, v uint64) []uint64 {
				var out []uint64
				for _, lo := range lowPC[name] {
					if lo >= v && lo-v <= 8 {
						out = append(out, lo)
					}
				}
				return out
			}
			loc := func(sec string, off uint64) string { return sec + ":" + strconv.FormatUint(off, 10) }
			ours := make(map[string]map[string]bool)
			skipped := 0
			for i := range res.Sites {
				s := &res.Sites[i]
				if s.Outer == s.Func.Name || base(s.Caller) == s.Func.Name {
					skipped++
					continue
				}
				if ours[s.Func.Name] == nil {
					ours[s.Func.Name] = make(map[string]bool)
				}
				ours[s.Func.Name][loc(s.Section, s.SectionOff)] = true
			}
			total := 0
			for fn, set := range ours {
				// The addresses perf found in the DWARF (-v), not its
				// kprobe_events lines: perf 6.1 moves a 6.12 module's
				// .init.text and .exit.text sites 8 bytes past them when
				// it rewrites them for the module.
				out, err := exec.Command(perf, "probe", "-v", "-m", path, "-D", fn, "--max-probes=4096").CombinedOutput()
				if err != nil {
					t.Errorf("perf probe -D %s: %v\n%s", fn, err, out)
					continue
				}
				matched := make(map[string]bool)
				sc := bufio.NewScanner(bytes.NewReader(out))
				for sc.Scan() {
					target, ok := strings.CutPrefix(sc.Text(), "Probe point found: ")
					if !ok {
						continue
					}
					name, offs, _ := strings.Cut(target, "+")
					off, _ := strconv.ParseUint(offs, 10, 64)
					// The out-of-line copy, not an inline site.
					if base(name) == fn && off == 0 {
						continue
					}
					found := false
					for _, sl := range symLoc[base(name)] {
						sec, v, _ := strings.Cut(sl, ":")
						val, _ := strconv.ParseUint(v, 10, 64)
						for _, entry := range entryOf(base(name), val) {
							if k := loc(sec, entry+off); set[k] {
								matched[k], found = true, true
							}
						}
					}
					if !found {
						t.Errorf("%s: perf's site %s not among ours", fn, target)
					}
					total++
				}
				for k := range set {
					if !matched[k] {
						t.Errorf("%s: our site %s not in perf's", fn, k)
					}
				}
			}
			t.Logf("%s: %d functions, %d perf probe sites matched (%d sites inside an expansion or copy of the same function skipped)", mod, len(ours), total, skipped)
		})
	}
}

// TestKernelLaterFilter is TestLaterFilter on each kernel's vmlinux and
// xfs: the block probe point's sites with mayLocateLater's filter and
// without it must be the same (Text allowing every address: the filter
// does not depend on it).
func TestKernelLaterFilter(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		for _, f := range []string{"vmlinux", filepath.Join("modules", "xfs.ko")} {
			t.Run(k.Name+"/"+filepath.Base(f), func(t *testing.T) {
				checkLaterFilter(t, filepath.Join(k.Dir, f), Options{ProbePoint: ProbeBlock, Text: userText{}})
			})
		}
	}
}
