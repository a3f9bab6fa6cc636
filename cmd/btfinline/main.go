// Command btfinline makes inlined kernel functions traceable: it encodes
// DWARF inline sites as BTF, inspects BTF and resolves kprobe addresses from
// it, and emits SFrame. See "btfinline help".
package main

import (
	"os"

	"github.com/btfinline/btfinline/cmd"
	"github.com/btfinline/btfinline/internal/trace"
)

func main() {
	// trace's watchdog is this binary re-executed: it must not parse a
	// command line, nor print anything of its own.
	if code, ok := trace.HelperMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(cmd.Main())
}
