package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/testutil"
)

const btfFixtures = "../internal/btf/testdata"

func runDump(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"dump"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func gunzipTo(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(btfFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".gz"))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDumpMatchesBpftool(t *testing.T) {
	bpftool := testutil.SystemTool(t, "bpftool")
	vm := gunzipTo(t, "vmlinux.btf.gz")
	mod := gunzipTo(t, "tcp_bbr.btf.gz")
	for _, c := range [][]string{
		{filepath.Join(btfFixtures, "kinds.x86_64.btf")},
		{filepath.Join(btfFixtures, "kinds.x86_64.withbtf.o")},
		{"-B", vm, mod},
	} {
		out, stderr, code := runDump(t, c...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
		args := []string{"btf", "dump"}
		if c[0] == "-B" {
			args = append(args, "-B", c[1], "file", c[2])
		} else {
			args = append(args, "file", c[0])
		}
		want, err := exec.Command(bpftool, args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%v: output differs from bpftool", c)
		}
		jout, _, code := runDump(t, append([]string{"-j"}, c...)...)
		var v struct{ Types []map[string]any }
		if code != 0 || json.Unmarshal([]byte(jout), &v) != nil || len(v.Types) == 0 {
			t.Errorf("%v: bad JSON (exit %d)", c, code)
		}
	}
}

// TestDumpMultiSplitAndSection: three -B levels, and a .BTF.inline section
// read on top of the ELF's own .BTF.
func TestDumpMultiSplitAndSection(t *testing.T) {
	vmPath := gunzipTo(t, "vmlinux.btf.gz")
	modPath := gunzipTo(t, "tcp_bbr.btf.gz")
	vm, err := btf.LoadFile(vmPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := btf.LoadFile(modPath, vm)
	if err != nil {
		t.Fatal(err)
	}
	in := btf.NewSpec(mod)
	p := mustAddT(t, in, btf.NewLocParam(8, btf.LocReg, 5))
	lp := mustAddT(t, in, btf.NewLocProto([]btf.TypeID{p}))
	blob, err := in.Marshal(btf.MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inPath := filepath.Join(t.TempDir(), "tcp_bbr.inline.btf")
	os.WriteFile(inPath, blob, 0o644)
	out, stderr, code := runDump(t, "-B", vmPath, "-B", modPath, inPath)
	if code != 0 {
		t.Fatal(stderr)
	}
	want := "[95088] LOC_PARAM '(anon)' size=8 flags=0x8 vlen=1 values='reg5'\n" +
		"[95089] LOC_PROTO '(anon)' vlen=1\n\ttype_id=95088 value='reg5'\n"
	if p != 95088 || lp != 95089 || out != want {
		t.Fatalf("got ids %d %d:\n%s", p, lp, out)
	}
	// Without the middle base the ids would be wrong: an error, not garbage.
	if _, _, code := runDump(t, "-B", vmPath, "--validate", inPath); code == 0 {
		t.Fatal("inline BTF validated on the wrong base")
	}

	// .BTF.inline in an ELF, split on the object's own .BTF.
	objcopy := testutil.RefTool(t, "objcopy")
	obj := filepath.Join(btfFixtures, "kinds.x86_64.withbtf.o")
	base, err := btf.LoadFile(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	in2 := btf.NewSpec(base)
	mustAddT(t, in2, btf.NewLocParam(4, btf.LocConst, 2))
	blob2, _ := in2.Marshal(btf.MarshalOptions{})
	sec := filepath.Join(t.TempDir(), "inline.bin")
	os.WriteFile(sec, blob2, 0o644)
	withInline := filepath.Join(t.TempDir(), "obj.o")
	if o, err := exec.Command(objcopy, "--add-section", ".BTF.inline="+sec, obj, withInline).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	out, stderr, code = runDump(t, "--section", ".BTF.inline", withInline)
	wantLine := "LOC_PARAM '(anon)' size=4 flags=0x2 vlen=1 values='const 0x2'\n"
	if code != 0 || !strings.HasSuffix(out, wantLine) || !strings.HasPrefix(out, "[") || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d %s: %q", code, stderr, out)
	}
	// Naming the object as the last -B too gives the same chain.
	out2, stderr, code := runDump(t, "-B", withInline, "--section", ".BTF.inline", withInline)
	if code != 0 || out2 != out {
		t.Fatalf("with -B: exit %d %s: %q", code, stderr, out2)
	}
	// The same file without --section dumps its .BTF.
	out, _, _ = runDump(t, withInline)
	if strings.Contains(out, "LOC_PARAM") || !strings.Contains(out, "STRUCT 'node'") {
		t.Fatal("default section is not .BTF")
	}
}

// TestDumpValidate: the kernel's log lines, one violation per type (the
// LOCSEC refers to the FUNC already reported, so it is not reported
// again), the exit status and the count on stderr, for both loaders.
func TestDumpValidate(t *testing.T) {
	for _, mode := range []string{"--validate", "--validate=load", "--validate=module"} {
		out, stderr, code := runDump(t, mode, filepath.Join(btfFixtures, "kinds.aarch64.btf"))
		if code != 0 || out != "" {
			t.Fatalf("valid BTF, %s: exit %d %q %q", mode, code, out, stderr)
		}
	}
	s := btf.NewSpec(nil)
	i := mustAddT(t, s, btf.NewInt(s.AddString("int"), 4, 1, 0, 32))
	fp := mustAddT(t, s, btf.NewFuncProto(i, []btf.Param{{NameOff: 0, Type: i}}))
	fn := mustAddT(t, s, btf.NewFunc(s.AddString("f"), fp, 2))
	mustAddT(t, s, btf.NewLocParam(8, btf.LocConst, 1))
	mustAddT(t, s, btf.NewLocSec(s.AddString("inline.text"), []btf.LocEntry{{Func: fn, LocProto: 4}}))
	blob, _ := s.Marshal(btf.MarshalOptions{})
	p := filepath.Join(t.TempDir(), "bad.btf")
	os.WriteFile(p, blob, 0o644)
	want := "[3] FUNC f type_id=2 Invalid func linkage\n" +
		"[4] LOC_PARAM (anon) size=8 vlen=1 flags=0x2, 1 Invalid vlen\n"
	for _, mode := range []string{"load", "module"} {
		out, stderr, code := runDump(t, "--validate="+mode, p)
		if code != 1 || out != want || !strings.HasSuffix(stderr, ": 2 violations of the kernel's "+mode+" rules\n") {
			t.Fatalf("%s: exit %d\n%s\n%s", mode, code, out, stderr)
		}
	}
	if _, stderr, code := runDump(t, "--validate", "module", p); code == 0 || !strings.Contains(stderr, "--validate=module") {
		t.Fatalf("--validate module: exit %d %s", code, stderr)
	}
	if _, stderr, code := runDump(t, "--validate=kernel", p); code == 0 || !strings.Contains(stderr, `unknown loader "kernel"`) {
		t.Fatalf("--validate=kernel: exit %d %s", code, stderr)
	}
	if _, stderr, code := runDump(t, filepath.Join(btfFixtures, "kinds.c")); code == 0 || !strings.Contains(stderr, "bad magic") {
		t.Fatalf("non-BTF input: exit %d %s", code, stderr)
	}
}

func mustAddT(t *testing.T, s *btf.Spec, ty btf.Type) btf.TypeID {
	t.Helper()
	id, err := s.Add(ty)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
