// Package cmd owns the btfinline command line: one cobra command per file,
// each registered on the root command from its own init function so that the
// subcommands can grow independently. Main is the process entry point and is
// also what the testscript golden tests run.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// rootCmd is the top of the command tree. Subcommands attach themselves in
// init functions (see addCommand).
var rootCmd = &cobra.Command{
	Use:   "btfinline",
	Short: "make inlined kernel functions traceable with BTF",
	Long: `btfinline turns the DWARF description of inlined functions in a vmlinux or
kernel module into compact BTF (LOC_PARAM, LOC_PROTO and LOCSEC kinds), dumps
any BTF, resolves kprobe addresses and argument fetch specs for inlined
functions from BTF alone, and emits SFrame unwind tables.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// addCommand registers a subcommand on the root; called from init functions.
func addCommand(c *cobra.Command) { rootCmd.AddCommand(c) }

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
	return run(os.Args[1:], os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	resetFlags(rootCmd)
	rootCmd.SetArgs(args)
	rootCmd.SetOut(stdout)
	rootCmd.SetErr(stderr)
	err := rootCmd.Execute()
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

// resetFlags puts every flag of the tree back to its default, so that run
// can be called more than once in one process (the demo runs several
// commands in turn) without one command's flags leaking into the next.
func resetFlags(c *cobra.Command) {
	reset := func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			sv.Replace(nil)
		} else {
			f.Value.Set(f.DefValue)
		}
		f.Changed = false
	}
	c.Flags().VisitAll(reset)
	c.PersistentFlags().VisitAll(reset)
	for _, sub := range c.Commands() {
		resetFlags(sub)
	}
}
