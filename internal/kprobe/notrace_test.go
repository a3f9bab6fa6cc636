package kprobe

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFtraceTables: which table holds a module's ftrace call sites. On
// x86-64 __patchable_function_entries is call padding (a 6.12 kernel
// without FUNCTION_TRACER has it and no __mcount_loc): no function is
// notrace for it. On arm64 it is ftrace's: the function without an entry
// is notrace, the other is not.
func TestFtraceTables(t *testing.T) {
	for _, tc := range []struct {
		file      string
		untracedR string // what Check says of untraced ("" = allowed)
	}{
		{"ftrace-padding-x86_64.o", ""},
		{"ftrace-aarch64.o", "notrace function untraced"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, r := openRules(t, filepath.Join("testdata", tc.file))
			at := funcAddrs(t, f)
			if got := r.Check(".text", at["traced"], "traced"); !got.OK() {
				t.Errorf("traced: %q, want allowed", got)
			}
			ref := r.Check(".text", at["untraced"], "untraced")
			got := ref.String()
			if tc.untracedR == "" && got != "" || tc.untracedR != "" && !strings.Contains(got, tc.untracedR) {
				t.Errorf("untraced: %q, want %q", got, tc.untracedR)
			}
			if tc.untracedR != "" && ref.Rule != Notrace {
				t.Errorf("untraced: rule %v, want %v", ref.Rule, Notrace)
			}
		})
	}
}
