package cmd

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// demoObject is cmd/demo/demo: a small program with static inline functions,
// built with gcc -O2 -g and given a .BTF by pahole -J (cmd/demo/Makefile).
//
//go:embed demo/demo
var demoObject []byte

func newDemoCmd() *cobra.Command {
	var keep string
	c := &cobra.Command{
		Use:   "demo",
		Short: "run the main job on an embedded fixture",
		Long: `Run the main job on an embedded object (a small program with static inline
functions, compiled with gcc -O2 -g and given a .BTF by pahole):

  1. list its inline sites from DWARF          (btfinline sites --dwarf)
  2. encode them into a .BTF.inline section    (btfinline encode --elf-section)
  3. dump the new BTF kinds                    (btfinline dump --section .BTF.inline)
  4. list the inline sites from BTF alone      (btfinline sites)
  5. resolve kprobe lines for one function     (btfinline resolve)

The object is written to a temporary directory (or --keep DIR) first.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			dir := keep
			if dir == "" {
				d, err := os.MkdirTemp("", "btfinline-demo-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(d)
				dir = d
			}
			obj := filepath.Join(dir, "demo")
			if err := os.WriteFile(obj, demoObject, 0o755); err != nil {
				return err
			}
			steps := []struct {
				title string
				args  []string
			}{
				{"inline sites from DWARF", []string{"sites", "--dwarf", obj}},
				{"encode .BTF.inline", []string{"encode", "--elf-section", "--force", obj}},
				{"the new BTF kinds", []string{"dump", "--section", ".BTF.inline", obj}},
				{"inline sites from BTF alone", []string{"sites", obj}},
				{"kprobe lines for scale()", []string{"resolve", "scale", obj, "--format", "kprobe"}},
			}
			out := c.OutOrStdout()
			for i, s := range steps {
				fmt.Fprintf(out, "== %d. %s: btfinline %s\n", i+1, s.title, joinArgs(s.args, obj))
				if code := run(s.args, out, c.ErrOrStderr()); code != 0 {
					return &exitError{code: code, msg: fmt.Sprintf("demo step %d (%s) failed", i+1, s.args[0])}
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	c.Flags().StringVar(&keep, "keep", "", "write the object into `DIR` and keep it")
	return c
}

// joinArgs prints args with the temporary object path shortened.
func joinArgs(args []string, obj string) string {
	s := ""
	for i, a := range args {
		if a == obj {
			a = "demo"
		}
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}
