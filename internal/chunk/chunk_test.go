package chunk

import "testing"

func TestKeep(t *testing.T) {
	var c []int
	a := Keep(&c, []int{1, 2}, 4)
	b := Keep(&c, []int{3, 4}, 4)
	d := Keep(&c, []int{5}, 4) // no room left: a new chunk
	if Keep(&c, nil, 4) != nil {
		t.Error("empty items kept")
	}
	a = append(a, 9) // capped: does not overwrite b
	if b[0] != 3 || b[1] != 4 || d[0] != 5 || a[2] != 9 {
		t.Errorf("a %v b %v d %v", a, b, d)
	}
	if &b[0] == &d[0] || cap(d) != 1 {
		t.Errorf("d shares b's chunk or is not capped: cap %d", cap(d))
	}
}

func TestPool(t *testing.T) {
	p := Pool[int]{Min: 4}
	a := p.Keep([]int{1, 2, 3})
	b := p.Keep([]int{4, 5}) // no room left: a second chunk
	big := p.Keep([]int{6, 7, 8, 9, 10})
	if p.Keep(nil) != nil {
		t.Error("empty items kept")
	}
	a = append(a, 9) // capped: a copy, the chunk untouched
	if a[3] != 9 || p.chunks[0][:4][3] != 0 || b[0] != 4 || big[4] != 10 || len(p.chunks) != 3 || cap(big) != 5 {
		t.Fatalf("b %v big %v, %d chunks", b, big, len(p.chunks))
	}
	p.Reset()
	c := p.Keep([]int{11, 12, 13, 14})
	if &c[0] != &p.chunks[0][0] || len(p.chunks) != 3 {
		t.Fatalf("after Reset: a new chunk (%d chunks)", len(p.chunks))
	}
	d := p.Keep([]int{15, 16, 17, 18, 19}) // only the third chunk has room
	if &d[0] != &big[0] {
		t.Fatal("the big chunk was not reused")
	}
	// Add keeps one element where Keep would: the pool fills its chunks
	// in order, and the third is full, so in a fourth.
	if e := p.Add(20); *e != 20 || len(p.chunks) != 4 || e != &p.chunks[3][0] {
		t.Fatalf("Add: %d, %d chunks", *e, len(p.chunks))
	}
}

func TestTake(t *testing.T) {
	var c []int
	if Take(&c, 0, 2, 8) != nil {
		t.Error("Take of 0 not nil")
	}
	a := Take(&c, 1, 2, 8) // a first chunk of 2
	b := Take(&c, 1, 2, 8)
	d := Take(&c, 3, 2, 8) // then 4
	e := Take(&c, 9, 2, 8) // more than most: its own size
	a[0], b[0] = 1, 2
	if cap(a) != 1 || &a[0] == &b[0] || cap(d) != 3 || len(e) != 9 || cap(c) != 9 {
		t.Errorf("caps %d %d %d, chunk %d", cap(a), cap(d), cap(e), cap(c))
	}
	if b[0] != 2 {
		t.Errorf("a's element reached b's")
	}
	for _, tc := range []struct{ last, want int }{{0, 2}, {1, 2}, {2, 4}, {4, 8}, {8, 8}, {100, 8}} {
		if got := Size(tc.last, 2, 8); got != tc.want {
			t.Errorf("Size(%d, 2, 8) = %d, want %d", tc.last, got, tc.want)
		}
	}
}
