package resolve

import (
	"bytes"
	"strings"
	"testing"
)

// bpftrace (0.17, Debian 12) refuses kprobe:MODULE:sym+off; a module's
// place is spelled kprobe:sym+off with a decimal offset.
func TestBpftraceModuleTarget(t *testing.T) {
	r := &Result{Func: "f", Places: []Place{{Kind: "inline", Event: "f_1", HasAddr: true, Target: "btfi_e2e:btfi_call_regs+0x25",
		Fetches: []Fetch{{Name: "a", Expr: `(uint32)reg("bp")`, Verb: "%lu"}}}}}
	var b bytes.Buffer
	if err := r.Write(&b, "bpftrace"); err != nil {
		t.Fatal(err)
	}
	want := `kprobe:btfi_call_regs+37 { printf("f_1 a=%lu\n", (uint32)reg("bp")); }`
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("got\n%s\nwant a line\n%s", b.String(), want)
	}
}
