package btf

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkSpec exercises everything a decoded blob feeds: validation, both
// dump formats, the typed views and Marshal, whose output must parse back
// and re-marshal identically.
func checkSpec(t *testing.T, s *Spec, base *Spec, data []byte) {
	checkValidate(t, s)
	s.Dump(io.Discard, DumpOptions{})
	s.Dump(io.Discard, DumpOptions{JSON: true})
	for i := range s.types {
		ty := &s.types[i]
		for _, e := range ty.LocSecEntries() {
			s.SiteText(e)
		}
		ty.Members()
		ty.EnumValues()
	}
	out, err := s.Marshal(MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > len(data) {
		t.Fatalf("marshal grew %d -> %d bytes", len(data), len(out))
	}
	s2, err := Parse(out, base)
	if err != nil {
		t.Fatalf("re-parse: %v", err)
	}
	out2, err := s2.Marshal(MarshalOptions{})
	if err != nil || !bytes.Equal(out, out2) {
		t.Fatalf("marshal not idempotent: %v", err)
	}
}

// checkValidate runs both loaders' rules: every violation is a
// *ValidationError with the kernel's message in its log, the result does
// not change on a second run, and a blob BPF_BTF_LOAD accepts is accepted
// by the vmlinux/module loader too (its rules are a subset).
func checkValidate(t *testing.T, s *Spec) {
	logs := func(l Loader) []string {
		var out []string
		for _, e := range s.ValidateFor(l) {
			ve, ok := e.(*ValidationError)
			if !ok || ve.Msg == "" || !strings.Contains(ve.Log, ve.Msg) {
				t.Fatalf("%s: %T %v", l, e, e)
			}
			out = append(out, ve.Log)
		}
		return out
	}
	load, module := logs(LoaderBTFLoad), logs(LoaderKernel)
	if !slices.Equal(load, logs(LoaderBTFLoad)) || !slices.Equal(module, logs(LoaderKernel)) {
		t.Fatal("validation differs between two runs")
	}
	if len(load) == 0 && len(module) != 0 {
		t.Fatalf("BPF_BTF_LOAD accepts, the module loader rejects: %v", module)
	}
}

func addSeeds(f *testing.F) {
	for _, name := range []string{"kinds.x86_64.btf", "kinds.aarch64.pahole132.btf"} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParse decodes arbitrary base BTF.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, nil)
		if err != nil {
			return
		}
		checkSpec(t, s, nil, data)
	})
}

// fuzzBase is the base of FuzzParseSplit: every kind, with a layout
// section that also describes kinds 23 and 24, so that unknown kinds in
// the split blob are sizable.
func fuzzBase(tb testing.TB) *Spec {
	s := allKinds(tb)
	s.layout = append(BuiltinLayout(), LayoutRecord{InfoSz: 4, ElemSz: 8}, LayoutRecord{ElemSz: 4})
	b, err := s.Marshal(MarshalOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := Parse(b, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// FuzzParseSplit decodes arbitrary split BTF on a base with a layout.
func FuzzParseSplit(f *testing.F) {
	base := fuzzBase(f)
	for _, seed := range splitSeeds(f, base) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, base)
		if err != nil {
			return
		}
		checkSpec(t, s, base, data)
	})
}

// FuzzValidateInline decodes and validates arbitrary .BTF.inline on the
// vmlinux-like fixture of resolve/testdata (seeds: its real .BTF.inline,
// and that blob with each verifier case on it applied).
func FuzzValidateInline(f *testing.F) {
	k := loadKFix(f)
	f.Add(k.raw[viB])
	for _, c := range kernelCases() {
		if c.blob != viB || c.edit == nil {
			continue
		}
		s, err := Parse(k.raw[viB], k.base[viB])
		if err != nil {
			f.Fatal(err)
		}
		c.edit(&ed{tb: f, s: s})
		f.Add(mustMarshal(f, s, MarshalOptions{}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, k.base[viB])
		if err != nil {
			return
		}
		checkSpec(t, s, k.base[viB], data)
	})
}

func splitSeeds(tb testing.TB, base *Spec) [][]byte {
	s := NewSpec(base)
	i := TypeID(1)
	fp := mustAdd(tb, s, NewFuncProto(i, []Param{{s.AddString("a"), i}, {s.AddString("b"), i}}))
	fn := mustAdd(tb, s, NewFunc(s.AddString("inl"), fp, 0))
	p1 := mustAdd(tb, s, NewLocParam(4, LocReg, 5))
	p2 := mustAdd(tb, s, NewLocParam(8, LocReg|LocDeref|LocOffset|LocSigned, LocFBReg, 0xfffffff0))
	lp := mustAdd(tb, s, NewLocProto([]TypeID{p1, p2}))
	mustAdd(tb, s, NewLocSec(s.AddString("inline.text"), []LocEntry{{fn, lp, 0x40}, {fn, lp, 0x80}}))
	mustAdd(tb, s, Type{Info: MakeInfo(23, 1, false), Data: []uint32{1, 2, 3}})
	mustAdd(tb, s, Type{Info: MakeInfo(24, 2, false), Data: []uint32{4, 5}})
	a := mustMarshal(tb, s, MarshalOptions{})
	// Own layout although the base has one (a producer may write it).
	s.layout = append(BuiltinLayout(), LayoutRecord{InfoSz: 4, ElemSz: 8}, LayoutRecord{ElemSz: 4})
	b := mustMarshal(tb, s, MarshalOptions{})
	return [][]byte{a, b}
}

// TestWriteFuzzCorpus regenerates testdata/fuzz/ from the seeds above and
// the spec 7.3 golden blob (BTFI_WRITE_CORPUS=1 go test -run WriteFuzzCorpus).
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("BTFI_WRITE_CORPUS") == "" {
		t.Skip("set BTFI_WRITE_CORPUS=1 to regenerate")
	}
	write := func(target, name string, data []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ak := mustMarshal(t, allKinds(t), MarshalOptions{})
	write("FuzzParse", "allkinds", ak)
	write("FuzzParse", "allkinds-layout", mustMarshal(t, allKinds(t), MarshalOptions{Layout: true}))
	write("FuzzParse", "golden-loc", mustMarshal(t, goldenLoc(t), MarshalOptions{Layout: true}))
	write("FuzzParse", "allkinds-be", swapBlob(t, ak))
	write("FuzzParse", "header-only", ak[:24])
	for i, s := range splitSeeds(t, fuzzBase(t)) {
		write("FuzzParseSplit", fmt.Sprintf("loc-%d", i), s)
	}
}
