package resolve

import (
	"debug/elf"
	"os"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/ksym"
)

// FuzzELFRules feeds arbitrary ELF bytes to what "resolve" reads from an
// object besides BTF: the symbol table, the kprobe rules (markers,
// _kprobe_blacklist, the patch-site tables and their relocations) and the
// relocated call frame information of a relocatable object. Bad input
// must give an error or no rule, never a panic or a huge allocation.
func FuzzELFRules(f *testing.F) {
	for _, name := range []string{"patch.o", "patch.elf", "x86_64.o", "aarch64.o"} {
		data, err := os.ReadFile(fixture(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elfobj.New(data)
		if err != nil {
			return
		}
		a, err := arch.FromELF(ef.Machine)
		if err != nil {
			return
		}
		es, err := ksym.ReadELFSymbols(ef.File, kprobe.MarkerNames())
		if err != nil {
			return
		}
		r, err := kprobe.ELFRules(ef, a, es.Funcs, es.Markers)
		if err == nil {
			r.Check(".text", 0, "x.isra.0")
		}
		if ef.Type == elf.ET_REL {
			if cfa, key := relCFA(ef, a); cfa != nil {
				for _, off := range []uint64{0, 1, 4, 16} {
					if pc, ok := key(".text", off); ok {
						cfa(pc)
					}
				}
			}
		}
	})
}
