package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var manDir string

var manCmd = &cobra.Command{
	Use:    "man --dir DIR",
	Short:  "write man pages for every command into DIR",
	Hidden: true,
	Args:   cobra.NoArgs,
	RunE: func(c *cobra.Command, _ []string) error {
		if err := os.MkdirAll(manDir, 0o755); err != nil {
			return err
		}
		hdr := &doc.GenManHeader{Title: "BTFINLINE", Section: "8", Source: "btfinline", Manual: "btfinline manual"}
		if err := doc.GenManTree(rootCmd, hdr, manDir); err != nil {
			return err
		}
		fmt.Fprintf(c.OutOrStdout(), "man pages written to %s\n", manDir)
		return nil
	},
}

func init() {
	manCmd.Flags().StringVar(&manDir, "dir", "man", "output `DIR`")
	addCommand(manCmd)
}
