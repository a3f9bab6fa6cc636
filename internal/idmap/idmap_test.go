package idmap

import (
	"slices"
	"testing"
)

// TestOrder: ids come back in the order they were added, per key, through
// growth from the smallest table.
func TestOrder(t *testing.T) {
	m := New(10, 0, 0)
	want := map[uint64][]uint32{}
	for i := uint32(0); i < 5000; i++ {
		// Ids out of order, as a converter registers a struct after
		// its members.
		id := 10 + (i*7919)%5000
		k := Key(uint64(id % 37))
		m.Add(k, id)
		want[k] = append(want[k], id)
	}
	for k, ids := range want {
		var got []uint32
		m.Each(k, func(id uint32) bool {
			got = append(got, id)
			return true
		})
		// Other keys may share a slot: keep this key's ids.
		got = slices.DeleteFunc(got, func(id uint32) bool { return Key(uint64(id%37)) != k })
		if !slices.Equal(got, ids) {
			t.Fatalf("key %#x: got %v, want %v", k, got, ids)
		}
	}
	n := 0
	m.Each(Key(1000), func(uint32) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d ids for a key never added", n)
	}
	n = 0
	m.Each(Key(1), func(uint32) bool { n++; return false })
	if n != 1 {
		t.Errorf("Each went on after false: %d calls", n)
	}
}

// TestAddTwice: an id has one place in the chains, so a second Add of it
// (under the same key or another) is refused rather than merging lists.
func TestAddTwice(t *testing.T) {
	for _, k := range []uint64{1, 2} {
		m := New(1, 4, 4)
		m.Add(1, 3)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("second Add of id 3 under key %d accepted", k)
				}
			}()
			m.Add(k, 3)
		}()
	}
}

func BenchmarkAdd(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := New(1, 100000, 60000)
		for i := uint32(1); i <= 100000; i++ {
			m.Add(Key(1, uint64(i%60000)), i)
		}
	}
}
