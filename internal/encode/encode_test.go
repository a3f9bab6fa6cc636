package encode

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/locsec"
	"github.com/btfinline/btfinline/internal/site"
	"github.com/btfinline/btfinline/internal/testutil"
)

// encodeFixture is an object of encode/testdata with its base chain.
type encodeFixture struct {
	name  string
	bases []string
}

var encodeFixtures = []encodeFixture{
	{"kern.elf", nil},
	{"kern.a64.elf", nil},
	{"mod.ko", []string{"kern.elf"}},
}

func fixturePath(name string) string { return filepath.Join("testdata", name) }

func TestEncodeFixtures(t *testing.T) {
	for _, fx := range encodeFixtures {
		t.Run(fx.name, func(t *testing.T) {
			var bases []string
			for _, b := range fx.bases {
				bases = append(bases, fixturePath(b))
			}
			r := checkEncode(t, fixturePath(fx.name), bases, []int{1, 2, 8})
			if r.Stats.BaseTypes != 0 {
				t.Errorf("%d types added although .BTF was made from the same DWARF", r.Stats.BaseTypes)
			}
			if fx.name == "kern.elf" && r.Stats.FuncsReused != 1 {
				t.Errorf("partially inlined function: %d FUNCs reused from .BTF, want 1", r.Stats.FuncsReused)
			}
		})
	}
}

// checkEncode encodes path with each worker count, requires identical
// bytes, and checks the output: it validates, loads in bpftool with the
// same number of types, dumps with our dump, and decodes back to every
// DWARF site with the same function, offset and locations.
func checkEncode(t *testing.T, path string, bases []string, workers []int) *Result {
	t.Helper()
	return checkEncodeOpts(t, path, Options{Bases: bases}, workers)
}

// checkEncodeOpts is checkEncode with options; the sites of functions the
// encoder skipped (Stats.SkippedFuncs) are left out of the round trip.
func checkEncodeOpts(t *testing.T, path string, o Options, workers []int) *Result {
	t.Helper()
	var r *Result
	for _, w := range workers {
		o.Workers = w
		rw, err := File(path, o)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			r = rw
		} else if !bytes.Equal(r.Data, rw.Data) {
			t.Fatalf("workers %d: output differs from workers %d", w, workers[0])
		}
	}
	o.Workers = workers[0]
	if again, err := File(path, o); err != nil || !bytes.Equal(again.Data, r.Data) {
		t.Fatalf("second run differs (err %v)", err)
	}
	t.Logf("%d sites, %d bytes, %.2f B/site, stats %+v", r.Stats.Sites, len(r.Data), float64(len(r.Data))/float64(max(1, r.Stats.Entries)), r.Stats)
	// The sites as the DWARF reader gives them, read again: the encoder
	// keeps only its compact form of them.
	ro := dwarfsite.Options{ExcludeLanguages: o.ExcludeLanguages, ProbePoint: o.ProbePoint}
	if o.ProbePoint == dwarfsite.ProbeBlock {
		f, err := elfobj.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if ro.Text, err = kprobe.ForELF(f); err != nil {
			t.Fatal(err)
		}
	}
	dws, err := dwarfsite.ReadFile(path, ro)
	if err != nil {
		t.Fatal(err)
	}
	if len(dws.Sites) != r.Stats.Sites {
		t.Errorf("encoded %d sites, the DWARF has %d", r.Stats.Sites, len(dws.Sites))
	}

	spec, err := btf.Parse(r.Data, r.Base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range spec.Validate() {
		t.Error(e)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	decoded, err := locsec.Decode(spec, locsec.ELFBase(f))
	if err != nil {
		t.Fatal(err)
	}
	var dw *dwarf.Data
	if len(dws.Sites) < 1000 {
		// Small objects: also compare each prototype type's size with
		// Go's debug/dwarf reading of the DWARF type.
		if dw, err = f.DWARF(); err != nil {
			t.Fatal(err)
		}
	}
	want := dws.Sites
	if r.Stats.SkippedFuncs > 0 {
		want = nil
		for _, s := range dws.Sites {
			if btf.ValidIdentifier(s.Func.Name) {
				want = append(want, s)
			}
		}
	}
	checkRoundTrip(t, want, decoded, spec, dw)
	checkMinimal(t, spec)
	checkOurDump(t, r)
	// A subtest: without the reference tools (outside CI) it alone skips.
	t.Run("bpftool", func(t *testing.T) { checkBpftool(t, r, spec) })
	return r
}

// TestEncodeRust: a Rust compilation unit is left out by default (the
// object's .BTF has no Rust types, as a kernel's has none), counted; kept,
// its functions whose names the kernel refuses (write<u8>, whose self is
// of the unit type "()") cost their own sites only.
func TestEncodeRust(t *testing.T) {
	r := checkEncodeOpts(t, fixturePath("rust.elf"), Options{ExcludeLanguages: []string{"rust"}}, []int{1, 2})
	if r.DWARF.ExcludedUnits["rust"] != 1 || r.DWARF.ExcludedSites != 15 || r.Stats.Entries != 2 || r.Stats.SkippedFuncs != 0 {
		t.Errorf("left out %v units, %d sites; %d entries, %d functions skipped; want 1 Rust unit, 15 sites, 2 entries, 0",
			r.DWARF.ExcludedUnits, r.DWARF.ExcludedSites, r.Stats.Entries, r.Stats.SkippedFuncs)
	}
	var sum strings.Builder
	r.WriteSummary(&sum, false)
	if !strings.Contains(sum.String(), "left out: 1 rust compilation unit(s)") || !strings.Contains(sum.String(), "left out: 15 inline sites") {
		t.Errorf("summary does not name what was left out:\n%s", sum.String())
	}
	all := checkEncodeOpts(t, fixturePath("rust-all.elf"), Options{}, []int{1, 2})
	if all.Stats.SkippedFuncs != 4 || all.Stats.SkippedSites != 4 || all.Stats.Entries != 13 || all.Stats.BaseTypes != 0 {
		t.Errorf("%d functions (%d sites) skipped, %d entries, %d base-less types; want 4 (4), 13, 0", all.Stats.SkippedFuncs, all.Stats.SkippedSites, all.Stats.Entries, all.Stats.BaseTypes)
	}
	sum.Reset()
	all.WriteSummary(&sum, false)
	if !strings.Contains(sum.String(), "skipped: 4 functions (4 sites) that BTF cannot carry, e.g. ") {
		t.Errorf("summary does not name what was skipped:\n%s", sum.String())
	}
}

// checkMinimal: the encoder adds no FUNC, FUNC_PROTO, LOC_PARAM or
// LOC_PROTO record equal to one already in the base chain or earlier in
// the output (names compared by content), so the size is the one this
// set of sites needs (docs/encoding.md, "Size").
func checkMinimal(t *testing.T, spec *btf.Spec) {
	t.Helper()
	dups := duplicateRecords(spec)
	for i, d := range dups {
		if i == 5 {
			t.Errorf("%d duplicate records in all", len(dups))
			break
		}
		t.Error(d)
	}
}

// duplicateRecords lists spec's own FUNC, FUNC_PROTO, LOC_PARAM and
// LOC_PROTO records that repeat one of the chain's.
func duplicateRecords(spec *btf.Spec) []string {
	key := func(s *btf.Spec, ty *btf.Type) (string, bool) {
		switch ty.Kind() {
		case btf.KindFunc:
			return fmt.Sprint("F", s.Name(ty), ty.Info, ty.SizeType), true
		case btf.KindFuncProto:
			k := fmt.Sprint("P", ty.Info, ty.SizeType)
			for _, p := range ty.Params() {
				n, _ := s.StringAt(p.NameOff)
				k += fmt.Sprint("|", n, ":", p.Type)
			}
			return k, true
		case btf.KindLocParam, btf.KindLocProto:
			return fmt.Sprint("L", ty.Info, ty.SizeType, ty.Data), true
		}
		return "", false
	}
	var chain []*btf.Spec
	for p := spec; p != nil; p = p.Base() {
		chain = append([]*btf.Spec{p}, chain...)
	}
	seen := map[string]btf.TypeID{}
	var dups []string
	for _, s := range chain {
		types := s.Types()
		for i := range types {
			k, ok := key(s, &types[i])
			if !ok {
				continue
			}
			id := s.FirstID() + btf.TypeID(i)
			if prev, dup := seen[k]; !dup {
				seen[k] = id
			} else if s == spec {
				dups = append(dups, fmt.Sprintf("[%d] %s duplicates [%d]", id, types[i].Kind(), prev))
			}
		}
	}
	return dups
}

// TestDuplicateRecords: the minimality check finds a LOC_PARAM repeated
// from the base and a FUNC_PROTO repeated within the split.
func TestDuplicateRecords(t *testing.T) {
	base := btf.NewSpec(nil)
	i32, _ := base.Add(btf.NewInt(base.AddString("int"), 4, 1, 0, 32))
	if _, err := base.Add(btf.NewLocParam(8, btf.LocReg, 5)); err != nil {
		t.Fatal(err)
	}
	split := btf.NewSpec(base)
	split.Add(btf.NewLocParam(8, btf.LocReg, 5))
	split.Add(btf.NewLocParam(8, btf.LocReg, 4))
	proto := btf.NewFuncProto(i32, []btf.Param{{NameOff: split.AddString("x"), Type: i32}})
	split.Add(proto)
	split.Add(proto)
	got := duplicateRecords(split)
	if len(got) != 2 {
		t.Fatalf("found %q, want the LOC_PARAM and the second FUNC_PROTO", got)
	}
}

// checkRoundTrip: every DWARF site comes back from the BTF with its
// function (name, arity, parameter names and types), section offset,
// address and canonical locations.
func checkRoundTrip(t *testing.T, dw, got []site.Site, spec *btf.Spec, dd *dwarf.Data) {
	t.Helper()
	type key struct {
		name, sec string
		off       uint64
	}
	idx := map[key][]*site.Site{}
	for i := range got {
		s := &got[i]
		idx[key{s.Func.Name, s.Section, s.SectionOff}] = append(idx[key{s.Func.Name, s.Section, s.SectionOff}], s)
	}
	missing, typeDiffs, errs := 0, 0, 0
	protoChecked := map[*site.Func]bool{}
	for i := range dw {
		s := &dw[i]
		cands := idx[key{s.Func.Name, s.Section, s.SectionOff}]
		var match *site.Site
		for _, c := range cands {
			if locsEqual(s, c, spec) {
				match = c
				break
			}
		}
		if match == nil {
			missing++
			if missing <= 10 {
				t.Errorf("site %s %s+%#x (addr %#x) params %v: not decoded; candidates:", s.Func.Name, s.Section, s.SectionOff, s.Addr, s.Params)
				for _, c := range cands {
					t.Errorf("   %v", c.Params)
				}
			}
			continue
		}
		if match.Addr != s.Addr {
			t.Errorf("site %s %s+%#x: addr %#x, DWARF %#x", s.Func.Name, s.Section, s.SectionOff, match.Addr, s.Addr)
		}
		if protoChecked[s.Func] {
			continue
		}
		protoChecked[s.Func] = true
		bf := match.Func
		if len(bf.Params) != len(s.Func.Params) || bf.Variadic != s.Func.Variadic {
			errs++
			t.Errorf("%s: BTF prototype has %d params (variadic %v), DWARF %d (%v)", s.Func.Name, len(bf.Params), bf.Variadic, len(s.Func.Params), s.Func.Variadic)
			continue
		}
		for j, p := range s.Func.Params {
			name := p.Name
			if name == "" {
				name = fmt.Sprintf("arg%d", j+1)
			}
			if bf.Params[j].Name != name {
				errs++
				t.Errorf("%s: param %d named %q in BTF, %q in DWARF", s.Func.Name, j, bf.Params[j].Name, name)
			}
			if dd != nil && p.TypeOff != 0 {
				ty, err := dd.Type(dwarf.Offset(p.TypeOff))
				if err != nil {
					t.Fatal(err)
				}
				if sz := ty.Size(); sz > 0 && int64(spec.Size(btf.TypeID(bf.Params[j].TypeID), 8)) != sz {
					errs++
					t.Errorf("%s: param %s: BTF type %q has another size than DWARF's %s (%d)", s.Func.Name, p.Name, bf.Params[j].Type, ty, sz)
				}
			}
			// The DWARF reader spells types independently: compare
			// where both spell plain declarators.
			if !strings.ContainsAny(p.Type, "[(") && !strings.ContainsAny(bf.Params[j].Type, "[(") && bf.Params[j].Type != p.Type {
				typeDiffs++
				if typeDiffs <= 10 {
					t.Errorf("%s: param %s type %q in BTF, %q in DWARF", s.Func.Name, p.Name, bf.Params[j].Type, p.Type)
				}
			}
		}
		if !strings.ContainsAny(s.Func.Return, "[(") && bf.Return != s.Func.Return {
			typeDiffs++
			if typeDiffs <= 10 {
				t.Errorf("%s: returns %q in BTF, %q in DWARF", s.Func.Name, bf.Return, s.Func.Return)
			}
		}
	}
	if missing > 0 || typeDiffs > 0 || errs > 0 {
		t.Errorf("%d of %d sites not decoded, %d type spellings differ, %d prototype errors", missing, len(dw), typeDiffs, errs)
	}
}

func locsEqual(dw, b *site.Site, spec *btf.Spec) bool {
	if len(b.Params) < len(dw.Params) {
		return false
	}
	for j := range b.Params {
		var want site.Location
		if j < len(dw.Params) {
			var ts uint32
			if j < len(b.Func.Params) {
				ts = spec.Size(btf.TypeID(b.Func.Params[j].TypeID), 8)
			}
			if c, ok := locsec.Canonical(dw.Params[j], ts); ok {
				want = c
				if c.Kind == site.LocAddr {
					want.Value = dw.Params[j].Value // Decode adds the object base back
				}
			}
		}
		got := b.Params[j]
		got.Reason, want.Reason = "", ""
		if got != want {
			return false
		}
	}
	return true
}

// flatChain writes spec's base chain as one base BTF (types and strings
// concatenated keep their ids and offsets), for bpftool 7.8, which takes
// a single -B.
func flatChain(t *testing.T, spec *btf.Spec) []byte {
	t.Helper()
	var chain []*btf.Spec
	for p := spec; p != nil; p = p.Base() {
		chain = append([]*btf.Spec{p}, chain...)
	}
	var types, strs []byte
	for _, p := range chain {
		raw, err := p.Marshal(btf.MarshalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		le := binary.LittleEndian
		hl := le.Uint32(raw[4:])
		to, tl, so, sl := le.Uint32(raw[8:]), le.Uint32(raw[12:]), le.Uint32(raw[16:]), le.Uint32(raw[20:])
		types = append(types, raw[hl+to:hl+to+tl]...)
		strs = append(strs, raw[hl+so:hl+so+sl]...)
	}
	h := make([]byte, 24)
	binary.LittleEndian.PutUint16(h[0:], 0xeb9f)
	h[2] = 1
	binary.LittleEndian.PutUint32(h[4:], 24)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(types)))
	binary.LittleEndian.PutUint32(h[16:], uint32(len(types)))
	binary.LittleEndian.PutUint32(h[20:], uint32(len(strs)))
	return append(append(h, types...), strs...)
}

func checkBpftool(t *testing.T, r *Result, spec *btf.Spec) {
	t.Helper()
	bpftool := testutil.RefTool(t, "bpftool")
	dir := t.TempDir()
	bp, op := filepath.Join(dir, "base.btf"), filepath.Join(dir, "out.btf")
	if err := os.WriteFile(bp, flatChain(t, r.Base), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(op, r.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bpftool, "btf", "dump", "file", op, "-B", bp).Output()
	if err != nil {
		t.Fatalf("bpftool btf dump: %v", err)
	}
	if n := len(regexp.MustCompile(`(?m)^\[\d+\] `).FindAll(out, -1)); n != spec.NumTypes() {
		t.Errorf("bpftool lists %d types, we wrote %d", n, spec.NumTypes())
	}
}

func checkOurDump(t *testing.T, r *Result) {
	t.Helper()
	spec, err := btf.Parse(r.Data, r.Base)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := spec.Dump(&out, btf.DumpOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n["); n+1 != r.Spec.NumTypes() {
		t.Errorf("dump lists %d types, want %d", n+1, r.Spec.NumTypes())
	}
	if !strings.Contains(out.String(), "LOCSEC 'inline.text'") {
		t.Error("no LOCSEC 'inline.text' in dump")
	}
}

// TestKernelEncode encodes the Debian vmlinux and modules and checks that
// nothing is lost (see checkEncode).
func TestKernelEncode(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		vmlinux := filepath.Join(k.Dir, "vmlinux")
		// pahole made .BTF from the same DWARF: every prototype type must
		// be found in the base chain.
		// With the command line's default probe points, which the
		// README's figures quote.
		t.Run(k.Name+"/vmlinux", func(t *testing.T) {
			r := checkEncodeOpts(t, vmlinux, Options{ProbePoint: dwarfsite.ProbeBlock}, []int{2, 1})
			if r.Stats.BaseTypes != 0 {
				t.Errorf("%d types added", r.Stats.BaseTypes)
			}
			var sum strings.Builder
			r.WriteSummary(&sum, false)
			r.WriteBytes(&sum)
			testutil.Figures(t, k, "encode-vmlinux.txt", sum.String())
		})
		for _, m := range k.Modules() {
			t.Run(k.Name+"/"+m, func(t *testing.T) {
				if r := checkEncodeOpts(t, filepath.Join(k.Dir, "modules", m+".ko"), Options{Bases: []string{vmlinux}, ProbePoint: dwarfsite.ProbeBlock}, []int{1, 2, 8}); r.Stats.BaseTypes != 0 {
					t.Errorf("%d types added", r.Stats.BaseTypes)
				}
			})
		}
	}
}

func BenchmarkKernelEncode(b *testing.B) {
	dir := testutil.KernelData(b)
	vmlinux := filepath.Join(dir, "vmlinux")
	for _, c := range []struct {
		name  string
		path  string
		bases []string
	}{
		{"vmlinux", vmlinux, nil},
		{"tcp_bbr", filepath.Join(dir, "modules", "tcp_bbr.ko"), []string{vmlinux}},
		{"xfs", filepath.Join(dir, "modules", "xfs.ko"), []string{vmlinux}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var r *Result
			for i := 0; i < b.N; i++ {
				var err error
				if r, err = File(c.path, Options{Bases: c.bases}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(r.Data)), "bytes")
			b.ReportMetric(float64(len(r.Data))/float64(r.Stats.Entries), "B/site")
			b.ReportMetric(float64(r.Stats.Entries), "sites")
		})
	}
}

// BenchmarkKernelDecode: locsec.Decode of the encoded Debian vmlinux
// sites (what "sites" and the resolver do first).
func BenchmarkKernelDecode(b *testing.B) {
	vmlinux := filepath.Join(testutil.KernelData(b), "vmlinux")
	r, err := File(vmlinux, Options{})
	if err != nil {
		b.Fatal(err)
	}
	spec, err := btf.Parse(r.Data, r.Base)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sites, err := locsec.Decode(spec, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(sites)), "sites")
	}
}
