package cmd

import (
	"fmt"
	"io"
	"os"

	"github.com/btfinline/btfinline/internal/atomicfile"

	"github.com/spf13/cobra"

	"github.com/btfinline/btfinline/internal/sframe"
)

// sframeOptions are the flags of the sframe subcommands.
type sframeOptions struct {
	out        string
	elfSection bool
	version    int
	addr       uint64
	quiet      bool
	// The experimental CFrame format (cframe.go).
	format     string
	dumpFormat string
	strategy   string
}

func newSFrameCmd() *cobra.Command {
	o := &sframeOptions{}
	c := &cobra.Command{
		Use:   "sframe",
		Short: "emit, dump and measure SFrame stack trace sections",
		Long: `Produce SFrame (v3, or v2) stack trace information from the DWARF call
frame information of an object, executable, shared library, vmlinux or kernel
module, the way GNU as --gsframe translates it; dump .sframe sections in the
format of readelf --sframe; and compare sizes.`,
	}
	emit := &cobra.Command{
		Use:   "emit FILE [-o OUT.sframe | --elf-section] [--sframe-version 2|3 | --format cframe [--chunk-strategy none|callee-saved]]",
		Short: "translate .eh_frame/.debug_frame into an SFrame section (or an experimental CFrame table)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return runSFrameEmit(c, args, o) },
	}
	dump := &cobra.Command{
		Use:   "dump FILE",
		Short: "print a .sframe section like readelf --sframe",
		Long: `Print the .sframe section of an ELF file, or a raw SFrame section written
by "emit -o", in the format of readelf --sframe (binutils 2.46/2.47).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runSFrameDump(c, args, o) },
	}
	stats := &cobra.Command{
		Use:   "stats FILE",
		Short: "count FDEs/FREs, skipped FDEs by reason, and compare sizes",
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { return runSFrameStats(c, args, o) },
	}
	f := emit.Flags()
	f.StringVarP(&o.out, "output", "o", "", "write the raw section to `OUT.sframe`")
	f.BoolVar(&o.elfSection, "elf-section", false, "add .sframe to FILE in place (atomically)")
	f.IntVar(&o.version, "sframe-version", 3, "SFrame format version, 2 or 3")
	f.Uint64Var(&o.addr, "section-addr", 0, "address the raw section will sit at (with -o; default for linked inputs: just past the last PT_LOAD)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report skipped FDEs")
	dump.Flags().Uint64Var(&o.addr, "section-addr", 0, "address of a raw section (not needed for ELF files)")
	addCFrameFlags(o, emit, dump, stats)
	c.AddCommand(emit, dump, stats)
	return c
}

func openSFrameInput(path string) (*sframe.Input, func(), error) {
	in, done, err := sframe.OpenFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return in, done, nil
}

func runSFrameEmit(cmd *cobra.Command, args []string, o *sframeOptions) error {
	if o.version != 2 && o.version != 3 {
		return &exitError{code: 2, msg: "--sframe-version must be 2 or 3"}
	}
	if (o.out == "") == !o.elfSection {
		return &exitError{code: 2, msg: "give exactly one of -o OUT.sframe and --elf-section"}
	}
	path := args[0]
	hugeHeapFor(path)
	if cf, err := cframeFormat(cmd, o); err != nil || cf {
		if err != nil {
			return err
		}
		return runCFrameEmit(cmd, path, o)
	}
	in, done, err := openSFrameInput(path)
	if err != nil {
		return err
	}
	defer done()
	em, err := in.Emit(sframe.EmitOptions{Version: uint8(o.version)})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	stderr := cmd.ErrOrStderr()
	if !o.quiet {
		reportSkips(stderr, path, em)
	}
	return writeEmitted(cmd, o, path, in, em.Encode, func() ([]byte, string, error) { return in.AddToELF(em) })
}

// writeEmitted writes a table made from in: with -o the raw section,
// encoded for --section-addr (by default where --elf-section would put
// it: just past the last segment), else added to the ELF file in place.
func writeEmitted(cmd *cobra.Command, o *sframeOptions, path string, in *sframe.Input, encode func(addr uint64) ([]byte, error), addToELF func() ([]byte, string, error)) error {
	stderr := cmd.ErrOrStderr()
	if o.out != "" {
		addr := o.addr
		if !cmd.Flags().Changed("section-addr") && !in.Rel {
			addr = in.SectionAddr()
			if !o.quiet {
				fmt.Fprintf(stderr, "btfinline: %s: function starts are relative to a section at %#x (--section-addr; dump with the same)\n", path, addr)
			}
		}
		data, err := encode(addr)
		if err != nil {
			return err
		}
		return atomicfile.Write(o.out, data)
	}
	out, note, err := addToELF()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := atomicfile.Write(path, out); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(stderr, "btfinline: %s: %s\n", path, note)
	}
	return nil
}

func reportSkips(w io.Writer, path string, em *sframe.Emitted) {
	for _, r := range sframe.Reasons(em.Skipped) {
		fmt.Fprintf(w, "btfinline: %s: %d FDE(s) without SFrame: %s\n", path, em.Skipped[r], r)
	}
}

func runSFrameDump(cmd *cobra.Command, args []string, o *sframeOptions) error {
	raw, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	if done, err := runCFrameDump(cmd, args[0], raw, o); done {
		return err
	}
	var data []byte
	addr := o.addr
	name := ".sframe"
	if sframe.HasMagic(raw) {
		data = raw
	} else {
		in, err := sframe.Open(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
		}
		d, a, s, err := in.SFrameSection()
		if err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
		}
		data, addr, name = d, a, s.Name
	}
	s, err := sframe.Decode(data, addr, name)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return sframe.Dump(cmd.OutOrStdout(), s, name)
}

func runSFrameStats(cmd *cobra.Command, args []string, o *sframeOptions) error {
	path := args[0]
	cf, err := cframeFormat(cmd, o)
	if err != nil {
		return err
	}
	if raw, err := os.ReadFile(path); err == nil && isCFrame(raw) {
		t, err := cframeOf(path, raw, o.addr)
		if err != nil {
			return err
		}
		printCFrameTable(cmd.OutOrStdout(), path, t, len(raw))
		return nil
	}
	in, done, err := openSFrameInput(path)
	if err != nil {
		return err
	}
	defer done()
	st, err := in.Stats()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s: %v, call frame information from %s\n", path, in.ABI, st.CFIName)
	fmt.Fprintf(w, "  CFI FDEs:          %d\n", st.CFIFDEs)
	fmt.Fprintf(w, "  SFrame v3 FDEs:    %d (%d FREs, %d FLEX)\n", st.V3FDEs, st.V3FREs, st.V3Flex)
	fmt.Fprintf(w, "  SFrame v2 FDEs:    %d (%d FREs)\n", st.V2FDEs, st.V2FREs)
	if len(st.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped FDEs (v3):\n")
		for _, r := range sframe.Reasons(st.Skipped) {
			fmt.Fprintf(w, "    %6d  %s\n", st.Skipped[r], r)
		}
	}
	if st.HdrEntries > 0 || st.HdrBytes > 0 {
		fmt.Fprintf(w, "  .eh_frame_hdr table: %d entries, %d match a parsed FDE\n", st.HdrEntries, st.HdrMatched)
	}
	fmt.Fprintf(w, "  sizes (bytes):\n")
	if st.HdrBytes > 0 {
		fmt.Fprintf(w, "    %-28s %10d  (%d + %d)\n", st.CFIName+" + .eh_frame_hdr", st.CFIBytes+st.HdrBytes, st.CFIBytes, st.HdrBytes)
	} else {
		fmt.Fprintf(w, "    %-28s %10d\n", st.CFIName, st.CFIBytes)
	}
	fmt.Fprintf(w, "    %-28s %10d\n", "SFrame v2", st.V2Bytes)
	fmt.Fprintf(w, "    %-28s %10d\n", "SFrame v3", st.V3Bytes)
	if cf {
		return printCFrameStats(w, in, st, o)
	}
	return nil
}
