package kprobe

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/btfinline/btfinline/internal/arch"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfrel"
	"github.com/btfinline/btfinline/internal/ksym"
)

// The kprobe-event rule of kernel/trace/trace_kprobe.c (6.1,
// within_notrace_func): without CONFIG_KPROBE_EVENTS_ON_NOTRACE, which
// distribution kernels leave unset, a kprobe event (tracefs, perf, BPF
// kprobe links) is refused in any function that has no ftrace location
// (notrace, and the .cold parts of functions), unless the address is in a
// suffixed symbol (foo.cold, foo.isra.0) whose unsuffixed foo has one. The
// kernel says "Could not probe notrace function". e2e/README.md shows the
// kernel refusing exactly these sites.

// notraceReason is the text Check gives for the rule.
func notraceReason(fn string) string {
	return "notrace function " + fn + ": no ftrace location, kprobe events refuse it (CONFIG_KPROBE_EVENTS_ON_NOTRACE=n)"
}

// setFtrace records the ftrace call sites of a linked object (key "") or,
// for a relocatable one, per section (offsets).
func (r *Rules) setFtrace(sites map[string][]uint64) {
	for _, l := range sites {
		slices.Sort(l)
	}
	r.ftrace = sites
}

// HasFtraceTable reports whether the ftrace call sites are known (an ELF
// with __mcount_loc or __patchable_function_entries).
func (r *Rules) HasFtraceTable() bool { return r.ftrace != nil }

// HasFtrace reports whether [start, end) of section holds an ftrace call
// site: the function there can be traced with fentry/fexit.
func (r *Rules) HasFtrace(section string, start, end uint64) bool {
	key := ""
	if r.rel {
		key = section
	}
	l := r.ftrace[key]
	i := sort.Search(len(l), func(i int) bool { return l[i] >= start })
	return i < len(l) && l[i] < end
}

// checkNotrace applies the rule to an address inside caller, whose
// function symbol is s (found: Rules.Check's lookup succeeded); "" when
// allowed or when the rule cannot be applied (no ftrace table, no symbol).
func (r *Rules) checkNotrace(section, caller string, s ksym.Symbol, found bool) string {
	if r.syms == nil {
		return ""
	}
	if r.ftraceNames != nil {
		return r.checkNotraceByName(caller)
	}
	if r.ftrace == nil {
		return ""
	}
	if !found {
		return "" // kallsyms_lookup_size_offset fails: the kernel allows it
	}
	if r.HasFtrace(section, s.Addr, s.Addr+max(s.Size, 1)) {
		return ""
	}
	if i := strings.IndexByte(s.Name, '.'); i > 0 {
		base := r.syms.ByName(s.Name[:i])
		if len(base) > 0 {
			b := base[0]
			if r.HasFtrace(b.Section, b.Addr, b.Addr+max(b.Size, 1)) {
				return ""
			}
		}
	}
	return notraceReason(s.Name)
}

// checkNotraceByName is the rule for the running kernel without its ELF:
// the functions with an ftrace location are the names tracefs lists in
// available_filter_functions.
func (r *Rules) checkNotraceByName(caller string) string {
	if caller == "" || caller == "?" {
		return ""
	}
	if r.ftraceNames[caller] {
		return ""
	}
	if i := strings.IndexByte(caller, '.'); i > 0 && r.ftraceNames[caller[:i]] {
		return ""
	}
	return notraceReason(caller)
}

// The arm64 instruction words ftrace call sites are made of.
const (
	arm64NOP  = 0xd503201f
	arm64BTIC = 0xd503245f
)

// adjustCallOps moves the arm64 ftrace call sites of a kernel built with
// DYNAMIC_FTRACE_WITH_CALL_OPS (Linux 6.4 and later; Debian 13's 6.12):
// its -fpatchable-function-entry=4,2 records the first of two NOPs before
// the function, the 8-byte literal ftrace fills with the call's ops, and
// the function starts after it, with BTI C first in a BTI kernel. A site
// then moves to where a kernel without it records it, the first of the
// two instructions ftrace patches (ftrace_call_adjust: 8 bytes on, 12
// when a BTI C is there), so that the function's range holds it. The
// layout is the compiler's for every site, so most sites tell it: a
// literal of two NOPs and then a NOP or BTI C, where without it the
// function's body follows the two patched NOPs. It reports whether the
// sites moved.
func adjustCallOps(sites map[string][]uint64, text func(section string, addr uint64) ([]byte, uint64, bool)) bool {
	word := func(sec string, a uint64) uint32 {
		d, off, ok := text(sec, a)
		if !ok || off+4 > uint64(len(d)) {
			return 0
		}
		return binary.LittleEndian.Uint32(d[off:])
	}
	n, callOps := 0, 0
	for sec, l := range sites {
		for _, a := range l {
			n++
			if w := word(sec, a+8); word(sec, a) == arm64NOP && word(sec, a+4) == arm64NOP && (w == arm64NOP || w == arm64BTIC) {
				callOps++
			}
		}
	}
	if n == 0 || 2*callOps <= n {
		return false
	}
	for sec, l := range sites {
		for i, a := range l {
			a += 8
			if word(sec, a) == arm64BTIC {
				a += 4
			}
			l[i] = a
		}
		slices.Sort(l)
	}
	return true
}

// ftraceTables are the sections that record a's ftrace call sites:
// __mcount_loc (x86-64: "call __fentry__", -mrecord-mcount) and, on arm64,
// __patchable_function_entries (-fpatchable-function-entry). x86-64 never
// patches those for ftrace (HAVE_DYNAMIC_FTRACE_NO_PATCHABLE): from 6.2 on
// they are the 16 bytes of padding before each function that call-depth
// tracking and FineIBT use (CALL_PADDING), present with or without ftrace.
func ftraceTables(a arch.Arch) []string {
	if a == arch.X86_64 {
		return []string{"__mcount_loc"}
	}
	return []string{"__mcount_loc", "__patchable_function_entries"}
}

// FtraceTables names a's ftrace tables for a note: "__mcount_loc" on
// x86-64, "__mcount_loc or __patchable_function_entries" elsewhere.
func FtraceTables(a arch.Arch) string { return strings.Join(ftraceTables(a), " or ") }

// ftraceLocations reads the ftrace call sites of a linked kernel image
// from a's tables (ftraceTables), bounded by their linker symbols or by
// the section.
func ftraceLocations(f *elfobj.File, a arch.Arch, markers map[string]uint64) ([]uint64, error) {
	for _, t := range ftraceTables(a) {
		s, ok1 := markers["__start_"+t[2:]]
		e, ok2 := markers["__stop_"+t[2:]]
		if ok1 && ok2 && e > s {
			l, err := f.Pointers(s, e)
			if err != nil {
				return nil, fmt.Errorf("__start_%s: %w", t[2:], err)
			}
			slices.Sort(l)
			return l, nil
		}
	}
	if s := f.Section("__mcount_loc"); s != nil && s.Addr != 0 {
		l, err := f.Pointers(s.Addr, s.Addr+s.Size)
		if err != nil {
			return nil, err
		}
		slices.Sort(l)
		return l, nil
	}
	return nil, nil
}

// relFtraceLocations reads a module's ftrace table (ftraceTables): words
// that the module loader fills from relocations against the code
// sections, as section offsets.
func relFtraceLocations(f *elf.File, a arch.Arch) (map[string][]uint64, error) {
	for _, name := range ftraceTables(a) {
		idx := -1
		for i, s := range f.Sections {
			if s.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			continue
		}
		rels, err := elfrel.Read(f, idx, elfrel.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out := map[string][]uint64{}
		for _, rl := range rels {
			if rl.Section < 0 {
				continue
			}
			sec := f.Sections[rl.Section].Name
			out[sec] = append(out[sec], rl.Value)
		}
		return out, nil
	}
	return nil, nil
}
