package cmd

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

	"github.com/btfinline/btfinline/btf"
	"github.com/btfinline/btfinline/dedup"
	"github.com/btfinline/btfinline/inline"
	"github.com/btfinline/btfinline/internal/elfwrite"
	"github.com/btfinline/btfinline/internal/testutil"
	"github.com/btfinline/btfinline/locsec"
)

// encodeFixture is an object of testdata/encode with its base chain.
type encodeFixture struct {
	name  string
	bases []string
}

var encodeFixtures = []encodeFixture{
	{"kern.elf", nil},
	{"kern.a64.elf", nil},
	{"mod.ko", []string{"kern.elf"}},
}

func fixturePath(name string) string { return filepath.Join("..", "testdata", "encode", name) }

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
func checkEncode(t *testing.T, path string, bases []string, workers []int) *EncodeResult {
	t.Helper()
	var r *EncodeResult
	for _, w := range workers {
		rw, err := EncodeFile(path, bases, w)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			r = rw
		} else if !bytes.Equal(r.Data, rw.Data) {
			t.Fatalf("workers %d: output differs from workers %d", w, workers[0])
		}
	}
	if again, err := EncodeFile(path, bases, workers[0]); err != nil || !bytes.Equal(again.Data, r.Data) {
		t.Fatalf("second run differs (err %v)", err)
	}
	t.Logf("%d sites, %d bytes, %.2f B/site, stats %+v", len(r.Sites), len(r.Data), float64(len(r.Data))/float64(max(1, r.Stats.Entries)), r.Stats)

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
	if len(r.Sites) < 1000 {
		// Small objects: also compare each prototype type's size with
		// Go's debug/dwarf reading of the DWARF type.
		o, err := dedup.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		dw = o.DWARF
	}
	checkRoundTrip(t, r.Sites, decoded, spec, dw)
	checkMinimal(t, spec)
	checkOurDump(t, path, bases, r)
	checkBpftool(t, r, spec) // last: skips without the reference tools
	return r
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
func checkRoundTrip(t *testing.T, dw, got []inline.Site, spec *btf.Spec, dd *dwarf.Data) {
	t.Helper()
	type key struct {
		name, sec string
		off       uint64
	}
	idx := map[key][]*inline.Site{}
	for i := range got {
		s := &got[i]
		idx[key{s.Func.Name, s.Section, s.SectionOff}] = append(idx[key{s.Func.Name, s.Section, s.SectionOff}], s)
	}
	missing, typeDiffs, errs := 0, 0, 0
	protoChecked := map[*inline.Func]bool{}
	for i := range dw {
		s := &dw[i]
		cands := idx[key{s.Func.Name, s.Section, s.SectionOff}]
		var match *inline.Site
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
				ty, err := dd.Type(p.TypeOff)
				if err != nil {
					t.Fatal(err)
				}
				if sz := ty.Size(); sz > 0 && int64(locsec.TypeSize(spec, btf.TypeID(bf.Params[j].TypeID), 8)) != sz {
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

func locsEqual(dw, b *inline.Site, spec *btf.Spec) bool {
	if len(b.Params) < len(dw.Params) {
		return false
	}
	for j := range b.Params {
		var want inline.Location
		if j < len(dw.Params) {
			var ts uint32
			if j < len(b.Func.Params) {
				ts = locsec.TypeSize(spec, btf.TypeID(b.Func.Params[j].TypeID), 8)
			}
			if c, ok := locsec.Canonical(dw.Params[j], ts); ok {
				want = c
				if c.Kind == inline.LocAddr {
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

func checkBpftool(t *testing.T, r *EncodeResult, spec *btf.Spec) {
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

func checkOurDump(t *testing.T, path string, bases []string, r *EncodeResult) {
	t.Helper()
	op := filepath.Join(t.TempDir(), "out.btf")
	if err := os.WriteFile(op, r.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"dump"}
	for _, b := range append(append([]string(nil), bases...), path) {
		args = append(args, "-B", b)
	}
	var stdout, stderr bytes.Buffer
	if code := run(append(args, op), &stdout, &stderr); code != 0 {
		t.Fatalf("btfinline %v: exit %d: %s", args, code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n["); n+1 != r.Spec.NumTypes() {
		t.Errorf("btfinline dump lists %d types, want %d", n+1, r.Spec.NumTypes())
	}
	if !strings.Contains(stdout.String(), "LOCSEC 'inline.text'") {
		t.Error("no LOCSEC 'inline.text' in dump")
	}
	dumpOpts = dumpOptions{}
}

func runEncodeCmd(args ...string) (int, string) {
	encodeOpts = encodeOptions{}
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"encode"}, args...), &stdout, &stderr)
	encodeOpts = encodeOptions{}
	return code, stderr.String()
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeELFSection(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "kern.elf")
	copyFile(t, fixturePath("kern.elf"), obj)
	detached := filepath.Join(dir, "kern.inline")
	if code, msg := runEncodeCmd(obj, "-o", detached, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	want, _ := os.ReadFile(detached)
	if code, msg := runEncodeCmd(obj, "--elf-section"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	} else if !strings.Contains(msg, "bytes per site") {
		t.Errorf("no summary: %q", msg)
	}
	got, err := btf.ExtractELFSection(obj, ".BTF.inline")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf(".BTF.inline differs from the detached output (err %v)", err)
	}
	// The ELF still reads, its .BTF unchanged, and our dump reads the
	// section split on it.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"dump", "--section", ".BTF.inline", obj}, &stdout, &stderr); code != 0 {
		t.Fatalf("dump --section: %s", stderr.String())
	}
	dumpOpts = dumpOptions{}

	// Same contents again: allowed without --force.
	if code, msg := runEncodeCmd(obj, "--elf-section"); code != 0 || !strings.Contains(msg, "unchanged") {
		t.Fatalf("re-encode: exit %d: %s", code, msg)
	}
	// A different .BTF.inline needs --force, and the file stays as it was.
	if _, err := elfwrite.SetSection(obj, ".BTF.inline", []byte("other"), elfwrite.Options{Replace: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(obj)
	if code, msg := runEncodeCmd(obj, "--elf-section"); code == 0 || !strings.Contains(msg, "--force") {
		t.Fatalf("different .BTF.inline replaced without --force: exit %d: %s", code, msg)
	}
	if after, _ := os.ReadFile(obj); !bytes.Equal(before, after) {
		t.Fatal("input modified by a failed encode")
	}
	if code, msg := runEncodeCmd(obj, "--elf-section", "--force"); code != 0 || !strings.Contains(msg, "replaced") {
		t.Fatalf("--force: exit %d: %s", code, msg)
	}
	if got, _ := btf.ExtractELFSection(obj, ".BTF.inline"); !bytes.Equal(got, want) {
		t.Fatal("--force did not write the encoded BTF")
	}
}

func TestEncodeBadInput(t *testing.T) {
	dir := t.TempDir()
	kern := fixturePath("kern.elf")
	raw, err := os.ReadFile(kern)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.elf")
	if err := os.WriteFile(trunc, raw[:len(raw)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	// Section headers intact, .BTF's data past the end of the file.
	badoff := filepath.Join(dir, "badoff.elf")
	{
		f, err := elf.Open(kern)
		if err != nil {
			t.Fatal(err)
		}
		idx := -1
		for i, s := range f.Sections {
			if s.Name == ".BTF" {
				idx = i
			}
		}
		f.Close()
		b := append([]byte(nil), raw...)
		shoff := binary.LittleEndian.Uint64(b[0x28:])
		binary.LittleEndian.PutUint64(b[shoff+uint64(idx)*64+0x18:], uint64(len(b))+64)
		if err := os.WriteFile(badoff, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nobtf := filepath.Join(dir, "nobtf.elf")
	stripped, _, err := elfwrite.Build(raw, ".BTF", nil, elfwrite.Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	// An empty .BTF section is as good as none for encode.
	if err := os.WriteFile(nobtf, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	notdir := filepath.Join(dir, "file")
	os.WriteFile(notdir, nil, 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
		file string // must stay untouched
	}{
		{"mismatched base", []string{fixturePath("mod-other.ko"), "-B", kern, "-o", filepath.Join(dir, "x")}, "does not match", fixturePath("mod-other.ko")},
		{"module without base", []string{fixturePath("mod.ko"), "-o", filepath.Join(dir, "x")}, "-B", ""},
		{"truncated", []string{trunc, "-o", filepath.Join(dir, "x")}, "truncated ELF", trunc},
		{"section past the end", []string{badoff, "--elf-section"}, "past the end", badoff},
		{"truncated in place", []string{trunc, "--elf-section"}, "trunc.elf", trunc},
		{"no .BTF", []string{fixturePath("kern-nobtf.elf"), "-o", filepath.Join(dir, "x")}, "no .BTF section", ""},
		{"no DWARF", []string{fixturePath("mod-nodwarf.ko"), "-B", kern, "--elf-section"}, "no DWARF (.debug_info)", fixturePath("mod-nodwarf.ko")},
		{"empty .BTF", []string{nobtf, "-o", filepath.Join(dir, "x")}, ".BTF", nobtf},
		{"not ELF", []string{fixturePath("kern.c"), "-o", filepath.Join(dir, "x")}, "not an ELF", ""},
		{"missing", []string{filepath.Join(dir, "nope"), "-o", filepath.Join(dir, "x")}, "no such file", ""},
		{"unwritable output", []string{kern, "-o", filepath.Join(notdir, "x")}, "not a directory", ""},
		{"full output", []string{kern, "-o", "/dev/full"}, "no space", ""},
		{"no output", []string{kern}, "-o OUT", ""},
		{"output is input", []string{kern, "-o", kern}, "input file", kern},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "x"))
			var before []byte
			if c.file != "" {
				before, _ = os.ReadFile(c.file)
			}
			code, msg := runEncodeCmd(c.args...)
			if code == 0 || !strings.Contains(msg, c.want) {
				t.Errorf("exit %d, message %q; want an error mentioning %q", code, msg, c.want)
			}
			if strings.Contains(msg, "panic") {
				t.Error(msg)
			}
			if c.file != "" {
				if after, _ := os.ReadFile(c.file); !bytes.Equal(before, after) {
					t.Error("input modified")
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
				t.Error("output written despite the error")
			}
		})
	}
}

// TestKernelEncode encodes the Debian vmlinux and modules and checks that
// nothing is lost (see checkEncode).
func TestKernelEncode(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		vmlinux := filepath.Join(k.Dir, "vmlinux")
		// pahole made .BTF from the same DWARF: every prototype type must
		// be found in the base chain.
		t.Run(k.Arch+"/vmlinux", func(t *testing.T) {
			if r := checkEncode(t, vmlinux, nil, []int{2, 1}); r.Stats.BaseTypes != 0 {
				t.Errorf("%d types added", r.Stats.BaseTypes)
			}
		})
		for _, m := range testutil.KernelModules {
			t.Run(k.Arch+"/"+m, func(t *testing.T) {
				if r := checkEncode(t, filepath.Join(k.Dir, "modules", m+".ko"), []string{vmlinux}, []int{1, 2, 8}); r.Stats.BaseTypes != 0 {
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
			var r *EncodeResult
			for i := 0; i < b.N; i++ {
				var err error
				if r, err = EncodeFile(c.path, c.bases, 0); err != nil {
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
	r, err := EncodeFile(vmlinux, nil, 0)
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
