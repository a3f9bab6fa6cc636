package locsec_test

import (
	"debug/elf"
	"fmt"
	"os"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/locsec"
	"github.com/btfinline/btfinline/internal/site"
)

// Read the inline sites of an object from its .BTF.inline alone, placed at
// the object's section addresses, and print them as "btfinline sites"
// does.
func ExampleDecode() {
	f, err := elf.Open("../resolve/testdata/x86_64.elf")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	own, err := btf.LoadELFSection(f, ".BTF", nil)
	if err != nil {
		panic(err)
	}
	inl, err := btf.LoadELFSection(f, ".BTF.inline", own)
	if err != nil {
		panic(err)
	}
	sites, err := locsec.Decode(inl, locsec.ELFBase(f))
	if err != nil {
		panic(err)
	}
	site.Sort(sites)
	fmt.Println(len(sites), "sites; the first two:")
	site.WriteSites(os.Stdout, sites[:2], site.FormatOptions{})
	// Output:
	// 8 sites; the first two:
	// 0x400113 ? .text cwnd_set(struct sock * sk [reg5], u32 val [reg4])
	// 0x400140 ? .text cwnd_set(struct sock * sk [reg5], u32 val [const 0xa])
}
