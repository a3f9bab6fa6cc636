package btfinline

import (
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are the objects the API is checked on: linked images of both
// architectures and a module on its image.
var fixtures = []struct {
	name  string
	path  string
	bases []string
}{
	{"x86_64.elf", "internal/resolve/testdata/x86_64.elf", nil},
	{"x86_64.o", "internal/resolve/testdata/x86_64.o", []string{"internal/resolve/testdata/x86_64.elf"}},
	{"aarch64.elf", "internal/resolve/testdata/aarch64.elf", nil},
	{"aarch64.o", "internal/resolve/testdata/aarch64.o", []string{"internal/resolve/testdata/aarch64.elf"}},
}

// TestPlacesAreResolves: every place of every function of the fixtures
// is the place "btfinline resolve" gives, with its fetches.
func TestPlacesAreResolves(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			tg, err := Open(fx.path, fx.bases...)
			if err != nil {
				t.Fatal(err)
			}
			sites, err := tg.Sites()
			if err != nil {
				t.Fatal(err)
			}
			if len(sites) == 0 {
				t.Fatal("no sites")
			}
			funcs := map[string]bool{}
			for _, s := range sites {
				funcs[s.Func] = true
			}
			checked := 0
			for fn := range funcs {
				places, err := tg.Places(fn)
				if err != nil {
					t.Fatal(err)
				}
				r, err := tg.t.Resolve(fn, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(places) != len(r.Places) {
					t.Fatalf("%s: %d places, resolve has %d", fn, len(places), len(r.Places))
				}
				for i, p := range places {
					rp := &r.Places[i]
					if p.Probe != rp.Target || p.Address != rp.Addr || p.SectionOffset != rp.SectionOff || (p.Refusal == nil) != rp.Refusal.OK() {
						t.Errorf("%s place %d: %+v, resolve %+v", fn, i, p, rp)
					}
					for k, parts := range rp.ByParam(len(r.Params)) {
						a := p.Args[k]
						if len(parts) == 1 && a.Kprobe != parts[0].Arg {
							t.Errorf("%s place %d arg %s: kprobe %q, resolve %q", fn, i, a.Name, a.Kprobe, parts[0].Arg)
						}
						if len(a.Fetch) > 0 && len(a.Fetch) != len(parts) || len(a.Fetch) == 0 && a.Unavailable == "" {
							t.Errorf("%s place %d arg %s: %d fetches for %d parts, unavailable %q", fn, i, a.Name, len(a.Fetch), len(parts), a.Unavailable)
						}
						for j, f := range a.Fetch {
							rd := parts[j].Read
							if f.Const != rd.Const || f.Offset != rd.Off || f.Size != rd.Size || !f.Const && f.Register != rd.Reg {
								t.Errorf("%s place %d arg %s part %d: %+v, resolve %+v", fn, i, a.Name, j, f, rd)
							}
						}
						checked++
					}
				}
			}
			if checked == 0 {
				t.Error("no argument checked")
			}
		})
	}
}

func TestPlacesNotFound(t *testing.T) {
	tg, err := Open(fixtures[0].path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tg.Places("cwnd_sett")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Func != "cwnd_sett" || len(nf.Suggestions) == 0 {
		t.Fatalf("err %v, want a NotFoundError with suggestions", err)
	}
}

// TestAttachNeedsRunning: places of a file have link-time addresses,
// which Attach refuses before it asks the kernel.
func TestAttachNeedsRunning(t *testing.T) {
	tg, err := Open(fixtures[0].path)
	if err != nil {
		t.Fatal(err)
	}
	places, err := tg.Places("cwnd_set")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(nil, places); err == nil || !strings.Contains(err.Error(), "OpenRunning") {
		t.Errorf("Attach of a file's places: %v, want a pointer to OpenRunning", err)
	}
	places[0].running = true
	if _, err := Attach(nil, places[1:2]); err == nil || !strings.Contains(err.Error(), "OpenRunning") {
		t.Errorf("Attach of a file's places: %v, want a pointer to OpenRunning", err)
	}
	places[1].running = true
	if _, err := Attach(nil, places[1:2]); err == nil || !strings.Contains(err.Error(), "kprobe program") {
		t.Errorf("Attach(nil): %v, want a kprobe program asked for", err)
	}
}

// TestExamplesUsePublicAPI: the programs under examples/ import no
// internal package, so that they show what a caller outside the module
// can do.
func TestExamplesUsePublicAPI(t *testing.T) {
	files, _ := filepath.Glob("examples/*/*.go")
	if len(files) == 0 {
		t.Fatal("no example programs")
	}
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if strings.Contains(imp.Path.Value, "/internal") {
				t.Errorf("%s imports %s", f, imp.Path.Value)
			}
		}
	}
}
