// Command btfinline makes inlined kernel functions traceable: it encodes
// DWARF inline sites as BTF, inspects BTF and resolves kprobe addresses from
// it, and emits SFrame. See "btfinline help".
package main

import (
	"os"

	"github.com/btfinline/btfinline/cmd"
)

func main() { os.Exit(cmd.Main()) }
