package trace

import (
	"fmt"
	"sort"

	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/ksys"
)

// ksyms symbolises kernel addresses for --stack: the text symbols of
// /proc/kallsyms (vmlinux and modules), nearest below.
type ksyms struct {
	syms []ksym.Symbol
}

func loadKsyms(sys ksys.System) (*ksyms, error) {
	k, err := sys.Kallsyms()
	if err != nil {
		return nil, err
	}
	s := append([]ksym.Symbol(nil), k.Text...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Addr < s[j].Addr })
	return &ksyms{s}, nil
}

// name spells addr as sym+0xoff [module].
func (k *ksyms) name(addr uint64) string {
	if k == nil {
		return fmt.Sprintf("%#x", addr)
	}
	i := sort.Search(len(k.syms), func(i int) bool { return k.syms[i].Addr > addr }) - 1
	if i < 0 {
		return fmt.Sprintf("%#x", addr)
	}
	s := k.syms[i]
	n := s.Name
	if off := addr - s.Addr; off != 0 {
		n += fmt.Sprintf("+%#x", off)
	}
	if s.Module != "" {
		n += " [" + s.Module + "]"
	}
	return n
}
