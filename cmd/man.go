package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func newManCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:    "man --dir DIR",
		Short:  "write man pages for every command into DIR",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			hdr := &doc.GenManHeader{Title: "BTFINLINE", Section: "8", Source: "btfinline", Manual: "btfinline manual"}
			if err := doc.GenManTree(c.Root(), hdr, dir); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "man pages written to %s\n", dir)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "man", "output `DIR`")
	return c
}
