package cframe

import (
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfbuf"
	"github.com/btfinline/btfinline/internal/sframe"
)

// Magic is the CFrame header magic in the target byte order (SFrame's is
// 0xdee2; both are read the same way to tell the byte order).
const Magic = 0xcfe2

// Version is the only version: the format is experimental and may change
// without a version bump until someone else reads it.
const Version = 1

// Header flags.
const (
	// FlagSectionMap: the table describes a relocatable kernel module; a
	// section map gives where each executable section sits in the table's
	// address space (docs/cframe.md, "Kernel modules").
	FlagSectionMap = 0x01
)

// HeaderSize is the size of the fixed header.
const HeaderSize = 48

// SectionMapEntrySize is the size of one section map entry.
const SectionMapEntrySize = 16

// Strategy says how a function's rows are cut into chunks.
type Strategy uint8

const (
	// StrategyNone keeps one chunk per function.
	StrategyNone Strategy = iota
	// StrategyCalleeSaved cuts each function where its stack is deepest:
	// prologue, body, epilogue (the pre-proposal's heuristic).
	StrategyCalleeSaved
)

var strategyNames = [...]string{"none", "callee-saved"}

func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

// ParseStrategy reads a strategy name as the command line spells it.
func ParseStrategy(name string) (Strategy, error) {
	for i, n := range strategyNames {
		if n == name {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown chunk strategy %q (none, callee-saved)", name)
}

// ValueKind is how a state record says a register's caller value (or the
// CFA) is recovered. The numbers are the format's.
type ValueKind uint8

const (
	ValSame    ValueKind = 0 // unchanged: still in the register
	ValAt      ValueKind = 1 // saved at CFA+off
	ValCFAOff  ValueKind = 2 // the value is CFA+off
	ValReg     ValueKind = 3 // reg+off, loaded from there when deref
	ValUnknown ValueKind = 4 // SFrame has no representation
)

var kindNames = [...]string{"same", "at", "cfa_off", "reg", "unknown"}

func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ValueKind(%d)", uint8(k))
}

// The seam to package sframe's rule types: the format numbers its kinds
// itself, so a change of Go constants there cannot change bytes here.
var toSFrameKind = [...]sframe.ValueKind{sframe.ValSame, sframe.ValAt, sframe.ValCFAOff, sframe.ValReg, sframe.ValUnknown}

func fromSFrameKind(k sframe.ValueKind) (ValueKind, bool) {
	for i, s := range toSFrameKind {
		if s == k {
			return ValueKind(i), true
		}
	}
	return 0, false
}

// State is one record of the state table: the frame rule an unwinder gets
// for a PC, and the function attributes SFrame v3 keeps per FDE.
type State struct {
	Frame  sframe.Frame
	Signal bool // the function is a signal trampoline
	KeyB   bool // AArch64: return address signed with key B
}

func (s State) String() string {
	t := s.Frame.String()
	if s.Signal {
		t += " signal"
	}
	if s.KeyB {
		t += " keyB"
	}
	return t
}

// FormatError is a decoding error naming the section and the byte offset.
type FormatError = dwarfbuf.Error

// Header is the fixed header (docs/cframe.md, "Header").
type Header struct {
	Version uint8
	Flags   uint8
	ABI     sframe.ABI
	// Address bits: PCs are reduced to (pc - text base) >> BottomTrim; the
	// high bits index the outer table, the low InnerBits are inner keys.
	BottomTrim, InnerBits uint8
	// Field widths in bits.
	OuterW   uint8 // outer entry: first inner entry of the bucket
	ChunkW   uint8 // inner entry value: 0 = GAP, else chunk id + 1
	FREOffW  uint8 // chunk entry: bit offset of its FREs in the payload
	StartWW  uint8 // chunk entry: width of its FRE start fields
	StateW   uint8 // FRE: state id
	RegW     uint8 // state: register numbers
	CFAOffW  uint8 // state: CFA offset
	RAOffW   uint8 // state: RA offset
	FPOffW   uint8 // state: FP offset
	TextBase int64 // first address covered, relative to the section's address
	// Counts.
	NumBuckets, NumInner, NumChunks, NumMask, NumStates, NumSections uint32
}

// OuterBits is the number of high PC bits the outer table is indexed by.
func (h *Header) OuterBits() uint { return bitsFor(uint64(h.NumBuckets) - 1) }

func (h *Header) innerEntryW() uint { return uint(h.InnerBits) + uint(h.ChunkW) }
func (h *Header) chunkEntryW() uint { return uint(h.FREOffW) + uint(h.StartWW) }
func (h *Header) valueW(off uint8) uint {
	return 3 + 1 + uint(h.RegW) + uint(off)
}
func (h *Header) stateRecW() uint {
	return 4 + h.valueW(h.CFAOffW) + h.valueW(h.RAOffW) + h.valueW(h.FPOffW)
}

// SectionRange places one executable section of a kernel module in the
// table's address space.
type SectionRange struct {
	Index uint32 // ELF section index
	Start uint64 // offset from the text base
	Size  uint32
}
