package btf

// strTable finds a string of one Spec's own string section by its
// contents: an open-addressing table of offsets into the section, hashed
// with hash/maphash, compared in place. A vmlinux has ~100,000 strings in
// 2 MB; a map[string]uint32 of them costs a copy of the section and 16
// bytes of string header per entry, this costs 4 bytes per slot.

import (
	"bytes"
	"hash/maphash"
)

type strTable struct {
	seed  maphash.Seed
	slots []uint32 // 1 + offset relative to the section; 0 empty
	n     int
}

func newStrTable(hint int) strTable {
	bits := 4
	for 1<<bits < 2*hint {
		bits++
	}
	return strTable{seed: maphash.MakeSeed(), slots: make([]uint32, 1<<bits)}
}

// find returns the relative offset of the string that eq accepts among
// those of hash h, or the slot where it would go.
func (t *strTable) find(h uint64, eq func(rel uint32) bool) (rel uint32, slot int, ok bool) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		v := t.slots[i]
		if v == 0 {
			return 0, i, false
		}
		if eq(v - 1) {
			return v - 1, i, true
		}
	}
}

// lookup returns the relative offset of str in sec.
func (t *strTable) lookup(sec []byte, str string) (uint32, bool) {
	rel, _, ok := t.find(maphash.String(t.seed, str), func(rel uint32) bool {
		end := uint64(rel) + uint64(len(str))
		return end < uint64(len(sec)) && sec[end] == 0 && string(sec[rel:end]) == str
	})
	return rel, ok
}

// insert adds the string b at rel of sec unless an equal one is there; it
// returns the offset of the first copy.
func (t *strTable) insert(sec []byte, rel uint32, b []byte) (first uint32, dup bool) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow(sec)
	}
	r, slot, ok := t.find(maphash.Bytes(t.seed, b), func(o uint32) bool {
		end := uint64(o) + uint64(len(b))
		return end < uint64(len(sec)) && sec[end] == 0 && bytes.Equal(sec[o:end], b)
	})
	if ok {
		return r, true
	}
	t.slots[slot] = rel + 1
	t.n++
	return rel, false
}

func (t *strTable) grow(sec []byte) {
	old := t.slots
	t.slots = make([]uint32, 2*len(old))
	mask := len(t.slots) - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		b := sec[v-1:]
		b = b[:bytes.IndexByte(b, 0)]
		i := int(maphash.Bytes(t.seed, b)) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = v
	}
}
