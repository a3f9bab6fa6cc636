package btf

import (
	"strings"
	"testing"
)

// validBase is a small base BTF that validates cleanly: [1] int, [2]
// FUNC_PROTO int(arg1..arg6), [3] FUNC foo, [4]-[9] LOC_PARAM, [10]
// LOC_PROTO, [11] LOCSEC; plus [12] struct s {int a; int b:3;}, [13] VAR v
// of int, [14] unsigned char.
func validBase(t *testing.T) *Spec {
	s := goldenLoc(t)
	mustAdd(t, s, NewStruct(s.AddString("s"), 8, []Member{{s.AddString("a"), 1, 0}, {s.AddString("b"), 1, 3<<24 | 32}}, false))
	mustAdd(t, s, NewVar(s.AddString("v"), 1, 0))
	mustAdd(t, s, NewInt(s.AddString("unsigned char"), 1, 0, 0, 8))
	for _, l := range []Loader{LoaderBTFLoad, LoaderKernel} {
		if errs := s.ValidateFor(l); len(errs) != 0 {
			t.Fatal(l, errs)
		}
	}
	return s
}

// TestKernelCtype: the identifier and section-name rules classify bytes
// like the kernel's lib/ctype.c, Latin-1 included (isalpha(0xe9) is true
// there, isprint(0xa0) too, 0x80-0x9f are nothing).
func TestKernelCtype(t *testing.T) {
	for _, c := range []struct {
		name         string
		ident, secOK bool
	}{
		{"inline.text", true, true},
		{"_x.1", true, true},
		{"1x", false, true},
		{"a b", false, true},
		{"a\tb", false, false},
		{"caf\xe9", true, true},
		{"\xe9t\xe9", true, true},
		{"x\xd7y", false, true}, // multiplication sign: punctuation
		{"x\xf7y", false, true}, // division sign
		{"\xa0", false, true},   // no-break space: printable
		{"x\x85", false, false}, // C1 control
		{"x\x7f", false, false},
		{"", false, false},
		{strings.Repeat("a", ksymNameLen), true, true},
		{strings.Repeat("a", ksymNameLen+1), false, false},
	} {
		if got := validIdentifier([]byte(c.name)); got != c.ident {
			t.Errorf("identifier %q: %v", c.name, got)
		}
		if got := validSection([]byte(c.name)); got != c.secOK {
			t.Errorf("section %q: %v", c.name, got)
		}
	}
}

func TestLoaderNames(t *testing.T) {
	for _, l := range []Loader{LoaderBTFLoad, LoaderKernel} {
		p, err := ParseLoader(l.String())
		if err != nil || p != l {
			t.Fatal(l, p, err)
		}
	}
	if s := Loader(7).String(); s != "Loader(7)" {
		t.Fatal(s)
	}
	if _, err := ParseLoader("kernel"); err == nil {
		t.Fatal("unknown loader name accepted")
	}
}

// TestValidateBuiltSpec: rules Parse already enforces on blobs, checked on
// specs built in memory (no header to check): the kernel's string-section
// and type-section messages.
func TestValidateBuiltSpec(t *testing.T) {
	check := func(s *Spec, load, module string) {
		t.Helper()
		for _, c := range []struct {
			l    Loader
			want string
		}{{LoaderBTFLoad, load}, {LoaderKernel, module}} {
			var got []string
			for _, e := range s.ValidateFor(c.l) {
				got = append(got, e.(*ValidationError).Log)
			}
			if strings.Join(got, "\n") != c.want {
				t.Errorf("%s: got %q, want %q", c.l, got, c.want)
			}
		}
	}
	check(NewSpec(nil), "No type found", "")
	s := validBase(t)
	s.strings[0] = 'x'
	check(s, "Invalid string section", "Invalid string section")
	s = validBase(t)
	s.strings = append(s.strings, 'x')
	check(s, "Invalid string section", "Invalid string section")
	// Split BTF may have no strings of its own.
	check(NewSpec(validBase(t)), "", "")
}
