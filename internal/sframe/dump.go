package sframe

import (
	"fmt"
	"io"
	"strings"
)

// Dump writes the section the way "readelf --sframe" (binutils 2.46/2.47)
// prints it, name being the section name. The section must have been
// decoded at its own address so that function starts are absolute.
func Dump(w io.Writer, s *Section, name string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Contents of the SFrame section %s:", name)
	b.WriteString("\n")
	b.WriteString("  Header :\n\n")
	fmt.Fprintf(&b, "    Version: SFRAME_VERSION_%d\n", s.Version)
	writeFlags(&b, s)
	if s.FixedFP != 0 {
		fmt.Fprintf(&b, "    CFA fixed FP offset: %d\n", s.FixedFP)
	}
	if s.FixedRA != 0 {
		fmt.Fprintf(&b, "    CFA fixed RA offset: %d\n", s.FixedRA)
	}
	nfres := 0
	for i := range s.FDEs {
		nfres += len(s.FDEs[i].FREs)
	}
	fmt.Fprintf(&b, "    Num FDEs: %d\n", len(s.FDEs))
	fmt.Fprintf(&b, "    Num FREs: %d\n", nfres)
	b.WriteString("\n  Function Index :\n")
	for i := range s.FDEs {
		f := &s.FDEs[i]
		fmt.Fprintf(&b, "\n    func idx [%d]: pc = 0x%x, size = %d bytes", i, uint64(f.Start), f.Size)
		if s.Version == Version3 {
			attr := ""
			if f.Signal() {
				attr += "S"
			}
			if f.Flex() {
				attr += "F"
			}
			if attr != "" {
				fmt.Fprintf(&b, ", attr = \"%s\"", attr)
			}
		}
		if (s.ABI == ABIAArch64LE || s.ABI == ABIAArch64BE) && f.PAuthKeyB() {
			b.WriteString(", pauth = B key")
		}
		marker := "   "
		if f.PCType() == PCTypeMask {
			marker = "[m]"
		}
		fmt.Fprintf(&b, "\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC", marker, "CFA", "FP", "RA")
		for j := range f.FREs {
			r := &f.FREs[j]
			pc := uint64(f.Start) + uint64(r.Start)
			if f.PCType() == PCTypeMask {
				pc = uint64(r.Start)
			}
			fmt.Fprintf(&b, "\n    %016x", pc)
			if r.N() == 0 {
				b.WriteString("  RA undefined")
				continue
			}
			var cfa, fp, ra string
			if s.Version == Version3 && f.Flex() {
				cfa, fp, ra = s.flexTexts(r)
			} else {
				cfa, fp, ra = s.defaultTexts(r)
			}
			if r.Mangled() {
				ra += "[s]"
			} else {
				ra += "   "
			}
			fmt.Fprintf(&b, "  %-10s%-10s%-13s", cfa, fp, ra)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFlags(b *strings.Builder, s *Section) {
	if s.Flags == 0 {
		b.WriteString("    Flags: NONE\n")
		return
	}
	var names []string
	rest := s.Flags
	if rest&FlagFDESorted != 0 {
		names = append(names, "SFRAME_F_FDE_SORTED")
		rest &^= FlagFDESorted
	}
	if s.Version != Version3 && rest&FlagFramePointer != 0 {
		names = append(names, "SFRAME_F_FRAME_POINTER")
		rest &^= FlagFramePointer
	}
	if rest&FlagFDEFuncStartPCRel != 0 {
		names = append(names, "SFRAME_F_FDE_FUNC_START_PCREL")
		rest &^= FlagFDEFuncStartPCRel
	}
	if rest != 0 {
		names = append(names, fmt.Sprintf("%d", rest))
	}
	for i, n := range names {
		prefix := " "
		if i == 0 {
			prefix = "Flags: "
		}
		sep := ""
		if i < len(names)-1 {
			sep = ","
		}
		fmt.Fprintf(b, "%11s%s%s\n", prefix, n, sep)
	}
}

// defaultWordIndexes returns the RA and FP word indexes for default FDEs
// (-1 when the ABI does not store that word).
func (s *Section) defaultWordIndexes() (raIdx, fpIdx int) {
	if s.FixedRA != 0 {
		return -1, 1
	}
	return 1, 2
}

func (s *Section) defaultTexts(r *FRE) (cfa, fp, ra string) {
	w := r.Words()
	base := "fp"
	if r.Base() == BaseSP {
		base = "sp"
	}
	cfa = fmt.Sprintf("%s+%d", base, w[0])
	raIdx, fpIdx := s.defaultWordIndexes()
	switch {
	case fpIdx < len(w):
		fp = fmt.Sprintf("c%+d", w[fpIdx])
	case s.FixedFP != 0:
		fp = fmt.Sprintf("c%+d", s.FixedFP)
	default:
		fp = "u"
	}
	switch {
	case s.FixedRA != 0:
		ra = "f"
	case raIdx >= 0 && raIdx < len(w) && w[raIdx] == 0:
		ra = "U"
	case raIdx >= 0 && raIdx < len(w):
		ra = fmt.Sprintf("c%+d", w[raIdx])
	default:
		ra = "u"
	}
	return
}

func (s *Section) regName(n uint32) string {
	sp, fp, _ := s.ABI.Regs()
	switch uint64(n) {
	case sp:
		return "sp"
	case fp:
		return "fp"
	}
	return fmt.Sprintf("r%d", n)
}

func (s *Section) pairText(ctrl uint32, off int32) string {
	if ctrl&1 == 0 {
		return fmt.Sprintf("c%+d", off)
	}
	t := fmt.Sprintf("%s%+d", s.regName(ctrl>>3), off)
	if ctrl&2 != 0 {
		t = "(" + t + ")"
	}
	return t
}

func (s *Section) flexTexts(r *FRE) (cfa, fp, ra string) {
	w := r.Words()
	n := len(w)
	if n >= 2 {
		cfa = s.pairText(uint32(w[0]), w[1])
	} else {
		cfa = "u"
	}
	fpIdx := -1
	switch {
	case n < 4:
		if s.FixedRA != 0 {
			ra = "f"
		} else {
			ra = "u"
		}
	case w[2] == 0:
		ra = "U"
		fpIdx = 3
	default:
		ra = s.pairText(uint32(w[2]), w[3])
		fpIdx = 4
	}
	if fpIdx >= 0 && fpIdx+1 < n {
		fp = s.pairText(uint32(w[fpIdx]), w[fpIdx+1])
	} else {
		fp = "u"
	}
	return
}
