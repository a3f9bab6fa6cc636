package btfinline

import (
	"context"
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/lookup"
	"github.com/btfinline/btfinline/internal/resolve"
	"github.com/btfinline/btfinline/internal/site"
)

// Target is one kernel object opened for inspection: vmlinux or a
// module, with its inline BTF, its symbols and the kernel's kprobe rules.
// A Target is safe for use by one goroutine at a time.
type Target struct {
	t *resolve.Target
}

// Open opens an object from files. path is an ELF with a .BTF.inline
// section (a vmlinux or module built with CONFIG_DEBUG_INFO_BTF_INLINE, or
// written by "btfinline encode --elf-section"), or a detached .BTF.inline
// (written by "btfinline encode -o"). bases are its base chain, root first:
// vmlinux for a module; for a detached file, the object's ELF last, which
// gives the symbols and section addresses. The addresses of an opened
// file are its link-time ones: for Attach, open the running kernel.
func Open(path string, bases ...string) (*Target, error) {
	t, err := resolve.Open(resolve.Options{File: path, Bases: bases})
	if err != nil {
		return nil, err
	}
	return &Target{t}, nil
}

// RunningOptions steer OpenRunning. The zero value (or nil) is the
// command line's default.
type RunningOptions struct {
	// Root is where the host's / is, as this process sees it: "" for /,
	// or a mount of the host's /proc and /sys such as "/host" in a
	// container.
	Root string
	// Inline is a file holding the object's .BTF.inline, for a kernel
	// that publishes none; when set, nothing is looked up.
	Inline string
	// CacheDir is where inline BTF encoded on this machine is kept, by
	// the object's build id ("": $XDG_CACHE_HOME/btfinline, else
	// ~/.cache/btfinline).
	CacheDir string
	// NoFetch never downloads DWARF from the debuginfod servers of
	// DEBUGINFOD_URLS; local debug packages and the cache still serve.
	NoFetch bool
	// Log gets one line per step worth telling (a download, an encode);
	// nil is silent.
	Log func(format string, args ...any)
}

// OpenRunning opens an object of the running kernel: "vmlinux" (or "")
// or the name of a loaded module, with the running kernel's addresses.
// Its inline BTF is the first of: o.Inline; /sys/kernel/btf/NAME.inline;
// the cache, by the object's build id; the object's DWARF from this
// machine's debug packages or from debuginfod, encoded once and cached.
// Reading kernel addresses needs CAP_SYSLOG (root).
func OpenRunning(ctx context.Context, object string, o *RunningOptions) (*Target, error) {
	if o == nil {
		o = &RunningOptions{}
	}
	if object == "" {
		object = "vmlinux"
	}
	sys := ksys.System{Root: o.Root}
	inline := o.Inline
	if inline == "" {
		lo, _, err := lookup.Standard(sys, o.CacheDir, o.NoFetch)
		if err != nil {
			return nil, err
		}
		lo.Log = o.Log
		found, err := lookup.Find(ctx, []string{object}, lo)
		if err != nil {
			return nil, err
		}
		inline = found[0].Path
	}
	module := object
	if module == "vmlinux" {
		module = ""
	}
	t, err := resolve.Open(resolve.Options{Running: true, Module: module, Sys: sys, Inline: inline})
	if err != nil {
		return nil, err
	}
	return &Target{t}, nil
}

// Object names the object: "vmlinux", or the module's name.
func (t *Target) Object() string { return t.t.Name }

// Arch is the object's architecture: "x86_64" or "arm64".
func (t *Target) Arch() string { return t.t.Arch.String() }

// Running reports whether the addresses are the running kernel's, which
// Attach needs.
func (t *Target) Running() bool { return t.t.Running }

// Notes are caveats about the whole object, such as rules that could not
// be read; each is one line.
func (t *Target) Notes() []string { return append([]string(nil), t.t.Notes...) }

// Position says where a site or a place is in the object.
type Position struct {
	// Caller is the out-of-line function the address is in, and
	// CallerOffset the address's offset in it ("" when no function
	// symbol covers the address).
	Caller       string
	CallerOffset uint64
	// Section and SectionOffset say where the address is in the
	// object's sections.
	Section       string
	SectionOffset uint64
	// Address is the address (HasAddress false: the object's addresses
	// are not known, as for a detached file without its ELF).
	Address    uint64
	HasAddress bool
}

// Site is one inline expansion of a function, at the address a probe
// should use.
type Site struct {
	Func string // the inlined function
	Position
	// Refusal says which kprobe rule of the kernel refuses the address;
	// nil when a kprobe can sit there, or when the target has no
	// addresses to judge.
	Refusal *Refusal
	Params  []Param
}

// Param is a parameter of an inlined function at one site.
type Param struct {
	Name string
	Type string // the C type, as pfunct and bpftool print it
	// Location says where the value is at the site, with the registers'
	// names ("%di", "*(%sp+8)", "x1", "const 0x2", "unavailable").
	Location string
}

// Sites lists every inline site of the object, in address order.
func (t *Target) Sites() ([]Site, error) {
	sites, marks, err := t.t.Sites()
	if err != nil {
		return nil, err
	}
	// marks[i] is sites[i]'s: the sites are visited in order, not sorted.
	out := make([]Site, len(sites))
	for n, i := range site.Order(sites) {
		s := &sites[i]
		o := Site{Func: s.Func.Name, Position: Position{Caller: s.Caller, CallerOffset: s.CallerOff, Section: s.Section, SectionOffset: s.SectionOff,
			Address: s.Addr, HasAddress: t.t.HasAddresses() && marks[i].NoAddr == ""}}
		if o.HasAddress {
			o.Refusal = refusal(t.t.Traceable(s))
		}
		for j, p := range s.Func.Params {
			loc := "unavailable"
			if j < len(s.Params) {
				loc = site.FormatLocation(&s.Params[j], t.t.Arch.Spell)
			}
			o.Params = append(o.Params, Param{Name: p.Name, Type: p.Type, Location: loc})
		}
		out[n] = o
	}
	return out, nil
}

// NotFoundError is returned by Places for a function the object has
// neither inline sites nor an out-of-line copy of.
type NotFoundError struct {
	Func        string
	Suggestions []string // near names
}

func (e *NotFoundError) Error() string {
	return (&resolve.NotFoundError{Name: e.Func, Suggestions: e.Suggestions}).Error()
}

// Places returns every place a kprobe for function fn fires: the entry
// of each out-of-line copy (fn itself and gcc's clones, fn.isra.0 and
// the like), then each inline site in address order. A function the
// object does not know is a *NotFoundError.
func (t *Target) Places(fn string) ([]Place, error) {
	r, err := t.t.Resolve(fn, nil)
	if err != nil {
		var nf *resolve.NotFoundError
		if errors.As(err, &nf) {
			return nil, &NotFoundError{nf.Name, nf.Suggestions}
		}
		return nil, err
	}
	out := make([]Place, len(r.Places))
	for i := range r.Places {
		out[i] = newPlace(t, r, &r.Places[i])
	}
	return out, nil
}

func (t *Target) String() string { return fmt.Sprintf("%s (%s)", t.Object(), t.Arch()) }
