package btf_test

import (
	"fmt"
	"os"

	"github.com/btfinline/btfinline/internal/btf"
)

// Load a raw BTF blob, find a function by name, walk its prototype with
// the type facts of the chain, and check the blob with the kernel's rules.
func ExampleSpec_FuncsByName() {
	s, err := btf.LoadFile("testdata/kinds.x86_64.btf", nil)
	if err != nil {
		panic(err)
	}
	for _, id := range s.FuncsByName("add") {
		fn, _ := s.TypeByID(id)
		proto, _ := s.TypeByID(btf.TypeID(fn.SizeType))
		fmt.Printf("[%d] %s %s %s, returns %d bytes\n", id, fn.Kind(), fn.Linkage(), s.Name(fn), s.Size(btf.TypeID(proto.SizeType), 8))
		for _, p := range proto.Params() {
			name, _ := s.StringAt(p.NameOff)
			fmt.Printf("  %s: %d bytes\n", name, s.Size(p.Type, 8))
		}
	}
	fmt.Println("violations:", len(s.Validate()))
	// Output:
	// [69] FUNC static add, returns 4 bytes
	//   a: 4 bytes
	//   b: 4 bytes
	// violations: 0
}

// Dump a split blob's own types as "bpftool btf dump file" prints them.
func ExampleSpec_Dump() {
	s, err := btf.LoadFile("testdata/kinds.x86_64.btf", nil)
	if err != nil {
		panic(err)
	}
	one := btf.NewSpec(s)
	one.Add(btf.NewPtr(s.FuncsByName("add")[0]))
	one.Dump(os.Stdout, btf.DumpOptions{})
	// Output:
	// [70] PTR '(anon)' type_id=69
}
