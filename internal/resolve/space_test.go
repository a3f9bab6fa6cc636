package resolve

import (
	"errors"
	"testing"
)

// TestSpace: what each kind of address space makes of a section offset,
// a symbol and an address constant.
func TestSpace(t *testing.T) {
	text := func(base uint64) func(string) (uint64, error) {
		return func(sec string) (uint64, error) {
			if sec != ".text" {
				return 0, errors.New("no " + sec)
			}
			return base, nil
		}
	}
	const stext = 0xffffffff81000000
	base := uint64(stext)
	perCPU := 0x1000 - base // relative to the base, wrapping
	linked := &Space{kind: elfLinked, section: text(stext), consts: stext, stext: stext}
	placed := linked.placed(0x2000000)
	for _, tc := range []struct {
		name      string
		s         *Space
		key       uint64 // Key(0x30, addr at .text+0x30)
		symAddr   uint64 // Symbol(".text", value)
		symOff    uint64
		constant  string // Const(0x10) or its reason
		perCPU    string // Const of per-CPU 0x1000 (x86-64 .data..percpu is linked at 0)
		fromStext bool
	}{
		{"linked", linked, stext + 0x30, stext + 0x30, 0x30, "0xffffffff81000010", "0x1000", true},
		{"placed", placed, stext + 0x30, stext + 0x2000030, 0x30, "0xffffffff83000010", "0x1000", true},
		{"kernel only", &Space{kind: kernelOnly, section: text(stext + 0x2000000), consts: stext + 0x2000000, stext: stext + 0x2000000},
			stext + 0x2000030, stext + 0x2000030, 0x30, "0xffffffff83000010", "unknown slide", true},
		{"module", &Space{kind: elfModule, section: text(0)}, 0x30, 0x30, 0x30, "unknown base", "unknown base", false},
		{"kernel module", &Space{kind: kernelModule, section: text(0xffffffffc0100000)}, 0xffffffffc0100030, 0xffffffffc0100030, 0x30, "unknown base", "unknown base", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec, err := tc.s.SectionAddr(".text")
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.s.Key(0x30, sec+0x30); got != tc.key {
				t.Errorf("Key = %#x, want %#x", got, tc.key)
			}
			// A symbol's value: the section offset in a module, else the
			// address the symbols have.
			value := uint64(0x30)
			if !tc.s.Rel() {
				value = tc.s.LinkTime(sec + 0x30)
			}
			addr, off, err := tc.s.Symbol(".text", value)
			if err != nil || addr != tc.symAddr || off != tc.symOff {
				t.Errorf("Symbol = %#x, %#x, %v, want %#x, %#x", addr, off, err, tc.symAddr, tc.symOff)
			}
			for _, c := range []struct {
				v    uint64
				want string
			}{{0x10, tc.constant}, {perCPU, tc.perCPU}} {
				a, why := tc.s.Const(c.v)
				got := why
				if why == "" {
					got = "0x" + hex(a)
				}
				switch c.want {
				case "unknown base", "unknown slide":
					if why == "" {
						t.Errorf("Const(%#x) = %#x, want a reason (%s)", c.v, a, c.want)
					}
				default:
					if got != c.want {
						t.Errorf("Const(%#x) = %s, want %s", c.v, got, c.want)
					}
				}
			}
			if _, ok := tc.s.FromStext(sec + 0x30); ok != tc.fromStext {
				t.Errorf("FromStext ok = %v, want %v", ok, tc.fromStext)
			}
		})
	}
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}
