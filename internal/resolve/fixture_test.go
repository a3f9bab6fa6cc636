package resolve

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/btfinline/btfinline/internal/ksym"

	"github.com/btfinline/btfinline/internal/testutil"
)

var fixtureArchs = []string{"x86_64", "aarch64"}

func fixture(name string) string { return filepath.Join("testdata", name) }

// TestSymTabVsNm: every function symbol nm -S lists is found by Lookup at
// its start and its last byte, with the same name or an alias.
func TestSymTabVsNm(t *testing.T) {
	nm := testutil.RefTool(t, "nm")
	for _, arch := range fixtureArchs {
		for _, obj := range []string{arch + ".elf", arch + ".o"} {
			t.Run(obj, func(t *testing.T) {
				f, err := elf.Open(fixture(obj))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				st, err := ksym.ELFSymTab(f)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(nm, "-S", "--defined-only", fixture(obj)).Output()
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				sc := bufio.NewScanner(bytes.NewReader(out))
				for sc.Scan() {
					fs := strings.Fields(sc.Text())
					if len(fs) != 4 || (fs[2] != "T" && fs[2] != "t") {
						continue
					}
					addr, _ := strconv.ParseUint(fs[0], 16, 64)
					size, _ := strconv.ParseUint(fs[1], 16, 64)
					l := st.ByName(fs[3])
					if len(l) == 0 {
						continue // not STT_FUNC (e.g. a label)
					}
					n++
					sec := l[0].Section
					for _, a := range []uint64{addr, addr + size - 1} {
						s, off, ok := st.Lookup(sec, a)
						if !ok || s.Addr != addr || off != a-addr {
							t.Errorf("Lookup(%s, %#x) = %s+%#x %v, want %s+%#x", sec, a, s.Name, off, ok, fs[3], a-addr)
						}
					}
				}
				if n < 8 {
					t.Errorf("only %d functions compared", n)
				}
			})
		}
	}
}

// TestRulesFixture: the fixture's regions come out with their reasons.
func TestRulesFixture(t *testing.T) {
	for _, arch := range fixtureArchs {
		for _, obj := range []string{arch + ".elf", arch + ".o"} {
			t.Run(obj, func(t *testing.T) {
				base := []string(nil)
				if strings.HasSuffix(obj, ".o") {
					base = []string{fixture(arch + ".elf")}
				}
				tg, err := Open(Options{File: fixture(obj), Bases: base})
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]string{
					"nmi_handler": "NOKPROBE_SYMBOL(nmi_handler)",
					"enter_idle":  "noinstr (.noinstr.text)",
					"setup":       "init text (freed after boot)",
					"disconnect":  "",
					"ack":         "",
				}
				if tg.Space.Rel() {
					want["setup"] = "module init text (freed after load)"
				}
				for fn, why := range want {
					l := tg.Syms.ByName(fn)
					if len(l) != 1 {
						t.Fatalf("%s: %d symbols", fn, len(l))
					}
					if got := tg.Rules.Check(l[0].Section, l[0].Addr+1, fn).String(); got != why {
						t.Errorf("%s: %q, want %q", fn, got, why)
					}
				}
				// Every site gets a caller, and notrace exactly where the
				// rules say.
				sites, marks, err := tg.Sites()
				if err != nil {
					t.Fatal(err)
				}
				noAddr := 0
				for _, m := range marks {
					if m.NoAddr != "" {
						noAddr++
					}
				}
				if len(sites) != 8 || noAddr != 0 {
					t.Fatalf("%d sites, %d without address", len(sites), noAddr)
				}
				for i, s := range sites {
					if s.Caller == "" {
						t.Errorf("site %d at %s+%#x has no caller", i, s.Section, s.SectionOff)
					}
					if got := marks[i].NoTrace; got != want[s.Caller] {
						t.Errorf("site in %s: notrace %q, want %q", s.Caller, got, want[s.Caller])
					}
				}
			})
		}
	}
}

// TestResolveFixture: entries of the out-of-line copy and of gcc clones.
func TestResolveFixture(t *testing.T) {
	tg, err := Open(Options{File: fixture("x86_64.elf")})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tg.Resolve("mul3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Places) != 2 || r.Places[0].Kind != PlaceEntry || r.Places[1].Kind != PlaceInline {
		t.Fatalf("places %+v", r.Places)
	}
	if e := r.Places[0]; e.Fetches[0].Arg != "%di:s64" || e.Fetches[1].Arg != "%si:s64" {
		t.Errorf("entry args %+v", e.Fetches)
	}
	r, err = tg.Resolve("scale", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Places) != 1 || !strings.HasPrefix(r.Places[0].Symbol, "scale.") || r.Places[0].Note == "" {
		t.Errorf("clone: %+v", r.Places)
	}
	_, err = tg.Resolve("disconect", nil)
	nf, ok := err.(*NotFoundError)
	if !ok || len(nf.Suggestions) == 0 || nf.Suggestions[0] != "disconnect" {
		t.Errorf("err = %v", err)
	}
}
