package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/btfinline/btfinline/internal/cframe"
	"github.com/btfinline/btfinline/internal/sframe"
)

// The experimental CFrame format of "sframe emit|dump|stats --format
// cframe" (docs/cframe.md). SFrame stays the default.

// addCFrameFlags adds the CFrame flags to the sframe subcommands.
func addCFrameFlags(o *sframeOptions, emit, dump, stats *cobra.Command) {
	for _, c := range []*cobra.Command{emit, stats} {
		c.Flags().StringVar(&o.format, "format", "sframe", "table format: sframe, or cframe (experimental compact table, docs/cframe.md)")
		c.Flags().StringVar(&o.strategy, "chunk-strategy", "callee-saved", "with --format cframe: none (one chunk per function) or callee-saved (prologue/body/epilogue, deduplicated)")
	}
	dump.Flags().StringVar(&o.dumpFormat, "format", "", "section to dump from an ELF file holding both: sframe or cframe")
}

// cframeFormat reports whether --format asks for CFrame, checking the
// flags that go with it.
func cframeFormat(cmd *cobra.Command, o *sframeOptions) (bool, error) {
	switch o.format {
	case "sframe", "":
		if cmd.Flags().Changed("chunk-strategy") {
			return false, &exitError{code: 2, msg: "--chunk-strategy needs --format cframe"}
		}
		return false, nil
	case "cframe":
		if cmd.Flags().Changed("sframe-version") {
			return false, &exitError{code: 2, msg: "--sframe-version is for --format sframe"}
		}
		if _, err := cframe.ParseStrategy(o.strategy); err != nil {
			return false, &exitError{code: 2, msg: err.Error()}
		}
		return true, nil
	}
	return false, &exitError{code: 2, msg: fmt.Sprintf("--format must be sframe or cframe, not %q", o.format)}
}

func cframeOptions(o *sframeOptions) cframe.Options {
	s, _ := cframe.ParseStrategy(o.strategy)
	return cframe.Options{Strategy: s, Dedup: s != cframe.StrategyNone, InnerBits: -1}
}

func runCFrameEmit(cmd *cobra.Command, path string, o *sframeOptions) error {
	in, done, err := openSFrameInput(path)
	if err != nil {
		return err
	}
	defer done()
	e, err := cframe.Emit(in, cframeOptions(o))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	stderr := cmd.ErrOrStderr()
	if !o.quiet {
		reportSkips(stderr, path, e.SFrame)
		for _, r := range sframe.Reasons(e.Built.Stats.Dropped) {
			fmt.Fprintf(stderr, "btfinline: %s: %d function(s) without CFrame: %s\n", path, e.Built.Stats.Dropped[r], r)
		}
	}
	return writeEmitted(cmd, o, path, in, e.Encode, func() ([]byte, string, error) { return e.AddToELF(in) })
}

// isCFrame tells a raw CFrame table by its magic.
func isCFrame(raw []byte) bool {
	return len(raw) >= 2 && (raw[0] == cframe.Magic&0xff && raw[1] == cframe.Magic>>8 || raw[0] == cframe.Magic>>8 && raw[1] == cframe.Magic&0xff)
}

// cframeOf returns the CFrame table of raw: the file itself, or an ELF
// file's .cframe section (nil, nil without one).
func cframeOf(path string, raw []byte, addr uint64) (*cframe.Table, error) {
	if isCFrame(raw) {
		t, err := cframe.Decode(raw, addr, cframe.SectionName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return t, nil
	}
	in, err := sframe.Open(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := in.File.Section(cframe.SectionName)
	if s == nil {
		return nil, nil
	}
	d, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := cframe.Decode(d, s.Addr, s.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// runCFrameDump dumps a CFrame table if raw is one or holds one and the
// --format flag does not ask for SFrame; done says whether it did.
func runCFrameDump(cmd *cobra.Command, path string, raw []byte, o *sframeOptions) (done bool, err error) {
	if o.dumpFormat == "sframe" {
		return false, nil
	}
	if o.dumpFormat != "" && o.dumpFormat != "cframe" {
		return true, &exitError{code: 2, msg: fmt.Sprintf("--format must be sframe or cframe, not %q", o.dumpFormat)}
	}
	// A raw SFrame section is neither a CFrame table nor an ELF file that
	// could hold one: left to the SFrame dump, or refused by name here,
	// rather than reported as a bad ELF file.
	if sframe.HasMagic(raw) {
		if o.dumpFormat == "cframe" {
			return true, fmt.Errorf("%s: a raw SFrame section, not a CFrame table", path)
		}
		return false, nil
	}
	if o.dumpFormat == "" && !isCFrame(raw) {
		// An ELF file: CFrame only when it has no .sframe.
		if in, err := sframe.Open(raw); err == nil {
			if _, _, _, err := in.SFrameSection(); err == nil {
				return false, nil
			}
		}
	}
	t, err := cframeOf(path, raw, o.addr)
	if err != nil {
		return true, err
	}
	if t == nil {
		if o.dumpFormat == "cframe" {
			return true, fmt.Errorf("%s: no %s section", path, cframe.SectionName)
		}
		return false, nil
	}
	return true, cframe.Dump(cmd.OutOrStdout(), t)
}

// printCFrameStats adds the CFrame figures to "sframe stats".
func printCFrameStats(w io.Writer, in *sframe.Input, st *sframe.Stats, o *sframeOptions) error {
	opt := cframeOptions(o)
	e, err := cframe.Emit(in, opt)
	if err != nil {
		return err
	}
	b, err := e.Encode(0)
	if err != nil {
		return err
	}
	s := &e.Built.Stats
	fmt.Fprintf(w, "  CFrame (experimental), chunk strategy %v", opt.Strategy)
	if opt.Dedup {
		fmt.Fprintf(w, ", deduplicated")
	}
	fmt.Fprintf(w, ":\n")
	fmt.Fprintf(w, "    functions:       %d (%d rows, %d states)\n", s.Funcs, s.Rows, s.States)
	for _, r := range sframe.Reasons(s.Dropped) {
		fmt.Fprintf(w, "      %6d  without CFrame: %s\n", s.Dropped[r], r)
	}
	fmt.Fprintf(w, "    chunks:          %d before deduplication (%d cut by the strategy, %d restarted at a bucket), %d after\n", s.Pieces, s.StrategyCuts, s.Continued, s.Chunks)
	fmt.Fprintf(w, "    inner entries:   %d (%d GAP)\n", s.Pieces+s.Gaps, s.Gaps)
	fmt.Fprintf(w, "    %s\n    %s\n", e.Built.Header.BitParameters(), e.Built.Header.BitPacking())
	fmt.Fprintf(w, "    bytes: header %d, outer %d, states %d, chunks %d, periods %d, inner %d, FRE payload %d, section map %d\n",
		s.HeaderBytes, s.OuterBytes, s.StateBytes, s.ChunkBytes, s.RepBytes, s.InnerBytes, s.PayloadBytes, s.MapBytes)
	fmt.Fprintf(w, "  CFrame size (bytes):             %10d  (%.1f%% of %s", len(b), 100*float64(len(b))/float64(st.CFIBytes+st.HdrBytes), st.CFIName)
	if st.HdrBytes > 0 {
		fmt.Fprintf(w, " + .eh_frame_hdr")
	}
	fmt.Fprintf(w, ", %.1f%% of SFrame v3)\n", 100*float64(len(b))/float64(st.V3Bytes))
	return nil
}

// printCFrameTable is "sframe stats" of a CFrame table.
func printCFrameTable(w io.Writer, path string, t *cframe.Table, size int) {
	h := &t.Header
	fmt.Fprintf(w, "%s: CFrame table (experimental), %v, %d bytes\n", path, h.ABI, size)
	fmt.Fprintf(w, "  %s\n  %s\n", h.BitParameters(), h.BitPacking())
	fmt.Fprintf(w, "  buckets %d, inner entries %d, chunks %d (%d PC-mask), states %d, sections %d\n", h.NumBuckets, h.NumInner, h.NumChunks, h.NumMask, h.NumStates, h.NumSections)
}
