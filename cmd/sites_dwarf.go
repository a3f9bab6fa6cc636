package cmd

import (
	"errors"

	"github.com/btfinline/btfinline/inline"
	"github.com/spf13/cobra"
)

// dwarfSites reads the sites of o.file from DWARF. Owned by the DWARF work.
func dwarfSites(c *cobra.Command, o *sitesOptions) ([]inline.Site, error) {
	return nil, errors.New("sites --dwarf: not implemented yet")
}

// printSites prints sites one per line, as JSON, or as --stats.
func printSites(c *cobra.Command, o *sitesOptions, sites []inline.Site) error {
	return errors.New("not implemented yet")
}
