package trace

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/ksys"

	"github.com/btfinline/btfinline/internal/resolve"
)

const testSlide = 0x2000000

// fakeRoot is a /proc with the kallsyms of an ELF moved by testSlide, as a
// KASLR kernel of that build shows it.
func fakeRoot(t *testing.T, path string) ksys.System {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	haveStext := false
	for _, s := range syms {
		haveStext = haveStext || s.Name == "_stext"
	}
	if text := f.Section(".text"); !haveStext && text != nil {
		fmt.Fprintf(&b, "%016x T _stext\n", text.Addr+testSlide)
	}
	for _, s := range syms {
		if s.Value == 0 || s.Name == "" {
			continue
		}
		typ := "t"
		switch {
		case elf.ST_TYPE(s.Info) == elf.STT_FUNC && elf.ST_BIND(s.Info) == elf.STB_GLOBAL:
			typ = "T"
		case elf.ST_TYPE(s.Info) == elf.STT_FUNC:
		case s.Name == "_stext" || s.Name == "_text" || strings.HasPrefix(s.Name, "_"):
			typ = "T"
		default:
			typ = "d"
		}
		fmt.Fprintf(&b, "%016x %s %s\n", s.Value+testSlide, typ, s.Name)
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "proc/kallsyms"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return ksys.System{Root: root}
}

// The synthetic machine state of the plan tests: DWARF register r holds
// regValue(r), a kernel address, and the kernel memory around every such
// address reads pattern bytes.
func regValue(r uint32) uint64 { return 0xffff_8880_0000_0000 + uint64(r)<<16 }
func pattern(a uint64) byte    { return byte(a*131 + a>>8*7 + 3) }

func patternAt(a uint64, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(pattern(a+uint64(i)))
	}
	return v
}

func (h *harness) patternMemory(nregs int) {
	for r := 0; r < nregs; r++ {
		base := regValue(uint32(r)) - 0x800
		b := make([]byte, 0x1000)
		for i := range b {
			b[i] = pattern(base + uint64(i))
		}
		h.vm.kernelMem(base, b)
	}
}

var (
	kpReg   = regexp.MustCompile(`^%([a-z0-9]+):([sux])(\d+)$`)
	kpMem   = regexp.MustCompile(`^([+-]\d+)\(%([a-z0-9]+)\):([sux])(\d+)$`)
	kpImm   = regexp.MustCompile(`^\\(0x[0-9a-f]+):([sux])(\d+)$`)
	btRegOf = regexp.MustCompile(`^\(uint64\)\(reg\("([a-z0-9]+)"\) ([+-]\d+)\)$`)
)

// oracle evaluates a fetch the way kprobe_events (or, for a register plus
// an offset, bpftrace) would against the synthetic state: independently
// of the Read the program is built from.
func oracle(t *testing.T, a arch.Arch, f resolve.Fetch) (uint64, bool) {
	t.Helper()
	reg := func(name string) uint64 {
		for r := uint32(0); r < 40; r++ {
			if n, ok := a.RegName(r); ok && n == name {
				return regValue(r)
			}
			if n, ok := a.BpftraceReg(r); ok && n == name {
				return regValue(r)
			}
		}
		t.Fatalf("no register %q", name)
		return 0
	}
	typed := func(v uint64, k, bits string) uint64 {
		n, _ := strconv.Atoi(bits)
		if n < 64 {
			v &= 1<<uint(n) - 1
			if k == "s" {
				v = uint64(int64(v<<(64-uint(n))) >> (64 - uint(n)))
			}
		}
		return v
	}
	switch {
	case f.Arg == "" && f.Read == nil:
		return 0, false
	case kpReg.MatchString(f.Arg):
		m := kpReg.FindStringSubmatch(f.Arg)
		return typed(reg(m[1]), m[2], m[3]), true
	case kpMem.MatchString(f.Arg):
		m := kpMem.FindStringSubmatch(f.Arg)
		off, _ := strconv.ParseInt(m[1], 10, 64)
		n, _ := strconv.Atoi(m[4])
		return typed(patternAt(reg(m[2])+uint64(off), n/8), m[3], m[4]), true
	case kpImm.MatchString(f.Arg):
		m := kpImm.FindStringSubmatch(f.Arg)
		v, _ := strconv.ParseUint(m[1], 0, 64)
		return typed(v, m[2], m[3]), true
	case btRegOf.MatchString(f.Expr):
		m := btRegOf.FindStringSubmatch(f.Expr)
		off, _ := strconv.ParseInt(m[2], 10, 64)
		return reg(m[1]) + uint64(off), true
	}
	t.Fatalf("cannot evaluate fetch %+v", f)
	return 0, false
}

// Every attachable place of the resolve fixtures, through the whole
// path: resolve's places and fetch specs, the plan's slots, the program;
// each word must be what kprobe_events would fetch there.
func TestPlanFixtures(t *testing.T) {
	for _, tc := range []struct {
		file  string
		funcs []string
	}{
		{"x86_64.elf", []string{"cwnd_set", "stamp_set", "mul3"}},
		{"aarch64.elf", []string{"cwnd_set", "stamp_set", "mul3"}},
		{"abi-x86_64.elf", []string{"f_int", "f_pair", "f_big", "f_spill", "f_small", "f_i128", "f_bits", "f_many"}},
		{"abi-aarch64.elf", []string{"f_int", "f_pair", "f_big", "f_spill", "f_small", "f_i128", "f_bits", "f_many"}},
	} {
		path := filepath.Join("..", "resolve", "testdata", tc.file)
		sys := fakeRoot(t, path)
		for _, fn := range tc.funcs {
			t.Run(tc.file+"/"+fn, func(t *testing.T) {
				pl, err := makePlan(Options{Probes: []Probe{{Func: fn}}, File: path, Sys: sys})
				if err != nil {
					t.Fatal(err)
				}
				pp := pl.probes[0]
				attached := 0
				for i, s := range pl.sites {
					if s.refused != "" {
						continue
					}
					attached++
					h := newHarness(t, pp.arch, progConfig{layout: pp.layout, types: pp.types, strs: pp.strs}, len(pl.sites))
					h.patternMemory(32)
					h.setSite(i, s.slots)
					regs := map[uint32]uint64{}
					for r := uint32(0); r < 32; r++ {
						if _, ok := pp.arch.RegName(r); ok && r < uint32(len(mustRegs(pp.arch).offsets())) {
							regs[r] = regValue(r)
						}
					}
					e := h.one(i, regs)
					checkSite(t, pp, s, e)
				}
				if attached == 0 {
					t.Fatal("no attachable place")
				}
			})
		}
	}
}

func mustRegs(a arch.Arch) ptRegs {
	r, _ := regsOf(a)
	return r
}

// checkSite compares each word of an event with the oracle of the fetch
// it comes from.
func checkSite(t *testing.T, pp *probePlan, s *site, e rawEvent) {
	t.Helper()
	byParam := s.place.ByParam(len(pp.params))
	for _, f := range pp.fields {
		fs := byParam[f.param]
		for w := 0; w < f.words; w++ {
			word := f.word + w
			var want uint64
			ok := false
			if w < len(fs) {
				want, ok = oracle(t, pp.arch, fs[w])
			}
			avail := e.Avail&(1<<uint(word)) != 0
			if avail != ok {
				t.Errorf("%s %s word %d: available %v, the fetch %+v says %v", where(s.place), f.name, w, avail, fs, ok)
				continue
			}
			if !ok {
				continue
			}
			got := e.Words[word]
			// The event word is normalised to the C type; the oracle to
			// the fetch type, which may be wider (s64 for a long).
			mask := ^uint64(0)
			if n := pp.types[word].bytes; n < 8 {
				mask = 1<<(8*uint(n)) - 1
			}
			if got&mask != want&mask {
				t.Errorf("%s %s word %d: %#x, kprobe_events would fetch %#x (%s)", where(s.place), f.name, w, got, want, fs[w].Arg)
			}
		}
	}
}
