// Package idmap is a multimap from 64-bit keys to type ids, made for the
// indexes of a whole base chain (a vmlinux: ~95,000 types): one flat
// open-addressing table of 8-byte slots and one chain array, no allocation
// per entry, the ids of a key yielded in the order they were added.
//
// Keys are hashes of what the caller looks up (Key), and a slot keeps 32
// bits of the key's hash only: ids of different keys may come back
// together, so a caller verifies each id it gets against what it looked
// for. That is what makes the table small enough to stay in cache.
//
// It imports only the standard library.
package idmap

// Map maps keys to the ids added under them. Ids are at least first and
// never 0. A Map is safe for concurrent reads once no Add runs.
type Map struct {
	slots []slot
	// next chains the ids of a slot in a circle: next[id-first] is the id
	// added after id, and next[last-first] the first.
	next  []uint32
	first uint32
	n     int // slots in use
	shift uint
}

type slot struct {
	tag  uint32 // 32 bits of the key's hash; its top bits place the slot
	last uint32 // the id added last; 0 empty
}

// New returns a Map for about ids ids from first on, under about keys
// keys.
func New(first uint32, ids, keys int) *Map {
	m := &Map{first: max(first, 1), next: make([]uint32, ids)}
	bits := uint(4)
	for 1<<bits < 2*keys {
		bits++
	}
	m.slots = make([]slot, 1<<bits)
	m.shift = 32 - bits
	return m
}

// Key hashes the words of a compound key into one key.
func Key(words ...uint64) uint64 {
	h := uint64(len(words)) * 0x9e3779b97f4a7c15
	for _, w := range words {
		h = (h ^ w) * 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

func mix(key uint64) uint64 {
	// splitmix64's finalizer: packed keys differ in few bits.
	x := key
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func tagOf(key uint64) uint32 { return uint32(mix(key) >> 32) }

// find returns the slot of tag, or the empty slot where it goes.
func (m *Map) find(tag uint32) *slot {
	mask := uint32(len(m.slots) - 1)
	for i := tag >> m.shift; ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.last == 0 || s.tag == tag {
			return s
		}
	}
}

// Add appends id to the ids of key. An id is in one list only (its place
// in the chain array is its own): adding it twice, under any key, or below
// first, panics.
func (m *Map) Add(key uint64, id uint32) {
	if id < m.first {
		panic("idmap: id below the first")
	}
	i := int(id - m.first)
	if i >= len(m.next) {
		m.next = append(m.next, make([]uint32, i+1-len(m.next))...)
	}
	if m.next[i] != 0 {
		panic("idmap: id added twice")
	}
	if 2*(m.n+1) > len(m.slots) {
		m.grow()
	}
	tag := tagOf(key)
	s := m.find(tag)
	if s.last == 0 {
		*s = slot{tag: tag, last: id}
		m.next[i] = id
		m.n++
		return
	}
	l := s.last - m.first
	m.next[i] = m.next[l]
	m.next[l] = id
	s.last = id
}

func (m *Map) grow() {
	old := m.slots
	m.slots = make([]slot, 2*len(old))
	m.shift--
	for _, s := range old {
		if s.last != 0 {
			*m.find(s.tag) = s
		}
	}
}

// Each calls f with the ids of key (and of keys whose hash shares the
// slot) in the order they were added, until f returns false.
func (m *Map) Each(key uint64, f func(id uint32) bool) {
	s := m.find(tagOf(key))
	if s.last == 0 {
		return
	}
	for id := m.next[s.last-m.first]; ; id = m.next[id-m.first] {
		if !f(id) || id == s.last {
			return
		}
	}
}
