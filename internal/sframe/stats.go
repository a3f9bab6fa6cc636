package sframe

// Stats compares the input's call frame information with the SFrame v2
// and v3 sections made from it.
type Stats struct {
	CFIName            string
	CFIFDEs            int
	CFIBytes, HdrBytes uint64
	HdrEntries         uint64
	HdrMatched         int
	V2FDEs, V2FREs     int
	V3FDEs, V3FREs     int
	V3Flex             int
	V2Bytes, V3Bytes   int
	Skipped            map[string]int // v3
	SkippedV2          map[string]int
}

// Stats emits both versions and measures them.
func (in *Input) Stats() (*Stats, error) {
	st := &Stats{}
	for _, v := range []uint8{Version2, Version3} {
		em, err := in.Emit(EmitOptions{Version: v})
		if err != nil {
			return nil, err
		}
		// At the address --elf-section would give it: v2's 32-bit starts
		// cannot reach an arm64 kernel's text from 0.
		b, err := em.Encode(in.SectionAddr())
		if err != nil {
			return nil, err
		}
		fres := 0
		flex := 0
		for i := range em.Section.FDEs {
			fres += len(em.Section.FDEs[i].FREs)
			if em.Section.FDEs[i].Flex() {
				flex++
			}
		}
		st.CFIName, st.CFIFDEs, st.CFIBytes = em.CFIName, em.CFIFDEs, em.CFIBytes
		if em.EHFrameHdr != nil {
			st.HdrBytes = em.EHFrameHdr.Size
			st.HdrEntries, st.HdrMatched = em.EHFrameHdr.Count, em.EHFrameHdr.Matched
		}
		if v == Version2 {
			st.V2FDEs, st.V2FREs, st.V2Bytes, st.SkippedV2 = len(em.Section.FDEs), fres, len(b), em.Skipped
		} else {
			st.V3FDEs, st.V3FREs, st.V3Bytes, st.Skipped, st.V3Flex = len(em.Section.FDEs), fres, len(b), em.Skipped, flex
		}
	}
	return st, nil
}
