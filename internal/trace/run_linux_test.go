//go:build linux

package trace

import (
	"context"
	"testing"
	"time"
)

// A due tick is found without waiting: events that never pause still get
// their intervals, their end and their modules (a ticker's channel reads
// len 0 even when a tick is due).
func TestPending(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	gone := make(chan modEvent, 1)
	if p, _ := pending(ctx, nil, gone, false); p != pendNone {
		t.Fatalf("nothing pending: got %d", p)
	}
	time.Sleep(20 * time.Millisecond)
	if p, _ := pending(ctx, tk.C, gone, false); p != pendTick {
		t.Errorf("a due tick without waiting: got %d, want %d", p, pendTick)
	}
	gone <- modEvent{name: "m", loaded: true}
	if p, e := pending(ctx, nil, gone, false); p != pendModule || e.name != "m" || !e.loaded {
		t.Errorf("a module event: got %d %+v", p, e)
	}
	if p, _ := pending(ctx, tk.C, gone, true); p != pendTick {
		t.Errorf("waiting for a tick: got %d", p)
	}
	cancel()
	if p, _ := pending(ctx, nil, gone, false); p != pendEnd {
		t.Errorf("the end: got %d", p)
	}
}
