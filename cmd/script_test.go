package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the golden CLI scripts run "btfinline" as a command: the
// test binary re-executes itself as btfinline (testscript), so each
// invocation gets fresh flag state.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"btfinline": func() { os.Exit(Main()) },
	})
}

// TestScript runs cmd/testdata/script/*.txtar: golden CLI tests shared by
// every subcommand. In a script, $ROOT is the repository (fixtures are in
// each package's testdata folder). BTFI_UPDATE_SCRIPTS=1 rewrites the golden
// files of failing cmp commands.
func TestScript(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: os.Getenv("BTFI_UPDATE_SCRIPTS") != "",
		Setup: func(e *testscript.Env) error {
			e.Setenv("ROOT", root)
			for _, v := range []string{"BTFI_REFTOOLS", "BTFI_KERNEL_DATA"} {
				e.Setenv(v, os.Getenv(v))
			}
			return nil
		},
	})
}
