package btfindex

import (
	"compress/gzip"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/btfinline/btfinline/internal/btf"
)

func readBTF(t testing.TB, name string, base *btf.Spec) *btf.Spec {
	t.Helper()
	f, err := os.Open("../btf/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse(raw, base)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChainRecords: on the Debian vmlinux BTF and the tcp_bbr module's on
// it, the FUNCs of every name and the FUNC_PROTOs of every shape come back
// from the layers, root first, as the ascending lists a scan of the whole
// chain makes (the type converter's lookups are tested by its own
// package, through the same tables).
func TestChainRecords(t *testing.T) {
	vm := readBTF(t, "vmlinux.btf.gz", nil)
	mod := readBTF(t, "tcp_bbr.btf.gz", vm)
	layers := Chain(mod).Layers()
	if len(layers) != 2 {
		t.Fatalf("%d layers, want 2", len(layers))
	}
	funcs := map[uint32][]btf.TypeID{}
	var protos []btf.TypeID
	for id, ty := range mod.All() {
		switch ty.Kind() {
		case btf.KindFunc:
			n := mod.CanonicalString(ty.NameOff)
			funcs[n] = append(funcs[n], id)
		case btf.KindFuncProto:
			protos = append(protos, id)
		}
	}
	for name, want := range funcs {
		var got []btf.TypeID
		for _, l := range layers {
			l.Named(NamedKey(btf.KindFunc, name), func(id btf.TypeID) bool {
				if ty, err := mod.TypeByID(id); err == nil && ty.Kind() == btf.KindFunc && mod.CanonicalString(ty.NameOff) == name {
					got = append(got, id)
				}
				return true
			})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("FUNCs named %d: %v, want %v", name, got, want)
		}
	}
	for _, id := range protos {
		ty, _ := mod.TypeByID(id)
		sh := ShapeOf(ty)
		var first btf.TypeID
		for _, l := range layers {
			l.Other(sh.Key(), func(o btf.TypeID) bool {
				if oty, err := mod.TypeByID(o); err == nil && oty.Kind() == btf.KindFuncProto && ShapeOf(oty).Equal(sh) {
					first = o
				}
				return first == 0
			})
			if first != 0 {
				break
			}
		}
		if first == 0 || first > id {
			t.Fatalf("FUNC_PROTO [%d]: first of its shape %d", id, first)
		}
	}
	if len(funcs) == 0 || len(protos) == 0 {
		t.Fatalf("%d FUNC names, %d FUNC_PROTOs", len(funcs), len(protos))
	}
}

// BenchmarkIndexVmlinux indexes the Debian 6.1 vmlinux BTF (95,057 types),
// the fixed cost of encoding a module against it; the string index it
// needs is built outside the timing.
func BenchmarkIndexVmlinux(b *testing.B) {
	s := readBTF(b, "vmlinux.btf.gz", nil)
	s.FindString("int")
	b.ReportAllocs()
	for b.Loop() {
		New(s, nil)
	}
}
