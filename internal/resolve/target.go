package resolve

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/ksym"
	"github.com/btfinline/btfinline/internal/ksys"
	"github.com/btfinline/btfinline/internal/site"

	"github.com/btfinline/btfinline/internal/btf"
	"github.com/btfinline/btfinline/internal/locsec"
)

// Options selects what to inspect.
type Options struct {
	File    string      // ELF with .BTF.inline, or a detached .BTF.inline blob
	Bases   []string    // -B: base chain, root first; an ELF base also gives symbols
	Running bool        // /sys/kernel/btf + /proc/kallsyms
	Module  string      // with Running: vmlinux (default) or a module name
	Sys     ksys.System // root of /proc and /sys (tests use a fake tree)
	// NoInline lets an ELF without .BTF.inline open (Spec is then its
	// .BTF); for "stats" without inline sites.
	NoInline bool
	// Inline, with Running and no File: the object's .BTF.inline from
	// this file instead of /sys/kernel/btf/MODULE.inline (kernels that do
	// not publish one); base BTF and addresses still come from the
	// running kernel.
	Inline string
	// Kernel, with Running: the kernel's shared state, when the caller
	// opens several of its objects (nil: read here).
	Kernel *Kernel
}

// Target is an opened object: its inline BTF, where its sections are, its
// symbols and the kprobe rules.
type Target struct {
	Name  string
	Arch  arch.Arch
	Spec  *btf.Spec    // .BTF.inline on top of its chain
	Main  *btf.Spec    // the object's own .BTF (Spec.Base())
	Syms  *ksym.SymTab // nil: no symbols, so no addresses
	Rules *kprobe.Rules
	// Space is where the object's sections are and what its addresses
	// mean (link time, run time, section offsets), made at open.
	Space   *Space
	Running bool
	CFA     CFAFunc
	// cfaKey maps a site of a relocatable object to the pc CFA expects
	// (relCFA's layout); nil for linked objects (link-time addresses).
	cfaKey func(section string, off uint64) (uint64, bool)
	// Notes are caveats to print once (stderr or a JSON field).
	Notes []string

	elf     *elfobj.File // the ELF giving symbols and sections, if any
	elfPath string
	markers map[string]uint64 // marker symbols of that ELF
}

// Open loads a target.
func Open(o Options) (*Target, error) {
	if o.Running && o.File == "" {
		if len(o.Bases) > 0 {
			return nil, errors.New("--running without FILE reads /sys/kernel/btf; -B needs a FILE")
		}
		t, err := openRunning(o)
		if err != nil {
			return nil, err
		}
		if err := t.check(); err != nil {
			return nil, err
		}
		return t, nil
	}
	if o.File == "" {
		return nil, errors.New("no input: give FILE (an ELF with .BTF.inline or a detached .BTF.inline with -B) or --running")
	}
	t, err := openFile(o)
	if err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	return t, nil
}

// check refuses a .BTF.inline that does not fit its base chain (sampled:
// 64 entries per LOCSEC).
func (t *Target) check() error {
	if t.Spec == t.Main {
		return nil // no .BTF.inline (stats without inline sites)
	}
	return NewDecoder(t.Spec).Check(64)
}

func loadBases(paths []string) (*btf.Spec, *elfobj.File, string, error) {
	var base *btf.Spec
	var ef *elfobj.File
	var efPath string
	for _, p := range paths {
		if ef != nil {
			ef.Close() // only the last base's ELF gives the symbols
		}
		ef, efPath = nil, ""
		if btf.IsELF(p) {
			// Keep the ELF open: if it is the last base, its symbol
			// table and section addresses place the sites.
			f, err := elfobj.Open(p)
			if err != nil {
				return nil, nil, "", err
			}
			s, err := btf.LoadELFSection(f.File, ".BTF", base)
			if err != nil {
				f.Close()
				return nil, nil, "", fmt.Errorf("base %s: %w", p, err)
			}
			base, ef, efPath = s, f, p
			continue
		}
		s, err := btf.LoadFile(p, base)
		if err != nil {
			return nil, nil, "", fmt.Errorf("base %s: %w", p, err)
		}
		base = s
	}
	return base, ef, efPath, nil
}

func openFile(o Options) (*Target, error) {
	t := &Target{}
	base, symELF, symPath, err := loadBases(o.Bases)
	if err != nil {
		return nil, err
	}
	if btf.IsELF(o.File) {
		f, err := elfobj.Open(o.File)
		if err != nil {
			return nil, err
		}
		hasInline := f.Section(".BTF.inline") != nil
		if !hasInline && !o.NoInline {
			return nil, fmt.Errorf("%s has no .BTF.inline section (write one with \"btfinline encode\")", o.File)
		}
		main, err := btf.LoadELFSection(f.File, ".BTF", base)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.File, err)
		}
		spec := main
		if hasInline {
			if spec, err = btf.LoadELFSection(f.File, ".BTF.inline", main); err != nil {
				return nil, fmt.Errorf("%s: %w", o.File, err)
			}
		}
		t.Spec, t.Main = spec, main
		symELF, symPath = f, o.File
	} else {
		if base == nil {
			return nil, fmt.Errorf("%s is a detached BTF blob: give its base chain with -B (vmlinux first; an ELF base also gives addresses)", o.File)
		}
		data, err := os.ReadFile(o.File)
		if err != nil {
			return nil, err
		}
		spec, err := btf.Parse(data, base)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.File, err)
		}
		t.Spec, t.Main = spec, base
	}
	t.Name = objName(symPath, o.File)
	if symELF == nil {
		t.Notes = append(t.Notes, "no ELF with symbols in the input (give the object as the last -B): sites are shown as section+offset, without addresses")
		t.Arch = arch.X86_64
		t.Space = &Space{kind: noAddresses, section: func(string) (uint64, error) { return 0, errors.New("no ELF section addresses") }}
		return t, nil
	}
	if err := t.fromELF(symELF); err != nil {
		return nil, fmt.Errorf("%s: %w", symPath, err)
	}
	t.elfPath = symPath
	if o.Running {
		if err := t.relocateToRunning(o, symPath); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// StaleError says the running kernel is not the one FILE describes.
type StaleError struct{ Msg string }

func (e *StaleError) Error() string {
	return "stale kernel: " + e.Msg + "; refusing to print addresses"
}

// relocateToRunning keeps FILE's BTF and symbols but takes addresses from
// the running kernel: the KASLR slide is kallsyms' _text minus the ELF's,
// after checking that the two are the same build (build id from
// /sys/kernel/notes, and symbols at the same distances from _text).
func (t *Target) relocateToRunning(o Options, path string) error {
	sys := o.Sys
	if sys.Root == "" {
		sys.Root = "/"
	}
	k, err := sys.Kallsyms()
	if err != nil {
		return err
	}
	t.Running = true
	if t.Space.Rel() {
		mod := o.Module
		if mod == "" {
			mod = t.Name
		}
		t.Name = mod
		if want, err := t.elf.BuildID(); err == nil && want != "" {
			if id := sys.BuildID(mod, t.elf.ByteOrder); id != "" && id != want {
				return &StaleError{fmt.Sprintf("module %s is build %s, %s is %s", mod, id, path, want)}
			}
		}
		t.Space = &Space{kind: elfModule, section: func(sec string) (uint64, error) { return sys.ModuleSection(mod, sec) }}
		return nil
	}
	run, err := k.TextBase()
	if err != nil {
		return err
	}
	if t.Space.kind != elfLinked {
		return errors.New("the ELF has no _stext, _text or .text to relocate from")
	}
	if want, err := t.elf.BuildID(); err == nil && want != "" {
		if id := sys.BuildID("vmlinux", t.elf.ByteOrder); id != "" && id != want {
			return &StaleError{fmt.Sprintf("the running kernel is build %s, %s is %s", id, path, want)}
		}
	}
	slide := run - t.Space.stext
	// The build id may be unreadable; symbols must agree in any case.
	checked := 0
	for _, s := range k.Text {
		if s.Module != "" || checked >= 256 {
			continue
		}
		l := t.Syms.ByName(s.Name)
		if len(l) != 1 || !l[0].Global {
			continue
		}
		checked++
		if l[0].Addr+slide != s.Addr {
			return &StaleError{fmt.Sprintf("%s is at _stext+%#x in kallsyms but _stext+%#x in %s", s.Name, s.Addr-run, l[0].Addr-t.Space.stext, path)}
		}
	}
	if checked == 0 {
		return &StaleError{"no kallsyms symbol could be matched with " + path}
	}
	t.Space = t.Space.placed(slide)
	return nil
}

func objName(paths ...string) string {
	for _, p := range paths {
		if p != "" {
			n := filepath.Base(p)
			for _, ext := range []string{".ko", ".o", ".elf", ".inline"} {
				n = strings.TrimSuffix(n, ext)
			}
			return n
		}
	}
	return ""
}

func (t *Target) fromELF(f *elfobj.File) error {
	a, err := arch.FromELF(f.Machine)
	if err != nil {
		return err
	}
	t.Arch = a
	es, err := ksym.ReadELFSymbols(f.File, kprobe.MarkerNames())
	if err != nil {
		return fmt.Errorf("symbol table: %w", err)
	}
	t.Syms = es.Funcs
	t.elf, t.markers = f, es.Markers
	if t.Rules, err = kprobe.ELFRules(f, a, es.Funcs, es.Markers); err != nil {
		return err
	}
	sp := &Space{kind: elfModule, section: func(sec string) (uint64, error) {
		s := f.Section(sec)
		if s == nil {
			return 0, fmt.Errorf("no section %s", sec)
		}
		if s.Flags&elf.SHF_EXECINSTR == 0 {
			return 0, fmt.Errorf("section %s is not code", sec)
		}
		return s.Addr, nil
	}}
	if f.Type != elf.ET_REL {
		// _stext anchors both address constants (locsec.ObjectBase,
		// without reading the symbol table again) and probe points.
		stext, ok := es.Markers["_stext"]
		if ok && stext != 0 {
			sp.consts = stext
		} else {
			sp.consts = locsec.ObjectBaseOf(f)
		}
		sp.kind = elfLinked
		if ok {
			sp.stext = stext
		} else if v, ok := es.Markers["_text"]; ok {
			sp.stext = v
		} else if s := f.Section(".text"); s != nil {
			sp.stext = s.Addr
		} else {
			sp.kind = elfLinkedNoText
		}
	}
	t.Space = sp
	if sp.Rel() {
		t.CFA, t.cfaKey = relCFA(f, a)
	} else {
		t.CFA = elfCFA(f, a)
	}
	return nil
}

// cfaPC is the pc t.CFA is asked for at site s.
func (t *Target) cfaPC(s *site.Site) uint64 {
	if t.cfaKey != nil {
		if pc, ok := t.cfaKey(s.Section, s.SectionOff); ok {
			return pc
		}
		return ^uint64(0) // in no FDE
	}
	return t.Space.LinkTime(s.Addr)
}

// Kernel is what the running objects of one kernel share, read once for
// a command that opens many of them (sites --running over every loaded
// module): kallsyms, vmlinux's BTF and the kprobe rules' inputs.
type Kernel struct {
	sys   ksys.System
	arch  arch.Arch
	syms  *ksym.Kallsyms
	vm    *btf.Spec
	rules *kprobe.Rules // without symbols: each object gets its own
}

// OpenKernel reads the running kernel's shared state from sys.
func OpenKernel(sys ksys.System) (*Kernel, error) {
	if sys.Root == "" {
		sys.Root = "/"
	}
	k := &Kernel{sys: sys, arch: arch.Host()}
	if k.arch == arch.Unknown {
		return nil, errors.New("--running: unsupported host architecture")
	}
	var err error
	if k.syms, err = sys.Kallsyms(); err != nil {
		return nil, err
	}
	k.vm, err = btf.LoadFile(sys.BTFPath("vmlinux"), nil)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: the running kernel publishes no BTF (CONFIG_DEBUG_INFO_BTF)", sys.BTFPath("vmlinux"))
	}
	if err != nil {
		return nil, err
	}
	if k.rules, err = kprobe.RunningRules(sys, k.syms, k.arch, nil); err != nil {
		return nil, err
	}
	return k, nil
}

func openRunning(o Options) (*Target, error) {
	kern := o.Kernel
	if kern == nil {
		var err error
		if kern, err = OpenKernel(o.Sys); err != nil {
			return nil, err
		}
	}
	sys, k, vm := kern.sys, kern.syms, kern.vm
	mod := o.Module
	if mod == "" {
		mod = "vmlinux"
	}
	t := &Target{Name: mod, Running: true, Arch: kern.arch}
	var err error
	main := vm
	if mod != "vmlinux" {
		main, err = btf.LoadFile(sys.BTFPath(mod), vm)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("module %s: %s does not exist: the module is not loaded (see lsmod), or was built without BTF", mod, sys.BTFPath(mod))
		}
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", mod, err)
		}
	}
	inl := sys.BTFPath(mod + ".inline")
	if o.Inline != "" {
		inl = o.Inline
	}
	if t.Spec, err = btf.LoadFile(inl, main); err != nil {
		if errors.Is(err, os.ErrNotExist) && o.Inline == "" {
			return nil, fmt.Errorf("%s does not exist: the running kernel has no inline BTF for %s (CONFIG_DEBUG_INFO_BTF_INLINE, or load btf_vmlinux_inline; btfinline trace --inline FILE takes it from a file)", inl, mod)
		}
		return nil, err
	}
	t.Main = main
	t.Syms = k.SymTab(mod)
	t.Rules = kern.rules.ForSyms(t.Syms)
	t.Notes = append(t.Notes, t.Rules.Notes...)
	if mod == "vmlinux" {
		text, err := k.TextBase()
		if err != nil {
			return nil, err
		}
		// CONST|ADDR values are relative to _stext (locsec.ObjectBase):
		// the running _stext is that base after KASLR. The slide itself
		// is not known, so per-CPU offsets (below the base) stay
		// unavailable.
		t.Space = &Space{kind: kernelOnly, consts: text, stext: text, section: func(sec string) (uint64, error) {
			switch sec {
			case ".text":
				return text, nil
			case ".init.text":
				if a, ok := k.Addr("_sinittext"); ok {
					return a, nil
				}
			}
			return 0, fmt.Errorf("no run-time base for vmlinux section %s in kallsyms", sec)
		}}
	} else {
		t.Space = &Space{kind: kernelModule, section: func(sec string) (uint64, error) { return sys.ModuleSection(mod, sec) }}
	}
	return t, nil
}

// Place fills Addr, Caller and CallerOff of sites. A site whose address
// cannot be derived keeps Addr 0 and gets a note in the returned map (by
// index).
func (t *Target) Place(sites []site.Site) map[int]string {
	bad := map[int]string{}
	cache := map[string]struct {
		a   uint64
		err error
	}{}
	for i := range sites {
		s := &sites[i]
		c, ok := cache[s.Section]
		if !ok {
			c.a, c.err = t.Space.SectionAddr(s.Section)
			cache[s.Section] = c
		}
		if c.err != nil {
			bad[i] = "no address: " + c.err.Error()
			continue
		}
		s.Addr = c.a + s.SectionOff
		if t.Syms != nil {
			// kallsyms has no sizes, and a module's init symbols are gone
			// once its init text is freed: a symbol below the section's
			// start belongs to other text, and names nothing.
			if sym, off, ok := t.Syms.Lookup(s.Section, t.Space.Key(s.SectionOff, s.Addr)); ok && !(t.Space.FromKernel() && sym.Addr < c.a) {
				s.Caller, s.CallerOff = sym.Name, off
			}
		}
	}
	return bad
}

// HasAddresses reports whether sites get absolute addresses.
func (t *Target) HasAddresses() bool { return t.Syms != nil }

// Traceable says why a kprobe cannot sit at site s (the zero Refusal:
// it can).
func (t *Target) Traceable(s *site.Site) kprobe.Refusal {
	if t.Rules == nil {
		return kprobe.Refusal{}
	}
	if t.Space.kind == kernelModule {
		// The running kernel's rules are by address; which section a
		// module's site is in decides as the ELF's rules do.
		if why := kprobe.ModuleSection(s.Section); why != "" {
			return kprobe.Refusal{Rule: kprobe.Section, Detail: why}
		}
	}
	return t.Rules.CheckSite(s.Section, s.SectionOff, t.Space.LinkTime(s.Addr), s.Caller)
}

// Decoder returns a site decoder for the target's inline BTF.
func (t *Target) Decoder() *Decoder {
	d := NewDecoder(t.Spec)
	d.Space = t.Space
	return d
}

// Sites decodes every site of the target (through locsec.Decode, so that
// "sites" and "sites --dwarf" describe sites with the same Site values)
// and places them: Addr, Caller, CallerOff. marks[i] says of sites[i] why
// it has no address (NoAddr) or else why a kprobe cannot sit there
// (NoTrace).
func (t *Target) Sites() (sites []site.Site, marks []site.Marks, err error) {
	// Base 0: CONST|ADDR values come back as stored and are placed by
	// Decoder.Addr, and Place computes the site addresses.
	sites, err = locsec.Decode(t.Spec, func(string) (uint64, error) { return 0, nil })
	if err != nil {
		return nil, nil, fmt.Errorf("%w (is -B the base the .BTF.inline was made on?)", err)
	}
	// A module's values are relative to a section the BTF does not name;
	// the listing shows them as stored, as "sites --dwarf" does, from the
	// files and from the running kernel alike (resolve refuses them).
	keepRel := t.Space.Module()
	d := t.Decoder()
	for i := range sites {
		for j, l := range sites[i].Params {
			if l.Kind != site.LocAddr || keepRel {
				continue
			}
			if a, why := d.Addr(l.Value); why != "" {
				sites[i].Params[j] = site.Location{Size: l.Size, Reason: why}
			} else {
				sites[i].Params[j].Value = a
			}
		}
	}
	noAddr := t.Place(sites)
	marks = make([]site.Marks, len(sites))
	for i := range sites {
		if why, bad := noAddr[i]; bad {
			marks[i].NoAddr = why
			continue
		}
		if t.HasAddresses() {
			marks[i].NoTrace = t.Traceable(&sites[i]).String()
		}
	}
	return sites, marks, nil
}
