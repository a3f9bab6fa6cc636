package elfwrite

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

var fixtures = []string{"hello.o", "hello", "hello-arm64.o"}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// sectionBytes maps every section name to its contents (NOBITS: nil).
func sectionBytes(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string][]byte{}
	for _, s := range f.Sections[1:] {
		if s.Type == elf.SHT_NOBITS {
			m[s.Name] = nil
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		m[s.Name] = b
	}
	return m
}

func TestSetSection(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			p := copyFixture(t, name)
			before := sectionBytes(t, p)
			orig, _ := os.ReadFile(p)
			data := bytes.Repeat([]byte("BTFI"), 100)

			res, err := SetSection(p, ".BTF.inline", data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Replaced || res.Unchanged {
				t.Fatalf("first write: %+v", res)
			}
			after := sectionBytes(t, p)
			for n, b := range before {
				if n == ".shstrtab" {
					// The name was added at its end.
					if !bytes.HasPrefix(after[n], b) {
						t.Errorf("section-name table lost names")
					}
					continue
				}
				if !bytes.Equal(after[n], b) {
					t.Errorf("section %s changed", n)
				}
			}
			if !bytes.Equal(after[".BTF.inline"], data) {
				t.Fatalf("new section holds %d bytes, want %d", len(after[".BTF.inline"]), len(data))
			}
			// Every byte a segment or a kept section refers to is where it was.
			now, _ := os.ReadFile(p)
			f, _ := elf.Open(p)
			defer f.Close()
			for _, s := range f.Sections[1:] {
				if s.Type == elf.SHT_NOBITS || s.Name == ".BTF.inline" || s.Name == ".shstrtab" {
					continue
				}
				if !bytes.Equal(now[s.Offset:s.Offset+s.Size], orig[s.Offset:s.Offset+s.Size]) {
					t.Errorf("section %s moved or changed", s.Name)
				}
			}
			// The ELF header's section-table fields (e_shoff, e_shnum,
			// e_shstrndx) are the only bytes allowed to change in segments.
			ehdr := func(b []byte) []byte {
				c := append([]byte(nil), b...)
				clear(c[40:48])
				clear(c[60:64])
				return c
			}
			if !bytes.Equal(ehdr(now[:64]), ehdr(orig[:64])) {
				t.Errorf("ELF header changed beyond the section-table fields")
			}
			for _, pr := range f.Progs {
				lo := max(pr.Off, 64)
				if lo < pr.Off+pr.Filesz && !bytes.Equal(now[lo:pr.Off+pr.Filesz], orig[lo:pr.Off+pr.Filesz]) {
					t.Errorf("segment at %#x changed", pr.Off)
				}
			}

			// Same bytes again: nothing to do.
			res, err = SetSection(p, ".BTF.inline", data, Options{})
			if err != nil || !res.Unchanged {
				t.Fatalf("identical rewrite: %+v %v", res, err)
			}
			// Other bytes: refused without Replace, file untouched.
			size1 := len(now)
			other := bytes.Repeat([]byte("x"), 37)
			if _, err := SetSection(p, ".BTF.inline", other, Options{}); !errors.Is(err, ErrExists) {
				t.Fatalf("replace without Replace: %v", err)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, now) {
				t.Fatal("refused replace changed the file")
			}
			// With Replace: new bytes, and the file does not grow by the old data.
			for i := 0; i < 3; i++ {
				if _, err := SetSection(p, ".BTF.inline", other, Options{Replace: true}); err != nil {
					t.Fatal(err)
				}
			}
			again := sectionBytes(t, p)
			if !bytes.Equal(again[".BTF.inline"], other) {
				t.Fatal("replace did not take")
			}
			for n, b := range before {
				if n != ".shstrtab" && !bytes.Equal(again[n], b) {
					t.Errorf("section %s changed after replace", n)
				}
			}
			if b, _ := os.ReadFile(p); len(b) > size1 {
				t.Errorf("file grew from %d to %d bytes on replacing with fewer bytes", size1, len(b))
			}
		})
	}
}

// TestReadelf checks that binutils reads the written section and that the
// rest of the file still satisfies it.
func TestReadelf(t *testing.T) {
	readelf := testutil.RefTool(t, "readelf")
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			objcopy := testutil.RefTool(t, "objcopy")
			if strings.Contains(name, "arm64") {
				// The reference binutils are built for x86-64 only.
				objcopy = testutil.SystemTool(t, "aarch64-linux-gnu-objcopy")
			}
			p := copyFixture(t, name)
			data := []byte("payload for readelf\x00")
			if _, err := SetSection(p, ".BTF.inline", data, Options{}); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(readelf, "-W", "-S", "-l", p).CombinedOutput()
			if err != nil || bytes.Contains(out, []byte("Warning")) || bytes.Contains(out, []byte("Error")) {
				t.Fatalf("readelf: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), ".BTF.inline") {
				t.Fatalf("readelf does not list the section:\n%s", out)
			}
			dump := filepath.Join(t.TempDir(), "dump")
			if out, err := exec.Command(objcopy, "--dump-section", ".BTF.inline="+dump, p, filepath.Join(t.TempDir(), "o")).CombinedOutput(); err != nil {
				t.Fatalf("objcopy: %v\n%s", err, out)
			}
			got, _ := os.ReadFile(dump)
			if !bytes.Equal(got, data) {
				t.Fatalf("objcopy dumped %q", got)
			}
		})
	}
}

func TestExecutableStillRuns(t *testing.T) {
	p := copyFixture(t, "hello")
	want, err := exec.Command(p).Output()
	if err != nil {
		t.Skipf("fixture does not run here: %v", err)
	}
	if _, err := SetSection(p, ".BTF.inline", []byte{1, 2, 3, 4}, Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(p).Output()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after writing: %v %q, want %q", err, got, want)
	}
}

func TestBadInputLeavesFileUntouched(t *testing.T) {
	raw, _ := os.ReadFile("testdata/hello.o")
	cases := map[string][]byte{
		"empty":           {},
		"not elf":         []byte("definitely not an ELF file, just text"),
		"truncated":       raw[:100],
		"truncated shdrs": raw[:len(raw)-10],
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.o")
			os.WriteFile(p, b, 0o644)
			if _, err := SetSection(p, ".BTF.inline", []byte{1}, Options{}); err == nil {
				t.Fatal("no error")
			} else if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name the file: %v", err)
			}
			if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
				t.Fatal("file changed")
			}
			if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
				t.Fatalf("left files behind: %v", ents)
			}
		})
	}
}

func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions; use a path that cannot be
		// created instead.
		p := copyFixture(t, "hello.o")
		_, err := SetSection(filepath.Join(p, "sub"), ".BTF.inline", []byte{1}, Options{})
		if err == nil {
			t.Fatal("writing below a regular file succeeded")
		}
		return
	}
	p := copyFixture(t, "hello.o")
	dir := filepath.Dir(p)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	orig, _ := os.ReadFile(p)
	if _, err := SetSection(p, ".BTF.inline", []byte{1}, Options{}); err == nil {
		t.Fatal("no error in a read-only directory")
	}
	if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
		t.Fatal("file changed")
	}
}

func FuzzBuild(f *testing.F) {
	for _, name := range fixtures {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, ".BTF.inline", []byte{1, 2, 3})
		f.Add(raw[:len(raw)/2], ".text", []byte{})
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string, data []byte) {
		out, _, err := Build(raw, name, data, Options{Replace: true})
		if err != nil || out == nil {
			return
		}
		// Whatever we write must parse and hold the section.
		g, err := elf.NewFile(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		s := g.Section(name)
		if s == nil {
			t.Fatalf("output lacks %q", name)
		}
		if got, err := s.Data(); err == nil && !bytes.Equal(got, data) && s.Type != elf.SHT_NOBITS {
			t.Fatalf("section holds other bytes")
		}
	})
}

// TestAllocatedInPlace: an existing allocated section is rewritten where
// its segment maps it (the program then prints the new bytes from its
// loaded image), never moved; another size is refused with the file
// untouched.
func TestAllocatedInPlace(t *testing.T) {
	p := copyFixture(t, "linked")
	orig, _ := os.ReadFile(p)
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	old := *f.Section(".BTF.inline")
	f.Close()
	data := []byte("the bytes encode wrote in place!")
	res, err := SetSection(p, ".BTF.inline", data, Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replaced || res.Unchanged {
		t.Fatalf("result %+v", res)
	}
	now, _ := os.ReadFile(p)
	if len(now) != len(orig) {
		t.Fatalf("file size %d, was %d", len(now), len(orig))
	}
	for i := range now {
		in := uint64(i) >= old.Offset && uint64(i) < old.Offset+old.Size
		if !in && now[i] != orig[i] {
			t.Fatalf("byte %#x outside the section changed", i)
		}
	}
	if !bytes.Equal(now[old.Offset:old.Offset+old.Size], data) {
		t.Fatal("section does not hold the new bytes")
	}
	if out, err := exec.Command(p).Output(); err == nil {
		if string(out) != string(data)+"\n" {
			t.Errorf("loaded image holds %q", out)
		}
	} else {
		t.Logf("fixture does not run here: %v", err)
	}
	for _, n := range []int{len(data) - 1, len(data) + 1} {
		_, err := SetSection(p, ".BTF.inline", bytes.Repeat([]byte{7}, n), Options{Replace: true})
		if err == nil || !strings.Contains(err.Error(), "allocated") || !strings.Contains(err.Error(), p) {
			t.Errorf("%d bytes into %d: %v", n, len(data), err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, now) {
			t.Fatal("refused rewrite changed the file")
		}
	}
	// With a new non-allocated section in the same rewrite, the allocated
	// one still stays where it is.
	raw, _ := os.ReadFile(p)
	out, placed, err := BuildSections(raw, []Section{
		{Name: ".BTF.inline", Data: bytes.Repeat([]byte("z"), len(data)), Replace: true},
		{Name: ".note.extra", Data: []byte("x")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if placed[0].Offset != old.Offset {
		t.Errorf("allocated section placed at %#x, was %#x", placed[0].Offset, old.Offset)
	}
	g, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	s := g.Section(".BTF.inline")
	if s.Offset != old.Offset || s.Addr != old.Addr || s.Flags != old.Flags {
		t.Errorf("header changed: %+v, was %+v", s.SectionHeader, old.SectionHeader)
	}
	if b, _ := s.Data(); !bytes.Equal(b, bytes.Repeat([]byte("z"), len(data))) {
		t.Errorf("holds %q", b)
	}
	if g.Section(".note.extra") == nil {
		t.Error("new section missing")
	}
}
