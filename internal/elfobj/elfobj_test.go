package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// The fixtures are other packages' checked-in objects (see their
// Makefiles): a linked executable with a build id, a relocatable object
// and a module.
var (
	linked = filepath.Join("..", "resolve", "testdata", "x86_64.elf")
	rel    = filepath.Join("..", "resolve", "testdata", "x86_64.o")
)

func open(t testing.TB, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestOpenErrors(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{filepath.Join("..", "resolve", "testdata", "fixture.c"), "bad magic number"},
		{filepath.Join("testdata", "nope"), "no such file"},
		{".", "not a regular file"},
	} {
		if _, err := Open(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s) = %v, want an error with %q", c.path, err, c.want)
		}
	}
}

// TestData: contents equal debug/elf's, and alias the mapping.
func TestData(t *testing.T) {
	f := open(t, linked)
	if f.Raw() == nil {
		t.Fatal("not mapped")
	}
	ref, err := elf.Open(linked)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for i, s := range f.Sections {
		got, err := f.Data(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			if got != nil {
				t.Errorf("%s: %d bytes for a section without contents", s.Name, len(got))
			}
			continue
		}
		want, err := ref.Sections[i].Data()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: contents differ from debug/elf's", s.Name)
		}
		if len(got) > 0 && &got[0] != &f.Raw()[s.Offset] {
			t.Errorf("%s: a copy, not the mapping", s.Name)
		}
	}
}

// TestPastEnd: a section header that claims more bytes than the file has
// (a truncated copy) is reported by CheckSections, Data and Range, never
// read or allocated.
func TestPastEnd(t *testing.T) {
	b, err := os.ReadFile(linked)
	if err != nil {
		t.Fatal(err)
	}
	g := open(t, linked)
	idx := g.Index(g.Section(".text"))
	shoff := binary.LittleEndian.Uint64(b[0x28:])
	// sh_size of .text (Elf64_Shdr: 64 bytes, sh_size at 32).
	binary.LittleEndian.PutUint64(b[shoff+uint64(idx)*64+32:], 1<<40)
	f, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Sections[idx]
	if err := f.CheckSections(); err == nil || !strings.Contains(err.Error(), "section .text data") {
		t.Errorf("CheckSections = %v", err)
	}
	if _, err := f.Data(text); err == nil || !strings.Contains(err.Error(), "past end of file") {
		t.Errorf("Data = %v", err)
	}
	if _, err := f.Range(text, 1<<39, 16); err == nil {
		t.Error("Range past the end of the file")
	}
	if d, err := f.Range(text, 0, 16); err != nil || len(d) != 16 {
		t.Errorf("Range within the file: %d bytes, %v", len(d), err)
	}
}

func TestAddrRangeAndPointers(t *testing.T) {
	f := open(t, linked)
	text := f.Section(".text")
	b, err := f.AddrRange(text.Addr, text.Addr+16)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := f.Data(text)
	if !bytes.Equal(b, want[:16]) {
		t.Errorf("AddrRange = % x, want % x", b, want[:16])
	}
	if _, err := f.AddrRange(1, 2); err == nil {
		t.Error("AddrRange of an unmapped address")
	}
	ws, err := f.Pointers(text.Addr, text.Addr+16)
	if err != nil || len(ws) != 2 || ws[0] != f.ByteOrder.Uint64(want) {
		t.Errorf("Pointers = %#x, %v", ws, err)
	}
	if _, err := f.Pointers(text.Addr, text.Addr+12); err == nil {
		t.Error("Pointers of a partial word")
	}
}

// TestBuildID: the note equals what readelf -n prints.
func TestBuildID(t *testing.T) {
	f := open(t, linked)
	id, err := f.BuildID()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testutil.RefTool(t, "readelf"), "-n", linked).Output()
	if err != nil {
		t.Fatal(err)
	}
	if id == "" || !strings.Contains(string(out), "Build ID: "+id) {
		t.Errorf("build id %q not in readelf -n:\n%s", id, out)
	}
	if id, _ := open(t, rel).BuildID(); id != "" {
		t.Errorf("relocatable object has build id %q", id)
	}
}

// TestRelocated: with every section at 0, the relocated .debug_info of a
// relocatable object is what debug/elf's own relocation gives.
func TestRelocated(t *testing.T) {
	f := open(t, rel)
	s := f.Section(".debug_info")
	got, res, err := f.Relocated(f.Index(s), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied == 0 {
		t.Fatal("no relocation applied")
	}
	raw, _ := f.Data(s)
	if bytes.Equal(got, raw) {
		t.Fatal("relocated bytes equal the file's")
	}
	if &got[0] == &raw[0] {
		t.Fatal("relocated in place")
	}
	if _, _, err := f.Relocated(0, nil, true); err == nil {
		t.Error("section 0 relocated")
	}
}

// FuzzNew: any bytes give an error or a File whose reads all stay within
// the input.
func FuzzNew(f *testing.F) {
	for _, p := range []string{linked, rel} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := New(b)
		if err != nil {
			return
		}
		o.CheckSections()
		o.BuildID()
		for i, s := range o.Sections {
			if d, err := o.Data(s); err == nil && s.Flags&elf.SHF_COMPRESSED == 0 && len(d) > len(b) {
				t.Fatalf("%s: %d bytes from a %d-byte file", s.Name, len(d), len(b))
			}
			o.Range(s, s.Size/2, s.Size/2)
			o.Pointers(s.Addr, s.Addr+s.Size)
			if o.Type == elf.ET_REL {
				o.Relocated(i, nil, false)
			}
			o.Deref(s.Addr)
		}
	})
}
