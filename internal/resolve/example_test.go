package resolve_test

import (
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/internal/resolve"
)

// Resolve an inlined function of an object that carries its .BTF.inline,
// as "btfinline resolve" does: every place a kprobe fires, whether the
// kernel would let it, and how to fetch each argument there.
func ExampleTarget_Resolve() {
	t, err := resolve.Open(resolve.Options{File: "testdata/x86_64.elf"})
	if err != nil {
		panic(err)
	}
	r, err := t.Resolve("cwnd_set", nil)
	if err != nil {
		panic(err)
	}
	for _, p := range r.Places[:3] {
		var args []string
		for _, f := range p.Fetches {
			args = append(args, f.Name+"="+f.Arg)
		}
		why := "traceable"
		if !p.Refusal.OK() {
			why = "refused: " + p.Refusal.Detail
		}
		fmt.Printf("%s %s %s (%s)\n", p.Kind, p.Target, strings.Join(args, " "), why)
	}
	// Output:
	// inline nmi_handler+0x3 sk=%di:x64 val=%si:u32 (refused: NOKPROBE_SYMBOL(nmi_handler))
	// inline disconnect sk=%di:x64 val=\0xa:u32 (traceable)
	// inline ack+0x7 sk=%di:x64 val=%ax:u32 (traceable)
}
