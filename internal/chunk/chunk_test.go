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
