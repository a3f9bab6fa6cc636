package cmd

import (
	"errors"

	"github.com/btfinline/btfinline/inline"
	"github.com/spf13/cobra"
)

// btfSites reads the sites of o.file (or the running kernel) from
// .BTF.inline. Owned by the inspector work.
func btfSites(c *cobra.Command, o *sitesOptions) ([]inline.Site, error) {
	return nil, errors.New("sites from BTF: not implemented yet")
}
