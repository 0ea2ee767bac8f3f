package ir

import "slices"

// Interner builds a string table in which each distinct string has one
// index. Converters use it to build their output's table from a source
// file's: InternSrc remembers each source index it has seen, because most
// nodes share their names and a map lookup per node would dominate big
// conversions.
type Interner struct {
	// Strings is the table built so far.
	Strings []string
	// Transform, if set, is applied to every string before it is interned
	// (a writer's length cap, say).
	Transform func(string) string

	index map[string]uint32
	slab  Slab // short strings InternBytes adds
	src   *File
	bySrc []uint32 // 1 + output index per source index; 0 = not yet
}

// NewInterner returns an empty Interner whose InternSrc reads src's strings
// (src may be nil for an Interner that only interns).
func NewInterner(src *File) *Interner {
	return &Interner{index: map[string]uint32{}, src: src}
}

// Intern returns the index of s, adding it when new.
func (t *Interner) Intern(s string) uint32 {
	if t.Transform != nil {
		s = t.Transform(s)
	}
	if i, ok := t.index[s]; ok {
		return i
	}
	return t.add(s)
}

// InternBytes is Intern of b's bytes: looking up a string already in the
// table allocates nothing, which matters to readers interning a string per
// object.
func (t *Interner) InternBytes(b []byte) uint32 {
	if t.Transform != nil {
		return t.Intern(string(b))
	}
	if i, ok := t.index[string(b)]; ok {
		return i
	}
	return t.add(t.slab.Copy(b))
}

// add appends s, which is not in the table yet, and returns its index.
func (t *Interner) add(s string) uint32 {
	i := uint32(len(t.Strings))
	t.Strings = append(t.Strings, s)
	t.index[s] = i
	return i
}

// Reserve makes room in the index for n strings in all, so that a table
// known to grow big is not rehashed again and again.
func (t *Interner) Reserve(n int) {
	if n <= 2*len(t.index) {
		return
	}
	t.Strings = slices.Grow(t.Strings, n-len(t.Strings))
	m := make(map[string]uint32, n)
	for k, v := range t.index {
		m[k] = v
	}
	t.index = m
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
