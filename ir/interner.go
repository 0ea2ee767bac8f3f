package ir

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"
)

// Interner builds a string table in which each distinct string has one
// index. Converters use it to build their output's table from a source
// file's: InternSrc remembers each source index it has seen, because most
// nodes share their names and a map lookup per node would dominate big
// conversions.
type Interner struct {
	// Strings is the table built so far.
	Strings []string

	index stringIndex
	slab  Slab // short strings InternBytes adds
	src   *File
	bySrc []uint32 // 1 + output index per source index; 0 = not yet
}

// NewInterner returns an empty Interner whose InternSrc reads src's strings
// (src may be nil for an Interner that only interns).
func NewInterner(src *File) *Interner {
	return &Interner{src: src}
}

// Intern returns the index of s, adding it when new.
func (t *Interner) Intern(s string) uint32 {
	h := t.index.hashString(s)
	slot, i, ok := find(&t.index, t.Strings, s, h)
	if ok {
		return i
	}
	return t.add(s, h, slot)
}

// InternBytes is Intern of b's bytes: looking up a string already in the
// table allocates nothing, which matters to readers interning a string per
// object.
func (t *Interner) InternBytes(b []byte) uint32 {
	return t.InternHashed(b, t.index.hashBytes(b))
}

// Lookahead returns b's hash for InternHashed, and starts loading the
// part of the index where InternHashed will look for b, so that a reader
// with other work to do before it interns b need not wait for that
// memory then. It does not keep b.
func (t *Interner) Lookahead(b []byte) uint64 {
	h := t.index.hashBytes(b)
	prefetch(unsafe.Pointer(&t.index.slots[int(h)&(len(t.index.slots)-1)]))
	return h
}

// InternHashed is InternBytes of b, whose hash Lookahead returned.
func (t *Interner) InternHashed(b []byte, h uint64) uint32 {
	slot, i, ok := find(&t.index, t.Strings, b, h)
	if ok {
		return i
	}
	return t.add(t.slab.Copy(b), h, slot)
}

// add appends s, which is not in the table yet, and returns its index; h
// is its hash and slot the empty slot the search for it ended at.
func (t *Interner) add(s string, h uint64, slot int) uint32 {
	i := uint32(len(t.Strings))
	t.Strings = append(t.Strings, s)
	t.index.insert(t.Strings, slot, h, i)
	return i
}

// Reserve makes room in the index for n strings in all, so that a table
// known to grow big is not rehashed again and again.
func (t *Interner) Reserve(n int) {
	if n <= len(t.Strings) {
		return
	}
	t.Strings = slices.Grow(t.Strings, n-len(t.Strings))
	t.index.resize(t.Strings, n)
}

// InternSrc is Intern of the source's string i.
func (t *Interner) InternSrc(i uint32) uint32 {
	if t.src == nil {
		panic("ir: InternSrc on an Interner without a source")
	}
	if int(i) >= len(t.src.Strings) {
		return t.Intern(t.src.String(i))
	}
	if t.bySrc == nil {
		t.bySrc = make([]uint32, len(t.src.Strings))
	}
	if v := t.bySrc[i]; v != 0 {
		return v - 1
	}
	v := t.Intern(t.src.Strings[i])
	t.bySrc[i] = v + 1
	return v
}

// stringIndex finds strings in a table: an open-addressing hash table
// whose slots hold the top 32 bits of a string's hash beside 1 + its index
// in the table (0: an empty slot). A lookup that misses the cache, as an
// interner's lookups while a reader writes its columns mostly do, waits
// for one slot of 8 bytes before it compares strings; a map waits for a
// group of string headers.
type stringIndex struct {
	slots []uint64
	used  int
	seed  maphash.Seed
}

func (x *stringIndex) hashString(s string) uint64 {
	x.init()
	return maphash.String(x.seed, s)
}

func (x *stringIndex) hashBytes(b []byte) uint64 {
	x.init()
	return maphash.Bytes(x.seed, b)
}

// init makes the first slots and the seed.
func (x *stringIndex) init() {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
		x.slots = make([]uint64, 16)
	}
}

// find returns the index in strs of key, of hash h, or false and the
// empty slot where it would go.
func find[K string | []byte](x *stringIndex, strs []string, key K, h uint64) (int, uint32, bool) {
	mask := len(x.slots) - 1
	tag := h >> 32
	for k := int(h) & mask; ; k = (k + 1) & mask {
		e := x.slots[k]
		if e == 0 {
			return k, 0, false
		}
		if e>>32 == tag && strs[uint32(e)-1] == string(key) {
			return k, uint32(e) - 1, true
		}
	}
}

// insert puts index i, of hash h, in the empty slot, and grows the table
// before it is three quarters full; strs is the table, i included.
func (x *stringIndex) insert(strs []string, slot int, h uint64, i uint32) {
	x.slots[slot] = h>>32<<32 | (uint64(i) + 1)
	x.used++
	if 4*x.used >= 3*len(x.slots) {
		x.resize(strs, 2*x.used)
	}
}

// resize makes room for n strings in all, keeping the indices it holds
// (of strings in strs, the table).
func (x *stringIndex) resize(strs []string, n int) {
	x.init()
	size := 1 << bits.Len(uint(max(n, 8)*4/3))
	if size <= len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]uint64, size)
	mask := size - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		// The slot keeps only the hash's top half: the position needs
		// the rest, so the string is hashed again.
		k := int(maphash.String(x.seed, strs[uint32(e)-1])) & mask
		for x.slots[k] != 0 {
			k = (k + 1) & mask
		}
		x.slots[k] = e
	}
}
