// Command sitelist is the end-to-end harness's stand-in for
// "btfinline sites --traceable": it lists inline sites of a vmlinux straight
// from its DWARF (DW_TAG_inlined_subroutine entry addresses) so that the
// kernel can be asked, site by site, whether a kprobe may go there.
//
// Output, one site a line, sorted by address:
//
//	ADDR SECTION CALLER+0xOFF FUNC
//
// ADDR is the link-time address in hex, CALLER the ELF function symbol that
// holds it ("?" when none does). With -sample N only a deterministic 1-in-N
// sample (by address hash) is printed, plus every site of the -funcs list.
// Once btfinline sites exists this program is no longer needed: see
// e2e/btfinline.sh.
package main

import (
	"bufio"
	"debug/dwarf"
	"debug/elf"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"sort"
	"strconv"
	"strings"
)

type site struct {
	addr uint64
	fn   string
}

type sym struct {
	addr, size uint64
	name       string
}

func main() {
	sample := flag.Int("sample", 1, "print a 1-in-N sample of all sites (by address hash)")
	funcs := flag.String("funcs", "", "comma-separated inlined functions whose every site is printed")
	stats := flag.Int("top", 0, "print the N most inlined functions with their site counts to stderr")
	list := flag.String("list", "", "select from this site list (same format) instead of reading DWARF")
	params := flag.Bool("params", false, "print the parameters of each -funcs function instead of sites: FUNC NAME...")
	flag.Parse()
	var err error
	switch {
	case *params && flag.NArg() == 1:
		err = printParams(flag.Arg(0), *funcs)
	case *list != "" && flag.NArg() == 0:
		err = filter(*list, *sample, *funcs)
	case *list == "" && flag.NArg() == 1:
		err = run(flag.Arg(0), *sample, *funcs, *stats)
	default:
		fmt.Fprintln(os.Stderr, "usage: sitelist [-sample N] [-funcs F,G] (VMLINUX | -list FILE) | -params -funcs F,G OBJECT")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sitelist:", err)
		os.Exit(1)
	}
}

func run(path string, sample int, funcList string, top int) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return err
	}
	sites, err := inlineSites(d)
	if err != nil {
		return err
	}
	syms, err := f.Symbols()
	if err != nil {
		return err
	}
	var fsyms []sym
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			fsyms = append(fsyms, sym{s.Value, s.Size, s.Name})
		}
	}
	sort.Slice(fsyms, func(i, j int) bool { return fsyms[i].addr < fsyms[j].addr })
	want := wanted(funcList)
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].addr != sites[j].addr {
			return sites[i].addr < sites[j].addr
		}
		return sites[i].fn < sites[j].fn
	})
	if top > 0 {
		printTop(sites, top)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	var last site
	for _, s := range sites {
		if s == last {
			continue
		}
		last = s
		if !want[s.fn] && !sampled(s.addr, sample) {
			continue
		}
		caller, off := "?", uint64(0)
		i := sort.Search(len(fsyms), func(i int) bool { return fsyms[i].addr > s.addr }) - 1
		if i >= 0 && s.addr < fsyms[i].addr+fsyms[i].size {
			caller, off = fsyms[i].name, s.addr-fsyms[i].addr
		}
		fmt.Fprintf(w, "%x %s %s+%#x %s\n", s.addr, section(f, s.addr), caller, off, s.fn)
	}
	return nil
}

func wanted(funcList string) map[string]bool {
	want := map[string]bool{}
	for _, n := range strings.Split(funcList, ",") {
		if n != "" {
			want[n] = true
		}
	}
	return want
}

// filter applies the same selection to a site list made by someone else
// (btfinline sites --traceable, adapted by e2e/btfinline.sh).
func filter(path string, sample int, funcList string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := wanted(funcList)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 {
			continue
		}
		addr, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			return fmt.Errorf("%s: bad address in %q", path, sc.Text())
		}
		if want[fs[3]] || sampled(addr, sample) {
			fmt.Fprintln(w, sc.Text())
		}
	}
	return sc.Err()
}

func sampled(addr uint64, n int) bool {
	if n <= 1 {
		return true
	}
	h := fnv.New32a()
	var b [8]byte
	for i := range b {
		b[i] = byte(addr >> (8 * i))
	}
	h.Write(b[:])
	return h.Sum32()%uint32(n) == 0
}

func section(f *elf.File, addr uint64) string {
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			return s.Name
		}
	}
	return "?"
}

func printTop(sites []site, n int) {
	count := map[string]int{}
	for _, s := range sites {
		count[s.fn]++
	}
	names := make([]string, 0, len(count))
	for k := range count {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	fmt.Fprintf(os.Stderr, "%d sites of %d inlined functions\n", len(sites), len(count))
	for i := 0; i < n && i < len(names); i++ {
		fmt.Fprintf(os.Stderr, "%8d %s\n", count[names[i]], names[i])
	}
}

// inlineSites walks every compilation unit and returns the entry address of
// each inlined instance with the name of the function inlined there.
func inlineSites(d *dwarf.Data) ([]site, error) {
	names := map[dwarf.Offset]string{}
	type pending struct {
		origin dwarf.Offset
		addr   uint64
	}
	var todo []pending
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			if n, ok := e.Val(dwarf.AttrName).(string); ok {
				names[e.Offset] = n
			}
			if o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
				if n, ok := names[o]; ok {
					names[e.Offset] = n
				}
			}
		case dwarf.TagInlinedSubroutine:
			o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if !ok {
				continue
			}
			addr, ok := entryPC(d, e)
			if ok {
				todo = append(todo, pending{o, addr})
			}
		}
	}
	sites := make([]site, 0, len(todo))
	for _, p := range todo {
		n, ok := names[p.origin]
		if !ok {
			n = resolveName(d, p.origin)
			names[p.origin] = n
		}
		sites = append(sites, site{p.addr, n})
	}
	return sites, nil
}

func resolveName(d *dwarf.Data, off dwarf.Offset) string {
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return "?"
	}
	if n, ok := e.Val(dwarf.AttrName).(string); ok {
		return n
	}
	if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok && o != off {
		return resolveName(d, o)
	}
	return "?"
}

func entryPC(d *dwarf.Data, e *dwarf.Entry) (uint64, bool) {
	f := e.AttrField(dwarf.AttrEntrypc)
	low, hasLow := e.Val(dwarf.AttrLowpc).(uint64)
	if f != nil {
		switch v := f.Val.(type) {
		case uint64:
			if f.Class == dwarf.ClassAddress {
				return v, true
			}
			if hasLow {
				return low + v, true
			}
		case int64:
			if hasLow {
				return low + uint64(v), true
			}
		}
	}
	if hasLow {
		return low, true
	}
	rs, err := d.Ranges(e)
	if err != nil || len(rs) == 0 {
		return 0, false
	}
	return rs[0][0], true
}

// printParams prints, for each function of funcList that the DWARF of the
// object at path describes, its formal parameters in order (from the
// function's own DIE, the abstract instance of an inlined one): what
// e2e/run.sh counts the fetched arguments against.
func printParams(path, funcList string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return err
	}
	want := wanted(funcList)
	got := map[string][]string{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagSubprogram {
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		if !want[name] || !e.Children || got[name] != nil {
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		ps := []string{}
		for {
			c, err := r.Next()
			if err != nil {
				return err
			}
			if c == nil || c.Tag == 0 {
				break
			}
			if c.Tag == dwarf.TagFormalParameter {
				if n, ok := c.Val(dwarf.AttrName).(string); ok {
					ps = append(ps, n)
				}
			}
			if c.Children {
				r.SkipChildren()
			}
		}
		got[name] = ps
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n, strings.Join(got[n], " "))
	}
	if len(names) != len(want) {
		return fmt.Errorf("%s: %d of the %d functions have parameters in the DWARF", path, len(names), len(want))
	}
	return nil
}
