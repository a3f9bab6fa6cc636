//go:build linux

package trace

import (
	"errors"
	"testing"
)

func TestCheckCaps(t *testing.T) {
	for _, tc := range []struct {
		capEff string
		ok     bool
	}{
		{"000001ffffffffff", true},  // root
		{"0000000000200000", true},  // CAP_SYS_ADMIN alone
		{"000000c000000000", true},  // CAP_BPF and CAP_PERFMON
		{"0000008000000000", false}, // CAP_BPF alone
		{"0000004000000000", false}, // CAP_PERFMON alone
		{"0000000000000000", false}, // a user
	} {
		err := checkCaps([]byte("Name:\tbtfinline\nCapInh:\t0000000000000000\nCapEff:\t" + tc.capEff + "\nCapBnd:\t000001ffffffffff\n"))
		var pe *PermissionError
		if tc.ok != (err == nil) || err != nil && !errors.As(err, &pe) {
			t.Errorf("CapEff %s: %v", tc.capEff, err)
		}
	}
	if err := checkCaps([]byte("Name:\tx\n")); err != nil {
		t.Errorf("no CapEff line (cannot tell, the kernel will say): %v", err)
	}
}
