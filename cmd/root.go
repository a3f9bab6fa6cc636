// Package cmd owns the btfinline command line: flags, help text and
// output, one cobra command per file, each made by its own constructor, so
// that every run gets a fresh command tree with fresh flags. The work is in
// the library packages (encode, resolve, site, btf, sframe, ...). Main is
// the process entry point and is also what the testscript golden tests run.
//
// It may import every package of the module; none imports it.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// newRootCmd builds the command tree.
func newRootCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "btfinline",
		Short: "make inlined kernel functions traceable with BTF",
		Long: `btfinline turns the DWARF description of inlined functions in a vmlinux or
kernel module into compact BTF (LOC_PARAM, LOC_PROTO and LOCSEC kinds), dumps
any BTF, resolves kprobe addresses and argument fetch specs for inlined
functions from BTF alone, and emits SFrame unwind tables.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		// Every command loads a base chain's BTF at least (commandHeap);
		// those that read DWARF ask for more (hugeHeapFor).
		PersistentPreRun: func(*cobra.Command, []string) { hugeHeap(commandHeap) },
	}
	c.AddCommand(newCacheCmd(), newDemoCmd(), newDumpCmd(), newEncodeCmd(), newManCmd(), newResolveCmd(),
		newSFrameCmd(), newSitesCmd(), newStatsCmd(), newTraceCmd())
	return c
}

// exitError carries a specific exit status through cobra's error return,
// e.g. "dump --validate" exits 1 when the BTF has violations that were
// already printed.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Main runs the command line with os.Args and returns the exit status.
func Main() int {
	processHeap = true
	deferGC(firstGC)
	return run(os.Args[1:], os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "btfinline: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "btfinline: %v\n", err)
	return 1
}
