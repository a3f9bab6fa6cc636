package resolve

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// bpftrace (0.17, Debian 12) refuses kprobe:MODULE:sym+off; a module's
// place is spelled kprobe:sym+off with a decimal offset.
func TestBpftraceModuleTarget(t *testing.T) {
	r := &Result{Func: "f", Places: []Place{{Kind: PlaceInline, Event: "f_1", HasAddr: true, Target: "btfi_e2e:btfi_call_regs+0x25",
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

// TestPlaceKindJSON: the kinds keep their JSON spelling, an unknown one
// stays visible, and JSON reads back what it wrote.
func TestPlaceKindJSON(t *testing.T) {
	b, err := json.Marshal([]PlaceKind{PlaceInline, PlaceEntry})
	if err != nil || string(b) != `["inline","entry"]` {
		t.Fatalf("%s, %v", b, err)
	}
	var back []PlaceKind
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 2 || back[0] != PlaceInline || back[1] != PlaceEntry {
		t.Fatalf("%v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`["outline"]`), &back); err == nil {
		t.Error("an unknown kind was read")
	}
	if s := PlaceKind(7).String(); s != "PlaceKind(7)" {
		t.Errorf("PlaceKind(7) = %q", s)
	}
}
