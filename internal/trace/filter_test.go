package trace

import (
	"errors"
	"hash/fnv"
	"math/rand"
	"testing"

	"github.com/btfinline/btfinline/internal/arch"
)

// testBinding: a (u32), b (s64), c (u64, unavailable in the tests' Values
// unless set), p->len (s32), STATE_UP (a constant).
var testBinding = Binding{
	Word: func(name string) (int, bool, bool, error) {
		switch name {
		case "a":
			return 0, false, true, nil
		case "b":
			return 1, true, true, nil
		case "c":
			return 2, false, true, nil
		case "p->len":
			return 3, true, true, nil
		case "w":
			return 0, false, false, errors.New("w is a 16-byte struct: filter on one of its members")
		}
		return 0, false, false, nil
	},
	Const: func(name string) (uint64, bool) {
		if name == "STATE_UP" {
			return 3, true
		}
		return 0, false
	},
}

func TestFilterParse(t *testing.T) {
	for _, tc := range []struct {
		expr, err string
	}{
		{"a == 5", ""},
		{"a==5&&b<0||!(c&0x4)", ""},
		{"p->len >= -1", ""},
		{"(a & 0xff) != 0", ""},
		{"a & 0xf0 & 0x30 == 0x10", ""},
		{"a", ""},
		{"a ==", "unexpected end of expression"},
		{"a = 5", `unexpected '='`},
		{"(a == 5", `want ")"`},
		{"a == 5)", `unexpected ")"`},
		{"a == 0x", `bad number "0x"`},
		{"a == 99999999999999999999", "bad number"},
		{"a == --5", "want a number after"},
		{"a == -18446744073709551615", "does not fit in 64 bits"},
		{"a > b c", `unexpected "c"`},
		{"", "unexpected end"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := ParseFilter(tc.expr)
			if tc.err == "" && err != nil {
				t.Fatal(err)
			}
			if tc.err != "" && (err == nil || !contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
	deep := ""
	for i := 0; i < 100; i++ {
		deep += "("
	}
	if _, err := ParseFilter(deep + "a" + deep); err == nil || !contains(err.Error(), "nested deeper") {
		t.Errorf("deep nesting: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestFilterBind(t *testing.T) {
	for _, tc := range []struct{ expr, err string }{
		{"a == STATE_UP", ""},
		{"nope == 1", `"nope" is neither an argument`},
		{"w == 1", "16-byte struct"},
	} {
		f, err := ParseFilter(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Bind(testBinding)
		if (tc.err == "") != (err == nil) || err != nil && !contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.expr, err, tc.err)
		}
	}
}

func TestFilterEval(t *testing.T) {
	vals := Values{Words: []uint64{5, ^uint64(0), 0, uint64(1) << 63}, Avail: 0b1011}
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"a == 5", true},
		{"a != 5", false},
		{"b < 0", true},   // b is signed: -1
		{"b > 0", false},  // signed
		{"a < b", true},   // a unsigned: compared unsigned, 5 < 2^64-1
		{"b == -1", true}, //
		{"b >= -1 && b <= -1", true},
		{"a & 4", true},
		{"a & 2", false},
		{"(a & 0xff) == 5", true},
		{"c == 0", false},          // c unavailable: false
		{"!(c == 0)", true},        // ... and its negation true
		{"c == 0 || a == 5", true}, //
		{"c != 0 || a == 6", false},
		{"p->len < 0", true}, // signed 2^63 is negative
		{"a == STATE_UP", false},
		{"a > STATE_UP", true},
		{"5 < -1", false}, // no argument: constants compare signed
		{"a < -1", true},  // an unsigned argument: unsigned
	} {
		t.Run(tc.expr, func(t *testing.T) {
			f := mustBind(t, tc.expr)
			if got := f.Eval(vals); got != tc.want {
				t.Errorf("Eval = %v, want %v", got, tc.want)
			}
			if got := runFilter(t, f, vals); got != tc.want {
				t.Errorf("BPF = %v, want %v", got, tc.want)
			}
		})
	}
}

func mustBind(t testing.TB, expr string) *Filter {
	t.Helper()
	f, err := ParseFilter(expr)
	if err != nil {
		t.Fatal(err)
	}
	if f, err = f.Bind(testBinding); err != nil {
		t.Fatal(err)
	}
	return f
}

// runFilter runs f compiled into a program whose four words are the
// constants of vals (unavailable ones have no location) and says whether
// the hit was counted.
func runFilter(t testing.TB, f *Filter, vals Values) bool {
	tt, ok := t.(*testing.T)
	if !ok {
		tt = &testing.T{}
	}
	h := newHarness(tt, arch.X86_64, progConfig{layout: layout{words: 4}, types: u64(4), filter: f, mode: ModeCount}, 1)
	var slots []Slot
	for w := 0; w < 4; w++ {
		s := Slot{Kind: slotConst, Value: vals.Words[w]}
		if vals.Avail&(1<<w) == 0 {
			s = Slot{}
		}
		slots = append(slots, s)
	}
	h.setSite(0, slots)
	h.hit(0, nil)
	return h.count(h.counts, 0) == 1
}

// The compiled filter agrees with Eval on random values.
func TestFilterCompiled(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, expr := range []string{
		"a == 5 && (b < -3 || b > 7) || !(c & 0x4)",
		"a >= b || p->len <= -100",
		"a & 0xffffffff00000000 == 0 && b & 1",
		"!(a < 10) && !!(b != 0) || p->len > 3 && c",
	} {
		f := mustBind(t, expr)
		for i := 0; i < 300; i++ {
			v := randomValues(r)
			if got, want := runFilter(t, f, v), f.Eval(v); got != want {
				t.Fatalf("%s on %#x avail %b: BPF %v, Eval %v", expr, v.Words, v.Avail, got, want)
			}
		}
	}
}

func randomValues(r *rand.Rand) Values {
	v := Values{Avail: uint64(r.Intn(16))}
	for i := 0; i < 4; i++ {
		x := r.Uint64()
		switch r.Intn(4) {
		case 0:
			x = uint64(r.Intn(16))
		case 1:
			x = -uint64(r.Intn(16))
		case 2:
			x >>= uint(r.Intn(64))
		}
		v.Words = append(v.Words, x)
	}
	return v
}

// FuzzFilter: the parser never panics, and whatever it accepts compiles to
// BPF that agrees with Eval.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{"a == 5", "a&1||b<-2&&!(c>=0x10)", "p->len != 0", "((a))", "!a", "a & b & c == 0"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, expr string, seed uint64) {
		p, err := ParseFilter(expr)
		if err != nil {
			var fe *FilterError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		// Every name is some word, signed or not, by its hash.
		b := Binding{Word: func(name string) (int, bool, bool, error) {
			h := fnv.New32a()
			h.Write([]byte(name))
			x := h.Sum32()
			return int(x % 4), x&4 != 0, true, nil
		}}
		bf, err := p.Bind(b)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(int64(seed)))
		for i := 0; i < 4; i++ {
			v := randomValues(r)
			if got, want := runFilter(t, bf, v), bf.Eval(v); got != want {
				t.Fatalf("%q on %#x avail %b: BPF %v, Eval %v", expr, v.Words, v.Avail, got, want)
			}
		}
	})
}
