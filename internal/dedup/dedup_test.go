package dedup

import (
	"bytes"
	"debug/dwarf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/locsec"
	"github.com/btfinline/btfinline/internal/testutil"
)

func fixture(name string) string { return filepath.Join("..", "encode", "testdata", name) }

// typeDIEs returns the offsets of the type DIEs directly under the
// compilation units of d, in order, with Go's own reading of them.
func typeDIEs(t testing.TB, d *dwarf.Data) (offs []dwarf.Offset, names map[dwarf.Offset]string) {
	t.Helper()
	names = map[dwarf.Offset]string{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			continue
		case dwarf.TagBaseType, dwarf.TagPointerType, dwarf.TagConstType, dwarf.TagVolatileType,
			dwarf.TagTypedef, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType,
			dwarf.TagArrayType, dwarf.TagSubroutineType, dwarf.TagRestrictType:
			offs = append(offs, e.Offset)
			if n, ok := e.Val(dwarf.AttrName).(string); ok {
				names[e.Offset] = n
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
	return offs, names
}

func loadBase(t *testing.T, path string) *btf.Spec {
	t.Helper()
	o, err := openObject(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	s, err := btf.LoadELFSection(o.ELF, ".BTF", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkType compares what BTF says about id with Go's debug/dwarf reading
// of the DWARF type at off: byte size and name.
func checkType(t *testing.T, d *dwarf.Data, s *btf.Spec, off dwarf.Offset, id btf.TypeID, name string) {
	t.Helper()
	dt, err := d.Type(off)
	if err != nil {
		t.Fatal(err)
	}
	if sz := dt.Size(); sz > 0 {
		if got := s.Size(id, 8); int64(got) != sz {
			t.Errorf("DWARF %#x %s: size %d, BTF [%d] %s size %d", off, dt, sz, id, locsec.TypeName(s, id), got)
		}
	}
	if name == "" || id == 0 {
		return
	}
	bt, err := s.TypeByID(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Name(bt); got != name {
		t.Errorf("DWARF %#x named %q maps to BTF [%d] %s named %q", off, name, id, bt.Kind(), got)
	}
}

// TestConvertSameDWARF: every type of kern.elf's DWARF exists in its
// .BTF (pahole made it from that DWARF): nothing may be added.
func TestConvertSameDWARF(t *testing.T) {
	for _, f := range []string{"kern.elf", "kern.a64.elf"} {
		t.Run(f, func(t *testing.T) {
			base := loadBase(t, fixture(f))
			o, err := openObject(fixture(f))
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			dst := btf.NewSpec(base)
			c := New(o.DWARF, dst)
			offs, names := typeDIEs(t, o.DWARF)
			if len(offs) < 40 {
				t.Fatalf("only %d type DIEs", len(offs))
			}
			for _, off := range offs {
				id, err := c.TypeID(off)
				if err != nil {
					t.Fatal(err)
				}
				checkType(t, o.DWARF, base, off, id, names[off])
			}
			if c.Added() != 0 {
				if err := c.Commit(); err != nil {
					t.Fatal(err)
				}
				for i, ty := range dst.Types() {
					t.Errorf("added [%d] %s %q", dst.FirstID()+btf.TypeID(i), ty.Kind(), dst.Name(&ty))
				}
			}
		})
	}
}

// TestConvertVariant: types named like kern.elf's but laid out otherwise
// must not match; the identical ones must.
func TestConvertVariant(t *testing.T) {
	base := loadBase(t, fixture("kern.elf"))
	o, err := openObject(fixture("variant.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	dst := btf.NewSpec(base)
	c := New(o.DWARF, dst)
	offs, names := typeDIEs(t, o.DWARF)
	ids := map[string]btf.TypeID{}
	for _, off := range offs {
		id, err := c.TypeID(off)
		if err != nil {
			t.Fatal(err)
		}
		if n := names[off]; n != "" {
			ids[n] = id
		}
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, e := range dst.Validate() {
		t.Error(e)
	}
	for n, wantNew := range map[string]bool{
		"u32": false, "list": false, "unsigned int": false,
		"tcp_sock": true, "flags": true, "state": true, "point_t": true, "cmp_fn": true,
	} {
		id, ok := ids[n]
		if !ok {
			t.Errorf("no DWARF type %q", n)
			continue
		}
		if isNew := id >= dst.FirstID(); isNew != wantNew {
			t.Errorf("%s: [%d] added=%v, want %v", n, id, isNew, wantNew)
		}
	}
	for _, off := range offs {
		id, _ := c.TypeID(off)
		checkType(t, o.DWARF, dst, off, id, names[off])
	}
}

// TestConvertNoBase converts every type of kern.elf onto an unrelated
// base: all are added, the result validates, and it is the same bytes on
// every run.
func TestConvertNoBase(t *testing.T) {
	var first []byte
	for run := 0; run < 2; run++ {
		base := loadBase(t, fixture("other.elf"))
		o, err := openObject(fixture("kern.elf"))
		if err != nil {
			t.Fatal(err)
		}
		dst := btf.NewSpec(base)
		c := New(o.DWARF, dst)
		offs, names := typeDIEs(t, o.DWARF)
		for _, off := range offs {
			if _, err := c.TypeID(off); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Commit(); err != nil {
			t.Fatal(err)
		}
		if c.Added() < 30 {
			t.Errorf("only %d types added", c.Added())
		}
		for _, e := range dst.Validate() {
			t.Error(e)
		}
		for _, off := range offs {
			id, _ := c.TypeID(off)
			checkType(t, o.DWARF, dst, off, id, names[off])
		}
		raw, err := dst.Marshal(btf.MarshalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = raw
		} else if !bytes.Equal(first, raw) {
			t.Error("different bytes on the second run")
		}
		o.Close()
	}
	// bpftool (the reference) reads the added types on the base.
	bpftool := testutil.RefTool(t, "bpftool")
	base := loadBase(t, fixture("other.elf"))
	braw, err := base.Marshal(btf.MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bp, sp := filepath.Join(dir, "base.btf"), filepath.Join(dir, "split.btf")
	os.WriteFile(bp, braw, 0o644)
	os.WriteFile(sp, first, 0o644)
	out, err := exec.Command(bpftool, "btf", "dump", "file", sp, "-B", bp).CombinedOutput()
	if err != nil {
		t.Fatalf("bpftool: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("STRUCT 'tcp_sock' size=136 vlen=12")) || !bytes.Contains(out, []byte("TYPEDEF 'point_t'")) {
		t.Errorf("bpftool output lacks the converted types:\n%s", out)
	}
}

// TestConvertCycles: cycle.o's types on an unrelated base, where every
// one is added. "struct bus *" is reached again through its own pointee
// (bus.ops.compute's parameter is the same pointer DIE): the inner one
// becomes a second PTR to the struct's reserved id, not an error. struct
// deep has a member nested deeper than the converter follows: the pointer
// to it fails with that reason, and deep's reserved id is left an empty
// struct of deep's size, so the rest commits and validates.
func TestConvertCycles(t *testing.T) {
	o, dst, c := convertOn(t, "cycle.o", "other.elf")
	busID, err := c.TypeID(typeNamed(t, o, "*struct bus"))
	if err != nil {
		t.Fatalf("struct bus *: %v", err)
	}
	if _, err := c.TypeID(typeNamed(t, o, "*struct deep")); err == nil || !strings.Contains(err.Error(), "type nesting too deep") {
		t.Fatalf("struct deep *: error %v, want type nesting too deep", err)
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, e := range dst.Validate() {
		t.Error(e)
	}
	// Follow bus -> ops -> compute -> its parameter: a PTR to bus again.
	ptr, _ := dst.TypeByID(busID)
	busStruct := btf.TypeID(ptr.SizeType)
	member := func(id btf.TypeID, name string) btf.TypeID {
		t.Helper()
		s, err := dst.TypeByID(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range s.Members() {
			if n, _ := dst.StringAt(m.NameOff); n == name {
				return m.Type
			}
		}
		t.Fatalf("[%d] %s has no member %s", id, dst.Name(s), name)
		return 0
	}
	cptr, _ := dst.TypeByID(member(member(busStruct, "ops"), "compute"))
	proto, _ := dst.TypeByID(btf.TypeID(cptr.SizeType))
	ps := proto.Params()
	if proto.Kind() != btf.KindFuncProto || len(ps) != 1 {
		t.Fatalf("compute is [%d] %s with %d parameters, want a FUNC_PROTO with 1", cptr.SizeType, proto.Kind(), len(ps))
	}
	inner, _ := dst.TypeByID(ps[0].Type)
	if inner.Kind() != btf.KindPtr || btf.TypeID(inner.SizeType) != busStruct {
		t.Errorf("compute's parameter is [%d] %s to [%d], want a PTR to struct bus [%d]", ps[0].Type, inner.Kind(), inner.SizeType, busStruct)
	}
	var deeps []string
	for i, ty := range dst.Types() {
		if ty.Kind() == btf.KindStruct && dst.Name(&ty) == "deep" {
			deeps = append(deeps, fmt.Sprintf("[%d] size %d vlen %d", dst.FirstID()+btf.TypeID(i), ty.SizeType, ty.Vlen()))
		}
	}
	if len(deeps) != 1 || !strings.HasSuffix(deeps[0], " size 16 vlen 0") {
		t.Errorf("struct deep added as %v, want one empty struct of size 16", deeps)
	}
}

// TestConvertEnumDecl: cycle.o names enum irq_state in struct chip's
// member prototype without defining it (as gcc 14 writes linux/irq.h's
// enum irqchip_irq_state into units that only name it); chip.elf's BTF
// has the enum defined. A declared enum is libbpf's "enum fwd": it
// matches the defined one, so struct chip is found, nothing added.
func TestConvertEnumDecl(t *testing.T) {
	o, dst, c := convertOn(t, "cycle.o", "chip.elf")
	id, err := c.TypeID(typeNamed(t, o, "*struct chip"))
	if err != nil {
		t.Fatal(err)
	}
	if id >= dst.FirstID() || c.Added() != 0 {
		t.Errorf("struct chip *: [%d], %d types added; want chip.elf's, none added", id, c.Added())
	}
}

// convertOn opens the fixture obj and a Converter of its DWARF onto a
// split Spec on base's .BTF; closed at the test's end.
func convertOn(t *testing.T, obj, base string) (*testObject, *btf.Spec, *Converter) {
	t.Helper()
	b := loadBase(t, fixture(base))
	o, err := openObject(fixture(obj))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	dst := btf.NewSpec(b)
	return o, dst, New(o.DWARF, dst)
}

// typeNamed is the offset of the top-level type DIE of o that Go's
// debug/dwarf spells name ("*struct chip").
func typeNamed(t *testing.T, o *testObject, name string) dwarf.Offset {
	t.Helper()
	offs, _ := typeDIEs(t, o.DWARF)
	for _, off := range offs {
		if dt, err := o.DWARF.Type(off); err == nil && dt.String() == name {
			return off
		}
	}
	t.Fatalf("no DWARF type %s", name)
	return 0
}
