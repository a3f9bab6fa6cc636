package cframe

import (
	"fmt"
	"strings"

	"github.com/btfinline/btfinline/internal/sframe"
	"github.com/btfinline/btfinline/internal/sframe/cfi"
)

// Measurement is one object's line of the size table (docs/cframe.md):
// its call frame information counted the pre-proposal's way, its SFrame
// v2 and v3 sections, and CFrame tables built with several options.
type Measurement struct {
	ABI      sframe.ABI
	CFIName  string
	CFIBytes uint64
	HdrBytes uint64 // .eh_frame_hdr
	FDEs     int    // CFI FDEs parsed
	// Rows are the CFI rows of the FDEs: the pre-proposal's "FRE count"
	// (the rows llvm-dwarfdump --eh-frame prints under FDEs).
	Rows int
	// UniqueStates counts distinct rows (the CFA rule and every
	// register's rule): the pre-proposal's "unique CFA states".
	UniqueStates int
	V2, V3       SFrameSize
	Tables       []TableSize
}

// SFrameSize measures one SFrame section.
type SFrameSize struct {
	Bytes, FDEs, FREs int
	Skipped           map[string]int
}

// TableSize measures one CFrame table.
type TableSize struct {
	Options Options
	Bytes   int
	Stats   BuildStats
	Header  Header
}

// Measure builds SFrame v2, v3 and a CFrame table for each of opts from
// in, and counts in's CFI rows and states.
func Measure(in *sframe.Input, opts []Options) (*Measurement, error) {
	m := &Measurement{ABI: in.ABI}
	addr := in.SectionAddr()
	if in.Rel {
		addr = 0
	}
	for _, v := range []uint8{sframe.Version2, sframe.Version3} {
		em, err := in.Emit(sframe.EmitOptions{Version: v})
		if err != nil {
			return nil, err
		}
		b, err := em.Encode(addr)
		if err != nil {
			return nil, fmt.Errorf("SFrame v%d: %w", v, err)
		}
		sz := SFrameSize{Bytes: len(b), FDEs: len(em.Section.FDEs), Skipped: em.Skipped}
		for i := range em.Section.FDEs {
			sz.FREs += len(em.Section.FDEs[i].FREs)
		}
		if v == sframe.Version2 {
			m.V2 = sz
			continue
		}
		m.V3 = sz
		m.CFIName, m.CFIBytes = em.CFIName, em.CFIBytes
		if em.EHFrameHdr != nil {
			m.HdrBytes = em.EHFrameHdr.Size
		}
		if err := m.countRows(em.CFI); err != nil {
			return nil, err
		}
	}
	var e *Emitted
	for _, o := range opts {
		var err error
		if e == nil {
			e, err = Emit(in, o)
		} else {
			err = e.Rebuild(o)
		}
		if err != nil {
			return nil, err
		}
		b, err := e.Encode(addr)
		if err != nil {
			return nil, err
		}
		m.Tables = append(m.Tables, TableSize{Options: o, Bytes: len(b), Stats: e.Built.Stats, Header: e.Built.Header})
	}
	return m, nil
}

// countRows counts rows and distinct row states the way the pre-proposal
// did (llvm-dwarfdump's rows, deduplicated as text).
func (m *Measurement) countRows(res *cfi.Result) error {
	m.FDEs = len(res.FDEs)
	seen := map[string]bool{}
	var key strings.Builder
	add := func(r *cfi.Row) {
		key.Reset()
		rowKey(&key, r)
		seen[key.String()] = true
	}
	for _, f := range res.FDEs {
		if err := f.Execute(func(r *cfi.Row) error {
			m.Rows++
			add(r)
			return nil
		}); err != nil {
			return err
		}
	}
	m.UniqueStates = len(seen)
	return nil
}

// rowKey spells a row's state: the CFA rule, then every register with a
// rule, in register order (as llvm-dwarfdump prints it).
func rowKey(b *strings.Builder, r *cfi.Row) {
	if r.CFA.Expr != nil {
		fmt.Fprintf(b, "cfa=expr%x", r.CFA.Expr)
	} else {
		fmt.Fprintf(b, "cfa=r%d%+d", r.CFA.Reg, r.CFA.Off)
	}
	if r.RAMangled {
		b.WriteString(" mangled")
	}
	for reg, rule := range r.Regs {
		if rule.Kind == cfi.RuleUnspecified {
			continue
		}
		fmt.Fprintf(b, " r%d=%v/%d/%d/%x", reg, rule.Kind, rule.Reg, rule.Off, rule.Expr)
	}
}
