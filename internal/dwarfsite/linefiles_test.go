package dwarfsite

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/testutil"
)

// checkLineFiles compares lineFiles with debug/dwarf's LineReader.Files
// on every unit of the object at path that has a line table, and returns
// how many it compared; every one must be read (no fall-back).
func checkLineFiles(t *testing.T, path string) int {
	t.Helper()
	x := loadObject(t, path)
	d, err := x.Data()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	n := 0
	for i := range x.units {
		r.Seek(x.units[i].dieOff)
		cu, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		off, ok := cu.Val(dwarf.AttrStmtList).(int64)
		if !ok {
			continue
		}
		lr, err := d.LineReader(cu)
		if err != nil {
			t.Fatalf("%s: unit %#x: %v", path, cu.Offset, err)
		}
		want := readerFiles(lr)
		compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
		got, err := lineFiles(x.o.debug[".debug_line"], x.o.debug[".debug_str"], x.o.debug[".debug_line_str"], x.o.order, off, compDir)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: unit %#x: file table\n got %q (%v)\nwant %q", path, cu.Offset, got, err, want)
		}
		n++
	}
	return n
}

// TestLineFiles: every fixture, DWARF 4 and 5, gcc and clang.
func TestLineFiles(t *testing.T) {
	for _, n := range []string{"sites-x86_64", "sites-x86_64-dwarf4", "sites-x86_64-clang", "sites-aarch64", "sites-x86_64.o", "sites-aarch64.o", "tiny-x86_64.o", "movedreg-x86_64.o"} {
		t.Run(n, func(t *testing.T) {
			if checkLineFiles(t, filepath.Join(fixtureDir, n)) == 0 {
				t.Fatal("no unit with a line table")
			}
		})
	}
}

// TestKernelLineFiles: every unit of each kernel's vmlinux and modules.
func TestKernelLineFiles(t *testing.T) {
	for _, k := range testutil.Kernels(t) {
		t.Run(k.Name, func(t *testing.T) {
			n := checkLineFiles(t, k.Vmlinux())
			for _, m := range k.Modules() {
				n += checkLineFiles(t, k.Module(m))
			}
			if n < 1000 {
				t.Fatalf("%d units compared", n)
			}
		})
	}
}

// lineFixture is a DWARF 4 unit whose DW_AT_stmt_list names offset 0 of
// a .debug_line given separately, for debug/dwarf's LineReader as the
// oracle of lineFiles.
var lineFixture = struct {
	abbrev, info, str, lineStr []byte
	compDir                    string
}{
	// 1: DW_TAG_compile_unit, no children: DW_AT_stmt_list sec_offset,
	// DW_AT_comp_dir string.
	abbrev: []byte{1, 0x11, 0, 0x10, 0x17, 0x1b, 0x08, 0, 0, 0},
	info: []byte{
		16, 0, 0, 0, // unit length
		4, 0, // version
		0, 0, 0, 0, // abbreviation offset
		8,          // address size
		1,          // code
		0, 0, 0, 0, // stmt_list
		'/', 'c', 'd', 0, // comp_dir
	},
	str:     []byte("s.c\x00/abs/h.h\x00"),
	lineStr: []byte("dir\x00f.c\x00/inc\x00"),
	compDir: "/cd",
}

// lineOracle is debug/dwarf's file table of line (nil, false if it
// refuses it).
func lineOracle(t *testing.T, line []byte) ([]string, bool) {
	fx := lineFixture
	d, err := dwarf.New(fx.abbrev, nil, nil, fx.info, line, nil, nil, fx.str)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AddSection(".debug_line_str", fx.lineStr); err != nil {
		t.Fatal(err)
	}
	cu, err := d.Reader().Next()
	if err != nil {
		t.Fatal(err)
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil, false
	}
	return readerFiles(lr), true
}

// lineHeader builds a line program header of version v from the bytes
// after the standard opcode lengths.
func lineHeader(v uint16, tables []byte) []byte {
	var h []byte
	h = binary.LittleEndian.AppendUint16(h, v)
	if v >= 5 {
		h = append(h, 8, 0)
	}
	rest := []byte{1, 1, 1, 0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}
	if v < 4 {
		rest = slices.Delete(rest, 1, 2)
	}
	h = binary.LittleEndian.AppendUint32(h, uint32(len(rest)+len(tables)))
	h = append(append(h, rest...), tables...)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(h))), h...)
}

// lineHeaders are hand-made headers of each version and form, with the
// names debug/dwarf gives them.
var lineHeaders = []struct {
	name string
	line []byte
	want []string
}{
	// DWARF 4: a directory relative to the unit's, a file in the unit's
	// directory, one in that directory, one absolute.
	{"v4", lineHeader(4, []byte("inc\x00\x00a.c\x00\x00\x00\x00b.h\x00\x01\x00\x00/x/c.h\x00\x00\x00\x00\x00")),
		[]string{"", "/cd/a.c", "/cd/inc/b.h", "/x/c.h"}},
	{"v3", lineHeader(3, []byte("/i\x00\x00a.c\x00\x01\x00\x00\x00")), []string{"", "/i/a.c"}},
	// DWARF 5: directories and files by line_strp, with a directory
	// index and an MD5; and by inline strings.
	{"v5", lineHeader(5, v5Tables()), []string{"dir/f.c", "/inc/f.c"}},
	{"v5-string", lineHeader(5, []byte{1, 1, 0x08, 1, '/', 0, 2, 1, 0x08, 2, 0x0f, 2, 'a', 0, 0, 'b', 0, 0}), []string{"/a", "/b"}},
}

func v5Tables() []byte {
	md5 := make([]byte, 16)
	// Directories "dir" and "/inc"; files "f.c" in each.
	b := []byte{1, 1, 0x1f, 2, 0, 0, 0, 0, 8, 0, 0, 0, 3, 1, 0x1f, 2, 0x0b, 5, 0x1e, 2}
	b = append(append(append(b, 4, 0, 0, 0, 0), md5...), 4, 0, 0, 0, 1)
	return append(b, md5...)
}

func TestLineFilesHeaders(t *testing.T) {
	fx := lineFixture
	for _, h := range lineHeaders {
		t.Run(h.name, func(t *testing.T) {
			got, err := lineFiles(h.line, fx.str, fx.lineStr, binary.LittleEndian, 0, fx.compDir)
			want, ok := lineOracle(t, h.line)
			if err != nil || !ok || !slices.Equal(got, want) || !slices.Equal(got, h.want) {
				t.Fatalf("got %q (%v), debug/dwarf %q (%v), want %q", got, err, want, ok, h.want)
			}
		})
	}
}

// FuzzLineFiles holds lineFiles to debug/dwarf: a table it reads is the
// one debug/dwarf reads (refusing one is always safe: the worker then
// asks debug/dwarf).
func FuzzLineFiles(f *testing.F) {
	for _, h := range lineHeaders {
		f.Add(h.line)
	}
	for _, n := range []string{"sites-x86_64", "sites-x86_64-dwarf4"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, n))
		if err != nil {
			f.Fatal(err)
		}
		o, err := readLineSection(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(o)
	}
	fx := lineFixture
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := lineFiles(line, fx.str, fx.lineStr, binary.LittleEndian, 0, fx.compDir)
		if err != nil {
			// errLineCount: debug/dwarf would allocate the count
			// given; errLineAsk: it is asked.
			return
		}
		want, wok := lineOracle(t, line)
		if !wok || !slices.Equal(got, want) {
			t.Fatalf("file table\n got %q\nwant %q (%v)", got, want, wok)
		}
		if len(got) > len(line)+1 {
			t.Fatalf("%d names from %d bytes", len(got), len(line))
		}
	})
}

// readLineSection is the .debug_line of an ELF image.
func readLineSection(b []byte) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return f.Section(".debug_line").Data()
}

// TestOwnDecodersOnly: on gcc's DWARF 4 and 5 every entry and file table
// is read without debug/dwarf, whose view costs a parse of every
// abbreviation table (90 MB on a vmlinux); it is made only when asked.
func TestOwnDecodersOnly(t *testing.T) {
	for _, n := range []string{"sites-x86_64", "sites-x86_64-dwarf4", "sites-aarch64.o"} {
		t.Run(n, func(t *testing.T) {
			x := loadObject(t, filepath.Join(fixtureDir, n))
			res, err := x.Sites(Options{ProbePoint: ProbeEntry})
			if err != nil || len(res.Sites) == 0 {
				t.Fatalf("%d sites, %v", len(res.Sites), err)
			}
			er := x.EntryReader()
			for i := range x.units {
				er.Seek(x.units[i].dieOff)
				if _, err := er.Next(); err != nil {
					t.Fatal(err)
				}
			}
			if x.d != nil {
				t.Fatal("the debug/dwarf view was made")
			}
		})
	}
}
