package cmd

import (
	"errors"
	"fmt"

	"github.com/btfinline/btfinline/internal/dwarfsite"
	"github.com/btfinline/btfinline/internal/elfobj"
	"github.com/btfinline/btfinline/internal/kprobe"
	"github.com/btfinline/btfinline/internal/site"
)

// readNesting is the DWARF side of --nesting: the nesting of the inline
// sites in the DWARF of the ELF at path (the target's, resolve.Target.ELFPath),
// which the .BTF.inline sites are then joined with by site.NestKey.
func readNesting(path string, match func(string) bool, withLocs bool, ours []site.NestKey) (map[site.NestKey]site.Nest, error) {
	if path == "" {
		return nil, errors.New("--nesting reads DWARF: give the object (an ELF with .debug_info) as FILE or as the last -B")
	}
	f, err := elfobj.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %w", err)
	}
	defer f.Close()
	rules, err := kprobe.ForELF(f)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %s: %w", path, err)
	}
	m, err := dwarfsite.Nesting(f, rules, match, withLocs, ours)
	if err != nil {
		return nil, fmt.Errorf("--nesting: %s: %w", path, err)
	}
	return m, nil
}
