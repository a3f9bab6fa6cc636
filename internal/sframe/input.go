package sframe

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/elfrel"
	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// SHTGNUSFrame is the ELF section type of .sframe (binutils >= 2.45).
const SHTGNUSFrame = 0x6ffffff4

// PTGNUSFrame is the program header type covering .sframe.
const PTGNUSFrame = 0x6474e554

// Input is an ELF file opened for SFrame work.
type Input struct {
	Raw  []byte // the whole file
	File *elf.File
	ABI  ABI
	// Rel is true for relocatable objects (.o, .ko): sections have no
	// addresses, so Input lays them out at distinct synthetic addresses to
	// tell functions in different sections apart.
	Rel  bool
	obj  *elfobj.File
	base []uint64 // per section: address used (sh_addr, or synthetic for Rel)
}

// Open parses an ELF file held in memory for SFrame emission or dumping.
func Open(raw []byte) (*Input, error) {
	obj, err := elfobj.New(raw)
	if err != nil {
		return nil, fmt.Errorf("not a usable ELF file: %w", err)
	}
	return newInput(obj)
}

// OpenFile opens path (mapped: only the pages of the sections read are
// touched, which matters for a 600 MB vmlinux whose .debug_frame is a few
// MB); close releases it.
func OpenFile(path string) (in *Input, close func(), err error) {
	obj, err := elfobj.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if in, err = newInput(obj); err != nil {
		obj.Close()
		return nil, nil, err
	}
	return in, func() { obj.Close() }, nil
}

func newInput(obj *elfobj.File) (*Input, error) {
	raw, err := obj.Bytes()
	if err != nil {
		return nil, err
	}
	f := obj.File
	in := &Input{Raw: raw, File: f, Rel: f.Type == elf.ET_REL, obj: obj}
	switch f.Machine {
	case elf.EM_X86_64:
		in.ABI = ABIAMD64LE
	case elf.EM_AARCH64:
		in.ABI = ABIAArch64LE
		if f.ByteOrder == binary.BigEndian {
			in.ABI = ABIAArch64BE
		}
	}
	in.base = make([]uint64, len(f.Sections))
	for i, s := range f.Sections {
		in.base[i] = s.Addr
	}
	return in, nil
}

func (in *Input) section(name string) *elf.Section { return in.obj.SectionWithData(name) }

func (in *Input) data(s *elf.Section) ([]byte, error) { return in.obj.Data(s) }

// applyRelocs returns a copy of section target's data with its RELA
// relocations applied, using in.base for section addresses.
func (in *Input) applyRelocs(target *elf.Section) ([]byte, error) {
	out, _, err := in.obj.Relocated(in.obj.Index(target), func(i int) uint64 { return in.base[i] }, true)
	return out, err
}

// SFrameSection returns the file's .sframe section bytes (relocations
// applied in relocatable objects, as readelf does) and its address.
func (in *Input) SFrameSection() ([]byte, uint64, *elf.Section, error) {
	var s *elf.Section
	for _, t := range in.File.Sections {
		if t.Name == ".sframe" || uint32(t.Type) == SHTGNUSFrame {
			s = t
			break
		}
	}
	if s == nil {
		return nil, 0, nil, errors.New("no .sframe section")
	}
	d, err := in.data(s)
	if err != nil {
		return nil, 0, s, err
	}
	if in.Rel {
		if d, err = in.applyRelocs(s); err != nil {
			return nil, 0, s, err
		}
	}
	return d, s.Addr, s, nil
}

// CFI locates and parses the call frame information: .eh_frame when it has
// entries, else .debug_frame.
func (in *Input) CFI() (*cfi.Result, *cfi.Section, error) {
	f := in.File
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	var firstErr error
	for _, cand := range []struct {
		name string
		kind cfi.Kind
	}{{".eh_frame", cfi.EHFrame}, {".debug_frame", cfi.DebugFrame}} {
		s := in.section(cand.name)
		if s == nil || s.Size == 0 {
			continue
		}
		d, err := in.data(s)
		if err != nil {
			return nil, nil, err
		}
		idx := in.obj.Index(s)
		if in.Rel {
			in.base = elfrel.Layout(in.File, idx)
			if d, err = in.applyRelocs(s); err != nil {
				return nil, nil, err
			}
		}
		cs := &cfi.Section{Name: cand.name, Kind: cand.kind, Data: d, Addr: in.base[idx], Order: f.ByteOrder, PtrSize: ptr}
		if got := in.section(".got"); got != nil {
			cs.DataBase = got.Addr
		}
		if !in.Rel {
			cs.Deref = in.obj.Deref
		}
		res, err := cfi.Parse(cs)
		if err != nil && (res == nil || len(res.FDEs) == 0) {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if len(res.FDEs) == 0 && len(res.Skipped) == 0 {
			continue
		}
		return res, cs, err
	}
	if firstErr != nil {
		return nil, nil, firstErr
	}
	return nil, nil, errors.New("no .eh_frame or .debug_frame call frame information")
}

type execRange struct {
	lo, hi uint64
	sec    int
}

type execRanges []execRange

func (in *Input) execRanges() execRanges {
	var rs execRanges
	for i, s := range in.File.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Flags&elf.SHF_ALLOC == 0 || s.Size == 0 {
			continue
		}
		rs = append(rs, execRange{in.base[i], in.base[i] + s.Size, i})
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].lo < rs[b].lo })
	return rs
}

func (rs execRanges) find(addr uint64) (int, bool) {
	i := sort.Search(len(rs), func(k int) bool { return rs[k].lo > addr }) - 1
	if i >= 0 && addr < rs[i].hi {
		return rs[i].sec, true
	}
	return 0, false
}

// EHFrameHdr is what .eh_frame_hdr says.
type EHFrameHdr struct {
	Size    uint64
	Count   uint64
	Matched int // table entries that point at a parsed FDE with that start
}

// ehFrameHdr parses .eh_frame_hdr and checks its lookup table against the
// parsed FDEs.
func (in *Input) ehFrameHdr(res *cfi.Result, eh *cfi.Section) (*EHFrameHdr, error) {
	s := in.section(".eh_frame_hdr")
	if s == nil {
		return nil, nil
	}
	d, err := in.data(s)
	if err != nil {
		return nil, err
	}
	h := &EHFrameHdr{Size: s.Size}
	if len(d) < 4 || d[0] != 1 {
		return h, &FormatError{Section: ".eh_frame_hdr", Msg: "unsupported version"}
	}
	hs := &cfi.Section{Name: ".eh_frame_hdr", Kind: cfi.EHFrame, Data: d, Addr: s.Addr, Order: in.File.ByteOrder, PtrSize: 8, DataBase: s.Addr}
	vals, pos, err := cfi.ReadEncoded(hs, 4, []uint8{d[1], d[2]})
	if err != nil {
		return h, err
	}
	h.Count = vals[1]
	if d[3] == cfi.PEOmit || h.Count == 0 {
		return h, nil
	}
	byOff := map[uint64]uint64{}
	if eh != nil {
		for _, f := range res.FDEs {
			byOff[eh.Addr+uint64(f.Offset)] = f.Begin
		}
	}
	entry := 2 * encSize(d[3])
	if entry == 0 || h.Count > uint64(len(d)-pos)/uint64(entry) {
		return h, &FormatError{Section: ".eh_frame_hdr", Offset: int64(pos), Msg: "search table does not fit"}
	}
	for i := uint64(0); i < h.Count; i++ {
		v, _, err := cfi.ReadEncoded(hs, pos, []uint8{d[3], d[3]})
		if err != nil {
			return h, err
		}
		if b, ok := byOff[v[1]]; ok && b == v[0] {
			h.Matched++
		}
		pos += entry
	}
	return h, nil
}

func encSize(enc uint8) int {
	switch enc & 0x0f {
	case cfi.PEUdata2, cfi.PESdata2:
		return 2
	case cfi.PEUdata4, cfi.PESdata4:
		return 4
	case cfi.PEUdata8, cfi.PESdata8, cfi.PEAbsptr:
		return 8
	}
	return 0
}

// EmitOptions controls Emit.
type EmitOptions struct {
	Version uint8
	// Addr is where the .sframe section will sit (linked files). For
	// relocatable inputs function starts are written section-relative
	// (every section at 0), the way readelf shows a relocated .o.
	Addr uint64
}

// Emitted is the result of Emit.
type Emitted struct {
	Section  *Section
	CFIName  string
	CFIFDEs  int
	Skipped  map[string]int
	Warnings []string
	// FuncSection is, for relocatable inputs, the ELF section index of each
	// FDE's function (parallel to Section.FDEs); Offsets the function's
	// offset in it.
	FuncSection []int
	FuncOffset  []uint64
	CFI         *cfi.Result
	CFISection  *cfi.Section
	EHFrameHdr  *EHFrameHdr
	CFIBytes    uint64
}

// Emit translates the input's CFI into an SFrame section.
func (in *Input) Emit(opt EmitOptions) (*Emitted, error) {
	if in.ABI == 0 {
		return nil, fmt.Errorf("SFrame is not defined for %v", in.File.Machine)
	}
	if opt.Version == 0 {
		opt.Version = Version3
	}
	if opt.Version != Version2 && opt.Version != Version3 {
		return nil, fmt.Errorf("unsupported SFrame version %d", opt.Version)
	}
	res, cs, err := in.CFI()
	if err != nil && res == nil {
		return nil, err
	}
	em := &Emitted{CFIName: cs.Name, CFIFDEs: len(res.FDEs) + len(res.Skipped), Skipped: map[string]int{}, CFI: res, CFISection: cs, CFIBytes: uint64(len(cs.Data))}
	if err != nil {
		em.Warnings = append(em.Warnings, err.Error())
	}
	for _, e := range res.Skipped {
		em.Skipped[SkipCFIError]++
		em.Warnings = append(em.Warnings, e.Error())
	}
	if cs.Kind == cfi.EHFrame && !in.Rel {
		h, err := in.ehFrameHdr(res, cs)
		if err != nil {
			em.Warnings = append(em.Warnings, err.Error())
		}
		em.EHFrameHdr = h
	}
	s := &Section{Version: opt.Version, Flags: FlagFDEFuncStartPCRel, ABI: in.ABI}
	if in.ABI == ABIAMD64LE {
		s.FixedRA = amd64FixedRA
	}
	plts := in.pltSections()
	fdes := make([]FDE, 0, len(res.FDEs))
	type fdeSrc struct {
		sec int
		off uint64
	}
	var srcs []fdeSrc
	type result struct {
		fde    *FDE
		reason string
		sec    int
	}
	results := make([]result, len(res.FDEs))
	execs := in.execRanges()
	// FDEs translate independently: split them over the CPUs in
	// contiguous chunks and collect in input order (deterministic output).
	workers := min(runtime.GOMAXPROCS(0), max(1, len(res.FDEs)/2048))
	var g errgroup.Group
	chunk := (len(res.FDEs) + workers - 1) / max(workers, 1)
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(res.FDEs))
		g.Go(func() error {
			arena := &freArena{}
			for i := lo; i < hi; i++ {
				f := res.FDEs[i]
				r := &results[i]
				sec, ok := execs.find(f.Begin)
				if !ok || f.Begin+f.Size > in.base[sec]+in.File.Sections[sec].Size {
					r.reason = SkipRelocation
					continue
				}
				r.sec = sec
				if !in.Rel && inPLT(plts, f.Begin) {
					r.reason = SkipPLT
					continue
				}
				r.fde, r.reason = translate(f, in.ABI, opt.Version, arena)
			}
			return nil
		})
	}
	g.Wait()
	for i, r := range results {
		if r.reason != "" {
			em.Skipped[r.reason]++
			continue
		}
		f := res.FDEs[i]
		r.fde.Block = len(fdes)
		fdes = append(fdes, *r.fde)
		srcs = append(srcs, fdeSrc{r.sec, f.Begin - in.base[r.sec]})
	}
	if !in.Rel {
		for _, p := range in.pltFDEs(plts) {
			p.Block = len(fdes)
			fdes = append(fdes, p)
		}
	}
	s.FDEs = fdes
	if in.Rel {
		em.FuncSection = make([]int, len(srcs))
		em.FuncOffset = make([]uint64, len(srcs))
		for i, src := range srcs {
			em.FuncSection[i] = src.sec
			em.FuncOffset[i] = src.off
			// readelf's view of a relocated .o: every section at 0.
			s.FDEs[i].Start = int64(src.off)
		}
	} else {
		sort.SliceStable(s.FDEs, func(a, b int) bool { return s.FDEs[a].Start < s.FDEs[b].Start })
		s.Flags |= FlagFDESorted
	}
	em.Section = s
	return em, nil
}

// Encode writes the emitted section for placement at addr.
func (em *Emitted) Encode(addr uint64) ([]byte, error) {
	return Encode(em.Section, EncodeOptions{Addr: addr, Sort: em.Section.Flags&FlagFDESorted != 0})
}
