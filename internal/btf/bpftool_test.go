package btf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// bpftools returns Debian's bpftool (7.1, libbpf 1.1) and the reference
// bpftool (7.8, libbpf 1.8).
func bpftools(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{
		"debian": testutil.SystemTool(t, "bpftool"),
		"ref":    testutil.RefTool(t, "bpftool"),
	}
}

func runBpftool(t *testing.T, tool string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(tool, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", tool, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

type dumpCase struct {
	name  string
	bases []string // files, root first
	file  string
}

func loadChain(t *testing.T, bases []string, file string) *Spec {
	t.Helper()
	var base *Spec
	for _, b := range bases {
		s, err := LoadFile(b, base)
		if err != nil {
			t.Fatal(err)
		}
		base = s
	}
	s, err := LoadFile(file, base)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dumpCases(t *testing.T) []dumpCase {
	t.Helper()
	var cs []dumpCase
	for _, p := range fixtures(t) {
		cs = append(cs, dumpCase{name: filepath.Base(p), file: p})
	}
	cs = append(cs, dumpCase{name: "withbtf.o", file: filepath.Join(fixtureDir, "kinds.x86_64.withbtf.o")})
	ak := allKinds(t)
	akb := mustMarshal(t, ak, MarshalOptions{})
	cs = append(cs, dumpCase{name: "allkinds", file: writeTemp(t, "allkinds.btf", akb)})
	// libbpf reads non-native BTF (24-byte header): same dump.
	cs = append(cs, dumpCase{name: "allkinds-be", file: writeTemp(t, "allkinds-be.btf", swapIndependent(akb))})
	x86 := readFixture(t, "kinds.x86_64.pahole132.btf")
	cs = append(cs, dumpCase{name: "kinds-be", file: writeTemp(t, "kinds-be.btf", swapIndependent(x86))})
	vmRaw, _ := vmlinux(t)
	vm := writeTemp(t, "vmlinux.btf", vmRaw)
	mod := writeTemp(t, "tcp_bbr.btf", readFixture(t, "tcp_bbr.btf.gz"))
	cs = append(cs, dumpCase{name: "vmlinux", file: vm}, dumpCase{name: "tcp_bbr", bases: []string{vm}, file: mod})
	return cs
}

func bpftoolArgs(json bool, c dumpCase) []string {
	var a []string
	if json {
		a = append(a, "-j")
	}
	a = append(a, "btf", "dump")
	for _, b := range c.bases {
		a = append(a, "-B", b)
	}
	return append(a, "file", c.file)
}

// TestBpftoolDump: our text dump is byte-identical to both bpftools', and
// our JSON equals theirs structurally, for every fixture, a hand-built blob
// with every kind 1-19, the kernel's vmlinux BTF and a split module BTF.
func TestBpftoolDump(t *testing.T) {
	tools := bpftools(t)
	for _, c := range dumpCases(t) {
		t.Run(c.name, func(t *testing.T) {
			s := loadChain(t, c.bases, c.file)
			var text, js bytes.Buffer
			if err := s.Dump(&text, DumpOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Dump(&js, DumpOptions{JSON: true}); err != nil {
				t.Fatal(err)
			}
			for name, tool := range tools {
				want := runBpftool(t, tool, bpftoolArgs(false, c)...)
				if !bytes.Equal(text.Bytes(), want) {
					t.Errorf("%s: text differs:\n%s", name, firstDiff(text.String(), string(want)))
				}
				wantJ := runBpftool(t, tool, bpftoolArgs(true, c)...)
				if err := jsonEqual(js.Bytes(), wantJ); err != nil {
					t.Errorf("%s: JSON differs: %v", name, err)
				}
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(g), len(w))
}

func jsonEqual(got, want []byte) error {
	dec := func(b []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	g, err := dec(got)
	if err != nil {
		return fmt.Errorf("ours: %v", err)
	}
	w, err := dec(want)
	if err != nil {
		return fmt.Errorf("bpftool's: %v", err)
	}
	if reflect.DeepEqual(g, w) {
		return nil
	}
	gt, _ := g.(map[string]any)["types"].([]any)
	wt, _ := w.(map[string]any)["types"].([]any)
	for i := 0; i < len(gt) && i < len(wt); i++ {
		if !reflect.DeepEqual(gt[i], wt[i]) {
			return fmt.Errorf("type %d: got %v, want %v", i, gt[i], wt[i])
		}
	}
	return fmt.Errorf("%d types vs %d", len(gt), len(wt))
}

// locSplit builds split BTF on vmlinux with LOC kinds for a few vmlinux
// functions.
func locSplit(t *testing.T, vm *Spec) *Spec {
	t.Helper()
	s := NewSpec(vm)
	name := s.AddString("inline.text")
	var ents []LocEntry
	for i, fname := range []string{"tcp_slow_start", "tcp_cong_avoid_ai"} {
		fn, proto := findFunc(t, vm, fname)
		var locs []TypeID
		for j := range proto.Params() {
			if j == 1 {
				locs = append(locs, 0)
				continue
			}
			locs = append(locs, mustAdd(t, s, NewLocParam(8, LocReg, uint32(5+j))))
		}
		locs = append(locs[:0:0], locs...)
		lp := mustAdd(t, s, NewLocProto(locs))
		ents = append(ents, LocEntry{fn, lp, uint32(0x100 * (i + 1))})
	}
	mustAdd(t, s, NewPtr(1)) // a known kind after the LOC kinds
	mustAdd(t, s, NewLocSec(name, ents))
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	return s
}

// TestBpftoolLayoutSplit: split BTF with its own layout section and LOC
// kinds is readable by the reference bpftool, which sizes the kinds it does
// not know through our layout section and prints one UNKNOWN line per LOC
// type. Without the layout section (or with Debian's bpftool, whose libbpf
// predates layouts) the blob cannot be read.
func TestBpftoolLayoutSplit(t *testing.T) {
	tools := bpftools(t)
	vmRaw, vm := vmlinux(t)
	vmPath := writeTemp(t, "vmlinux.btf", vmRaw)
	s := locSplit(t, vm)
	withL := writeTemp(t, "inline.btf", mustMarshal(t, s, MarshalOptions{Layout: true}))
	noL := writeTemp(t, "inline-nolayout.btf", mustMarshal(t, s, MarshalOptions{}))

	out := string(runBpftool(t, tools["ref"], "btf", "dump", "-B", vmPath, "file", withL))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var ours strings.Builder
	s.Dump(&ours, DumpOptions{})
	ourLines := strings.Split(strings.TrimSuffix(ours.String(), "\n"), "\n")
	var unknown, known int
	j := 0
	for i := range s.types {
		ty := &s.types[i]
		id := s.firstID + TypeID(i)
		if j >= len(lines) {
			t.Fatalf("bpftool printed %d lines", len(lines))
		}
		if ty.Kind() >= KindLocParam {
			want := fmt.Sprintf("[%d] UNKNOWN '%s'", id, nameOrAnon(s, ty))
			if lines[j] != want {
				t.Fatalf("line %d: %q, want %q", j, lines[j], want)
			}
			unknown++
			j++
			continue
		}
		want := ""
		for _, l := range ourLines {
			if strings.HasPrefix(l, fmt.Sprintf("[%d] ", id)) {
				want = l
			}
		}
		if lines[j] != want {
			t.Fatalf("line %d: %q, want %q", j, lines[j], want)
		}
		known++
		j++
	}
	if unknown != s.NumTypes()-1 || known != 1 || j != len(lines) {
		t.Fatalf("%d unknown, %d known lines of %d", unknown, known, len(lines))
	}

	for name, tool := range tools {
		cmd := exec.Command(tool, "btf", "dump", "-B", vmPath, "file", noL)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("%s read LOC kinds without a layout section:\n%s", name, out)
		}
	}
	cmd := exec.Command(tools["debian"], "btf", "dump", "-B", vmPath, "file", withL)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("debian bpftool read LOC kinds:\n%s", out)
	}
	// Our reader needs no layout for kinds it knows.
	for _, p := range []string{withL, noL} {
		back, err := LoadFile(p, vm)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		back.Dump(&b, DumpOptions{})
		if b.String() != ours.String() {
			t.Fatal("read back dumps differently")
		}
	}
}

func nameOrAnon(s *Spec, t *Type) string {
	if t.NameOff == 0 {
		return "(anon)"
	}
	return s.Name(t)
}
