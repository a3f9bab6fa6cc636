package sframe

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

const fixtures = "testdata"

var x86Variants = []string{"x86-O0", "x86-O2", "x86-O2-fp", "x86-O2-realign", "x86-O2-pic", "x86-plt"}
var a64Variants = []string{"a64-O0", "a64-O2", "a64-O2-fp", "a64-O2-pac"}

func readelfSFrame(t *testing.T, path string) string {
	t.Helper()
	readelf := testutil.RefTool(t, "readelf")
	out, err := exec.Command(readelf, "--sframe", path).CombinedOutput()
	if err != nil {
		t.Fatalf("readelf --sframe %s: %v\n%s", path, err, out)
	}
	return string(out)
}

func openFixture(t testing.TB, path string) *Input {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func ourDump(t *testing.T, path string) string {
	t.Helper()
	in := openFixture(t, path)
	d, addr, sec, err := in.SFrameSection()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(d, addr, sec.Name)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Dump(&b, s, sec.Name); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// emitInto adds our .sframe to a copy of path and returns the copy's path.
func emitInto(t *testing.T, path string, version uint8) (string, *Emitted) {
	t.Helper()
	in := openFixture(t, path)
	em, err := in.Emit(EmitOptions{Version: version})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := in.AddToELF(em)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, em
}

func sectionBytes(t *testing.T, path, name string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		t.Fatalf("%s: no %s", path, name)
	}
	d, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestGasObjects: SFrame emitted from the plain object's .eh_frame is
// byte-identical to what GNU as --gsframe wrote for the same assembly, and
// readelf prints both the same way.
func TestGasObjects(t *testing.T) {
	for _, v := range append(append(append([]string(nil), x86Variants...), a64Variants...), "edge-x86") {
		t.Run(v, func(t *testing.T) {
			ours, em := emitInto(t, filepath.Join(fixtures, v+".o"), Version3)
			gas := filepath.Join(fixtures, v+".gas.o")
			want := readelfSFrame(t, gas)
			if got := readelfSFrame(t, ours); got != want {
				t.Errorf("readelf --sframe differs:\n%s", lineDiff(got, want))
			}
			if got, want := sectionBytes(t, ours, ".sframe"), sectionBytes(t, gas, ".sframe"); !bytes.Equal(got, want) {
				t.Errorf(".sframe bytes differ:\nours %x\ngas  %x", got, want)
			}
			if got, want := sectionBytes(t, ours, ".rela.sframe"), sectionBytes(t, gas, ".rela.sframe"); !sameRelocs(got, want) {
				t.Errorf(".rela.sframe differs")
			}
			if len(em.Section.FDEs) == 0 {
				t.Fatal("no FDEs")
			}
		})
	}
}

// sameRelocs compares relocation offsets, types and addends (symbol indexes
// may differ between section symbols of the same section).
func sameRelocs(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i+24 <= len(a); i += 24 {
		if !bytes.Equal(a[i:i+8], b[i:i+8]) || !bytes.Equal(a[i+8:i+12], b[i+8:i+12]) || !bytes.Equal(a[i+16:i+24], b[i+16:i+24]) {
			return false
		}
	}
	return true
}

// TestDumpMatchesReadelf: our dump of gas's and ld's sections is readelf's
// text, byte for byte.
func TestDumpMatchesReadelf(t *testing.T) {
	files := []string{"edge-x86.gas.o"}
	for _, v := range append(append([]string(nil), x86Variants...), a64Variants...) {
		files = append(files, v+".gas.o", v+".exe")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			p := filepath.Join(fixtures, f)
			if got, want := ourDump(t, p), readelfSFrame(t, p); got != want {
				t.Errorf("dump differs:\n%s", lineDiff(got, want))
			}
		})
	}
}

// splitFuncs maps "pc = ..., size = ..." to the function's FRE lines.
func splitFuncs(dump string) map[string]string {
	m := map[string]string{}
	parts := strings.Split(dump, "\n    func idx [")
	for _, p := range parts[1:] {
		nl := strings.IndexByte(p, '\n')
		head := p[strings.Index(p, "]: ")+3 : nl]
		m[head] = p[nl:]
	}
	return m
}

// TestLinked: SFrame emitted from a linked executable's .eh_frame (added as
// a section) reads in readelf like ld's, function for function. Functions
// ld has no SFrame for (crt1.o's _start etc. were not assembled with
// --gsframe) are the only extra ones. Addresses are compared relative to
// .text: on aarch64 ld's PT_GNU_SFRAME header moves the code by 0x40.
// ld synthesises PLT entries on x86-64 only.
func TestLinked(t *testing.T) {
	for _, v := range append(append([]string(nil), x86Variants...), a64Variants...) {
		t.Run(v, func(t *testing.T) {
			ours, _ := emitInto(t, filepath.Join(fixtures, v+".nosf.exe"), Version3)
			ldExe := filepath.Join(fixtures, v+".exe")
			got := splitFuncs(textRelative(t, ours, readelfSFrame(t, ours)))
			want := splitFuncs(textRelative(t, ldExe, readelfSFrame(t, ldExe)))
			if v == "x86-plt" {
				// -z ibtplt: every PLT flavour must be among the compared.
				requirePLTs(t, ldExe, want, ".plt", ".plt.sec", ".plt.got")
			}
			if len(want) == 0 {
				t.Fatal("ld wrote no SFrame functions")
			}
			for head, fres := range want {
				g, ok := got[head]
				if !ok {
					t.Errorf("ld has %s, we do not", head)
					continue
				}
				if g != fres {
					t.Errorf("%s:\n%s", head, lineDiff(g, fres))
				}
			}
			extra := 0
			for head := range got {
				if _, ok := want[head]; !ok {
					extra++
					t.Logf("only ours (no --gsframe input for it): %s", head)
				}
			}
			// crt1.o, crti.o and crtbegin.o: _start, call_weak_fn and the
			// tm_clones/frame_dummy helpers.
			if max := 3 + 4*btoi(strings.HasPrefix(v, "a64")); extra > max {
				t.Errorf("%d functions only in ours, want at most %d", extra, max)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

var (
	funcHead = regexp.MustCompile(`^(    func idx \[\d+\]: pc = )0x([0-9a-f]+)(, .*)$`)
	freRow   = regexp.MustCompile(`^    ([0-9a-f]{16})(  .*)$`)
)

// textRelative rewrites a readelf --sframe dump of exe with function starts
// and absolute FRE starts relative to exe's .text (as "text+0xN"); rows of
// PC-mask functions ("STARTPC[m]") are offsets already and stay.
func textRelative(t *testing.T, exe, dump string) string {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text")
	f.Close()
	if text == nil {
		t.Fatalf("%s: no .text", exe)
	}
	rel := func(h string) string {
		v, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		if v >= text.Addr {
			return fmt.Sprintf("text+%#x", v-text.Addr)
		}
		return fmt.Sprintf("text-%#x", text.Addr-v)
	}
	lines := strings.Split(dump, "\n")
	mask := false
	for i, l := range lines {
		if m := funcHead.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + rel(m[2]) + m[3]
			continue
		}
		if strings.Contains(l, "STARTPC") {
			mask = strings.Contains(l, "STARTPC[m]")
			continue
		}
		if m := freRow.FindStringSubmatch(l); m != nil && !mask {
			lines[i] = "    " + rel(m[1]) + m[2]
		}
	}
	return strings.Join(lines, "\n")
}

// requirePLTs fails unless each named section of exe starts a function
// of the readelf --sframe dump funcs.
func requirePLTs(t *testing.T, exe string, funcs map[string]string, names ...string) {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range names {
		sec := f.Section(n)
		if sec == nil {
			t.Errorf("%s: no %s section", exe, n)
			continue
		}
		text := f.Section(".text")
		found := false
		for head := range funcs {
			if strings.Contains(head, fmt.Sprintf("pc = text-%#x,", text.Addr-sec.Addr)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: ld wrote no SFrame function at %s (%#x)", exe, n, sec.Addr)
		}
	}
}

// TestReencode: decoding gas's and ld's sections and encoding them again
// gives the same bytes.
func TestReencode(t *testing.T) {
	for _, v := range append(append(append([]string(nil), x86Variants...), a64Variants...), "edge-x86") {
		for _, f := range []string{v + ".gas.o", v + ".exe"} {
			if v == "edge-x86" && f == v+".exe" {
				continue
			}
			t.Run(f, func(t *testing.T) {
				p := filepath.Join(fixtures, f)
				ef, err := elf.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				defer ef.Close()
				sec := ef.Section(".sframe")
				raw, err := sec.Data()
				if err != nil {
					t.Fatal(err)
				}
				s, err := Decode(raw, sec.Addr, sec.Name)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Encode(s, EncodeOptions{Addr: sec.Addr, Sort: s.Flags&FlagFDESorted != 0})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, raw) {
					t.Errorf("re-encoded differs:\ngot  %x\nwant %x", got, raw)
				}
			})
		}
	}
}

// verifyFile runs the unwinding check on path's SFrame section, decoded.
func verifyFile(t *testing.T, path string, version uint8) VerifyResult {
	t.Helper()
	return checkFile(t, path, version, func(in *Input, em *Emitted, b []byte, addr uint64) FrameFinder {
		s, err := Decode(b, addr, ".sframe")
		if err != nil {
			t.Fatal(err)
		}
		return in.SectionFinder(em, s)
	})
}

// checkFile emits path's SFrame section, encodes it and runs the unwinding
// check (every instruction boundary, every gap) with the finder finderFor
// makes of the bytes.
func checkFile(t *testing.T, path string, version uint8, finderFor func(in *Input, em *Emitted, b []byte, addr uint64) FrameFinder) VerifyResult {
	t.Helper()
	in := openFixture(t, path)
	em, err := in.Emit(EmitOptions{Version: version})
	if err != nil {
		t.Fatal(err)
	}
	addr := in.SectionAddr()
	b, err := em.Encode(addr)
	if err != nil {
		t.Fatal(err)
	}
	vr := in.CheckFrames(em, finderFor(in, em, b, addr), CheckOptions{MaxReport: 20, Insns: true, Gaps: true})
	for _, m := range vr.Mismatches {
		if m != "" {
			t.Error(m)
		}
	}
	if len(vr.Mismatches) > 0 {
		t.Errorf("%d mismatches", len(vr.Mismatches))
	}
	if vr.NoCFI > 0 {
		t.Errorf("%d SFrame FDEs without CFI", vr.NoCFI)
	}
	if vr.FDEs == 0 || vr.GapPoints == 0 {
		t.Errorf("nothing checked")
	}
	t.Logf("v%d: %d FDEs, %d points checked, %d gap points, %d PLT FDEs, skipped %v", version, vr.FDEs, vr.Points, vr.GapPoints, vr.PLT, em.Skipped)
	return vr
}

// TestUnwindAgrees: at every CFI row boundary and FRE start of every FDE
// we keep, the SFrame rule for CFA, RA and FP equals the CFI row's.
func TestUnwindAgrees(t *testing.T) {
	files := []string{"edge-x86.o"}
	for _, v := range x86Variants {
		files = append(files, v+".o", v+".nosf.exe")
	}
	for _, v := range a64Variants {
		files = append(files, v+".o", v+".nosf.exe")
	}
	for _, f := range files {
		for _, ver := range []uint8{Version3, Version2} {
			t.Run(fmt.Sprintf("%s/v%d", f, ver), func(t *testing.T) {
				verifyFile(t, filepath.Join(fixtures, f), ver)
			})
		}
	}
}

// TestUnwindAgreesSystem runs the unwinding check over this machine's
// C and C++ runtime libraries.
func TestUnwindAgreesSystem(t *testing.T) {
	libs := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"}
	for _, l := range libs {
		if _, err := os.Stat(l); err != nil {
			t.Logf("skip %s: %v", l, err)
			continue
		}
		t.Run(filepath.Base(l), func(t *testing.T) {
			verifyFile(t, l, Version3)
		})
	}
}

// TestReadelfReadsOurs: readelf accepts our v2 and v3 sections, objects and
// executables, and our dump of them is its text.
func TestReadelfReadsOurs(t *testing.T) {
	for _, f := range []string{"x86-O2.o", "x86-O2-realign.nosf.exe", "a64-O2-pac.o", "a64-O0.o"} {
		for _, ver := range []uint8{Version2, Version3} {
			t.Run(fmt.Sprintf("%s/v%d", f, ver), func(t *testing.T) {
				ours, _ := emitInto(t, filepath.Join(fixtures, f), ver)
				want := readelfSFrame(t, ours)
				if !strings.Contains(want, fmt.Sprintf("SFRAME_VERSION_%d", ver)) {
					t.Fatalf("readelf output:\n%s", want)
				}
				if got := ourDump(t, ours); got != want {
					t.Errorf("dump differs:\n%s", lineDiff(got, want))
				}
			})
		}
	}
}

// TestELFAppendKeepsBytes: adding .sframe leaves every other section's
// bytes and header (except the name table's) unchanged. (The old section
// header table itself is reclaimed: see internal/elfwrite.)
func TestELFAppendKeepsBytes(t *testing.T) {
	for _, f := range []string{"x86-O2.o", "x86-O2.nosf.exe", "a64-O2.o"} {
		t.Run(f, func(t *testing.T) {
			p := filepath.Join(fixtures, f)
			ours, _ := emitInto(t, p, Version3)
			a, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := elf.Open(ours)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if len(b.Sections) != len(a.Sections)+1 && len(b.Sections) != len(a.Sections)+2 {
				t.Fatalf("sections %d -> %d", len(a.Sections), len(b.Sections))
			}
			for i, s := range a.Sections {
				t2 := b.Sections[i]
				if s.SectionHeader != t2.SectionHeader && s.Name != ".shstrtab" {
					t.Errorf("section %s header changed", s.Name)
				}
				if s.Type == elf.SHT_NOBITS {
					continue
				}
				d1, _ := s.Data()
				d2, _ := t2.Data()
				if s.Name == ".shstrtab" {
					d2 = d2[:min(len(d1), len(d2))] // names are appended
				}
				if !bytes.Equal(d1, d2) {
					t.Errorf("section %s bytes changed", s.Name)
				}
			}
		})
	}
}

func lineDiff(got, want string) string {
	g := strings.Split(got, "\n")
	w := strings.Split(want, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(g), len(w)) && n < 20; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  got  %q\n  want %q\n", i+1, gl, wl)
			n++
		}
	}
	return b.String()
}
