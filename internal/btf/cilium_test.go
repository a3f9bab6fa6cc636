package btf

import (
	"bytes"
	"fmt"
	"testing"

	cilium "github.com/cilium/ebpf/btf"
)

// ciliumKind names a cilium/ebpf type the way Kind.String does.
func ciliumKind(t cilium.Type) string {
	switch t.(type) {
	case *cilium.Int:
		return "INT"
	case *cilium.Pointer:
		return "PTR"
	case *cilium.Array:
		return "ARRAY"
	case *cilium.Struct:
		return "STRUCT"
	case *cilium.Union:
		return "UNION"
	case *cilium.Enum:
		return "ENUM|ENUM64"
	case *cilium.Fwd:
		return "FWD"
	case *cilium.Typedef:
		return "TYPEDEF"
	case *cilium.Volatile:
		return "VOLATILE"
	case *cilium.Const:
		return "CONST"
	case *cilium.Restrict:
		return "RESTRICT"
	case *cilium.Func:
		return "FUNC"
	case *cilium.FuncProto:
		return "FUNC_PROTO"
	case *cilium.Var:
		return "VAR"
	case *cilium.Datasec:
		return "DATASEC"
	case *cilium.Float:
		return "FLOAT"
	case *cilium.TypeTag:
		return "TYPE_TAG"
	}
	return fmt.Sprintf("%T", t)
}

// TestCiliumAgrees reads the kernel BTF with cilium/ebpf, an independent
// decoder, and checks that every type id has the same kind and name in ours,
// for vmlinux and for a module split on it.
func TestCiliumAgrees(t *testing.T) {
	raw, ours := vmlinux(t)
	theirs, err := cilium.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	modRaw := readFixture(t, "tcp_bbr.btf.gz")
	modOurs, err := Parse(modRaw, ours)
	if err != nil {
		t.Fatal(err)
	}
	modTheirs, err := cilium.LoadSplitSpecFromReader(bytes.NewReader(modRaw), theirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		ours   *Spec
		theirs *cilium.Spec
	}{{"vmlinux", ours, theirs}, {"tcp_bbr", modOurs, modTheirs}} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			for id := c.ours.FirstID(); id < c.ours.NextID(); id++ {
				ot, err := c.ours.TypeByID(id)
				if err != nil {
					t.Fatal(err)
				}
				tt, err := c.theirs.TypeByID(cilium.TypeID(id))
				if err != nil {
					t.Fatalf("cilium: id %d: %v", id, err)
				}
				kind := ot.Kind().String()
				want := ciliumKind(tt)
				if kind == "ENUM" || kind == "ENUM64" {
					kind = "ENUM|ENUM64" // cilium folds both into Enum
				}
				if kind != want {
					t.Fatalf("id %d: kind %s, cilium %s", id, kind, want)
				}
				if name := c.ours.Name(ot); name != tt.TypeName() {
					t.Fatalf("id %d: name %q, cilium %q", id, name, tt.TypeName())
				}
				n++
			}
			if n < 20 {
				t.Fatalf("only %d types compared", n)
			}
			t.Logf("%d types agree", n)
		})
	}
}
