package cmd

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/elfwrite"
	"github.com/btfinline/btfinline/internal/encode"
)

func fixturePath(name string) string {
	return filepath.Join("..", "internal", "encode", "testdata", name)
}

func runEncodeCmd(args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"encode"}, args...), &stdout, &stderr)
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
		{"distilled base", []string{fixturePath("mod-distilled.ko"), "-B", kern, "-o", filepath.Join(dir, "x")}, "distilled base", fixturePath("mod-distilled.ko")},
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

// TestEncodeBatch: several files (arguments and --files-from) in one run,
// to a directory or in place, each with the bytes of its one-file run; a
// file that fails is reported, the others written, the exit status 1.
func TestEncodeBatch(t *testing.T) {
	dir := t.TempDir()
	kern := fixturePath("kern.elf")
	one := func(obj string, base ...string) []byte {
		t.Helper()
		out := filepath.Join(dir, "one.inline")
		args := []string{obj, "-o", out, "-q"}
		for _, b := range base {
			args = append(args, "-B", b)
		}
		if code, msg := runEncodeCmd(args...); code != 0 {
			t.Fatalf("exit %d: %s", code, msg)
		}
		b, _ := os.ReadFile(out)
		return b
	}
	wantMod := one(fixturePath("mod.ko"), kern)

	// In place, one file given as an argument and one in a list.
	a, b := filepath.Join(dir, "a.ko"), filepath.Join(dir, "b.ko")
	copyFile(t, fixturePath("mod.ko"), a)
	copyFile(t, fixturePath("mod.ko"), b)
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte(b+"\n\n"), 0o644)
	code, msg := runEncodeCmd("-B", kern, "--elf-section", a, "--files-from", list)
	if code != 0 || !strings.Contains(msg, "total: 2 files, 0 failed") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, p := range []string{a, b} {
		if got, err := btf.ExtractELFSection(p, ".BTF.inline"); err != nil || !bytes.Equal(got, wantMod) {
			t.Errorf("%s: .BTF.inline is not the one-file output (err %v)", p, err)
		}
	}

	// To a directory, with a file that fails.
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	code, msg = runEncodeCmd("-B", kern, "--output-dir", out, fixturePath("mod-other.ko"), fixturePath("mod.ko"))
	if code != 1 || !strings.Contains(msg, "does not match") || !strings.Contains(msg, "1 of 2 files failed") {
		t.Errorf("exit %d, %s; want 1 and the failed file named", code, msg)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "mod.inline")); !bytes.Equal(got, wantMod) {
		t.Error("mod.inline is not the one-file output")
	}
	if _, err := os.Stat(filepath.Join(out, "mod-other.inline")); err == nil {
		t.Error("output written for the file that failed")
	}

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"-o with several", []string{kern, fixturePath("kern.a64.elf"), "-o", filepath.Join(dir, "x")}, "--output-dir"},
		{"no output", []string{kern, fixturePath("kern.a64.elf")}, "--output-dir DIR and --elf-section"},
		{"both outputs", []string{kern, "--output-dir", out, "--elf-section"}, "exactly one"},
		{"not a directory", []string{kern, "--output-dir", list}, "not a directory"},
		{"missing list", []string{"--files-from", filepath.Join(dir, "nope"), "--output-dir", out}, "no such file"},
		{"empty list", []string{"--files-from", filepath.Join(dir, "empty"), "--output-dir", out}, "no files"},
		{"no file", []string{"-o", filepath.Join(dir, "x")}, "give the FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
			if code, msg := runEncodeCmd(c.args...); code == 0 || !strings.Contains(msg, c.want) {
				t.Errorf("exit %d, message %q; want an error mentioning %q", code, msg, c.want)
			}
		})
	}
}

// TestEncodeDefaults: encode's flags without values are encode.Defaults,
// which the lookup chain and the public API encode with.
func TestEncodeDefaults(t *testing.T) {
	got, err := (&encodeOptions{langs: defaultLangExclude, probePoint: defaultProbePoint}).options()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(encode.Defaults(), got); diff != "" {
		t.Errorf("encode's default flags are not encode.Defaults (-want +got):\n%s", diff)
	}
}
