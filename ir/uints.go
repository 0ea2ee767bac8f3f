package ir

import "math"

// Uints is a column of unsigned integers that stores each value in the
// narrowest width the column has needed so far: nothing while every value is
// zero, then one byte, four bytes or eight bytes per value. Heap snapshots are
// dominated by columns whose values are small (type tags, flags, V8 ids and
// sizes that fit in 32 bits), so this keeps a 10 M-node snapshot compact while
// still holding any 64-bit value a format can carry.
//
// The zero value is an empty column.
type Uints struct {
	n    int
	u8   []uint8
	u32  []uint32
	u64  []uint64
	hint int // capacity to allocate when storage is first needed
}

// Reserve asks for room for n more values, allocated when the column first
// needs storage (or now, if it has some), so that it is not regrown.
func (c *Uints) Reserve(n int) {
	if c.Width() == 0 {
		c.hint = c.n + n
		return
	}
	c.Grow(n)
}

// AppendAll appends every value of vs, widening once for the largest.
func (c *Uints) AppendAll(vs []uint64) { c.appendUpTo(vs, 0) }

// AppendAll32 appends every value of vs, widening once for the largest.
// An empty column whose values then need 4 bytes takes vs itself as its
// storage, without copying it: the caller must not change vs afterwards.
// Readers collect a column whose values fit in 32 bits this way, rather
// than in batches of AppendAll.
func (c *Uints) AppendAll32(vs []uint32) {
	m := uint64(maxOf(vs))
	if c.n == 0 && c.Width() == 0 && widthFor(m) == 4 {
		c.u32, c.n = vs, len(vs)
		return
	}
	c.widen(m)
	switch {
	case c.u64 != nil:
		c.u64 = roomFor(c.u64, len(vs))
		for _, v := range vs {
			c.u64 = append(c.u64, uint64(v))
		}
	case c.u32 != nil:
		c.u32 = append(roomFor(c.u32, len(vs)), vs...)
	case c.u8 != nil:
		c.u8 = roomFor(c.u8, len(vs))
		for _, v := range vs {
			c.u8 = append(c.u8, uint8(v))
		}
	}
	c.n += len(vs)
}

// appendUpTo is AppendAll for a column expected to end at expect values
// (0: unknown; see Column.Expect).
func (c *Uints) appendUpTo(vs []uint64, expect int) {
	c.widen(maxOf(vs))
	switch {
	case c.u64 != nil:
		c.u64 = append(roomUpTo(c.u64, len(vs), expect), vs...)
	case c.u32 != nil:
		c.u32 = roomUpTo(c.u32, len(vs), expect)
		for _, v := range vs {
			c.u32 = append(c.u32, uint32(v))
		}
	case c.u8 != nil:
		c.u8 = roomUpTo(c.u8, len(vs), expect)
		for _, v := range vs {
			c.u8 = append(c.u8, uint8(v))
		}
	}
	c.n += len(vs)
}

// roomFor returns s with room for n more elements. Unlike append, which grows
// big slices by a quarter at a time (allocating five times the final size on
// the way), it doubles, so that a column read without a declared count costs
// at most twice its size in allocations; Trim gives back the excess.
func roomFor[T any](s []T, n int) []T { return roomUpTo(s, n, 0) }

// roomUpTo is roomFor for a column expected to end at expect elements
// (0: unknown): it grows straight to that.
func roomUpTo[T any](s []T, n, expect int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	c := max(len(s)+n, 2*cap(s))
	if expect >= len(s)+n {
		c = expect
	}
	t := make([]T, len(s), c)
	copy(t, s)
	return t
}

// Trim releases the column's unused capacity when it is more than an eighth
// of the values: for columns grown without a declared count.
func (c *Uints) Trim() {
	switch {
	case c.u64 != nil:
		c.u64 = trim(c.u64)
	case c.u32 != nil:
		c.u32 = trim(c.u32)
	case c.u8 != nil:
		c.u8 = trim(c.u8)
	}
	c.hint = 0
}

func trim[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/8 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// Width reports the bytes per value currently used: 0, 1, 4 or 8.
func (c *Uints) Width() int {
	switch {
	case c.u64 != nil:
		return 8
	case c.u32 != nil:
		return 4
	case c.u8 != nil:
		return 1
	}
	return 0
}

// Len reports the number of values in the column.
func (c *Uints) Len() int { return c.n }

// At returns the i'th value.
func (c *Uints) At(i int) uint64 {
	switch {
	case c.u64 != nil:
		return c.u64[i]
	case c.u32 != nil:
		return uint64(c.u32[i])
	case c.u8 != nil:
		return uint64(c.u8[i])
	}
	if uint(i) >= uint(c.n) {
		panic("ir: Uints index out of range")
	}
	return 0
}

// Values copies values [from, from+len(dst)) into dst: a loop over a
// column in batches costs one width switch per batch, not one per value.
func (c *Uints) Values(dst []uint64, from int) {
	switch {
	case c.u64 != nil:
		copy(dst, c.u64[from:from+len(dst)])
	case c.u32 != nil:
		for i, v := range c.u32[from : from+len(dst)] {
			dst[i] = uint64(v)
		}
	case c.u8 != nil:
		for i, v := range c.u8[from : from+len(dst)] {
			dst[i] = uint64(v)
		}
	default:
		if from < 0 || from+len(dst) > c.n {
			panic("ir: Uints range out of bounds")
		}
		clear(dst)
	}
}

// AppendFirst appends the first n values of src. Columns of the same width
// are copied whole: a reader that decoded two halves of a file into two
// columns joins them so.
func (c *Uints) AppendFirst(src *Uints, n int) {
	if w := src.Width(); w > 0 && w == c.Width() {
		switch w {
		case 8:
			c.u64 = append(roomFor(c.u64, n), src.u64[:n]...)
		case 4:
			c.u32 = append(roomFor(c.u32, n), src.u32[:n]...)
		default:
			c.u8 = append(roomFor(c.u8, n), src.u8[:n]...)
		}
		c.n += n
		return
	}
	var buf [1024]uint64
	for from := 0; from < n; from += len(buf) {
		b := buf[:min(len(buf), n-from)]
		src.Values(b, from)
		c.AppendAll(b)
	}
}

// Grow makes room for n more values without reallocating, in the current width.
func (c *Uints) Grow(n int) {
	switch {
	case c.u64 != nil:
		c.u64 = growTo(c.u64, n)
	case c.u32 != nil:
		c.u32 = growTo(c.u32, n)
	case c.u8 != nil:
		c.u8 = growTo(c.u8, n)
	}
}

// growTo returns s with room for n more elements, made without writing it,
// so that fresh memory stays unmapped until used. It is the twin of
// internal/slicesx.Grow, which the readers use: the IR core imports no
// package of the module.
func growTo[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), len(s)+n)
	copy(t, s)
	return t
}

// Append adds v at the end of the column, widening the storage if v needs it.
func (c *Uints) Append(v uint64) {
	c.widen(v)
	switch {
	case c.u64 != nil:
		c.u64 = append(roomFor(c.u64, 1), v)
	case c.u32 != nil:
		c.u32 = append(roomFor(c.u32, 1), uint32(v))
	case c.u8 != nil:
		c.u8 = append(roomFor(c.u8, 1), uint8(v))
	}
	c.n++
}

// Set replaces the i'th value.
func (c *Uints) Set(i int, v uint64) {
	if uint(i) >= uint(c.n) {
		panic("ir: Uints index out of range")
	}
	c.widen(v)
	switch {
	case c.u64 != nil:
		c.u64[i] = v
	case c.u32 != nil:
		c.u32[i] = uint32(v)
	case c.u8 != nil:
		c.u8[i] = uint8(v)
	}
}

// widen converts the storage so that it can hold v.
func (c *Uints) widen(v uint64) {
	need := widthFor(v)
	if need <= c.Width() {
		return
	}
	c.setWidth(need, max(c.n+1, c.capacity()))
}

// capacity reports how many values the current storage holds without growing.
func (c *Uints) capacity() int {
	switch {
	case c.u64 != nil:
		return cap(c.u64)
	case c.u32 != nil:
		return cap(c.u32)
	case c.u8 != nil:
		return cap(c.u8)
	}
	return 0
}

// setWidth converts the column to width w (which must not be narrower than
// the current one), reserving capacity for at least capHint values.
func (c *Uints) setWidth(w, capHint int) {
	capHint = max(capHint, c.n, c.hint)
	switch w {
	case 1:
		c.u8 = make([]uint8, c.n, capHint) // from all-zero
	case 4:
		s := make([]uint32, c.n, capHint)
		for i, x := range c.u8 {
			s[i] = uint32(x)
		}
		c.u8, c.u32 = nil, s
	case 8:
		s := make([]uint64, c.n, capHint)
		switch {
		case c.u32 != nil:
			for i, x := range c.u32 {
				s[i] = uint64(x)
			}
		case c.u8 != nil:
			for i, x := range c.u8 {
				s[i] = uint64(x)
			}
		}
		c.u8, c.u32, c.u64 = nil, nil, s
	}
}

func widthFor(v uint64) int {
	switch {
	case v == 0:
		return 0
	case v <= math.MaxUint8:
		return 1
	case v <= math.MaxUint32:
		return 4
	}
	return 8
}

// AppendZeros adds n zero values.
func (c *Uints) AppendZeros(n int) {
	switch {
	case c.u64 != nil:
		c.u64 = append(c.u64, make([]uint64, n)...)
	case c.u32 != nil:
		c.u32 = append(c.u32, make([]uint32, n)...)
	case c.u8 != nil:
		c.u8 = append(c.u8, make([]uint8, n)...)
	}
	c.n += n
}

// Max returns the largest value in the column (0 when empty).
func (c *Uints) Max() uint64 {
	switch {
	case c.u64 != nil:
		return maxOf(c.u64)
	case c.u32 != nil:
		return uint64(maxOf(c.u32))
	case c.u8 != nil:
		return uint64(maxOf(c.u8))
	}
	return 0
}

// Sum returns the sum of the column's values, saturating at the uint64 maximum.
func (c *Uints) Sum() uint64 {
	var s uint64
	add := func(x uint64) {
		if s+x < s {
			s = math.MaxUint64
		} else {
			s += x
		}
	}
	switch {
	case c.u64 != nil:
		for _, x := range c.u64 {
			add(x)
		}
	case c.u32 != nil:
		for _, x := range c.u32 {
			add(uint64(x))
		}
	case c.u8 != nil:
		for _, x := range c.u8 {
			s += uint64(x)
		}
	}
	return s
}

// Equal reports whether two columns hold the same values (widths may differ).
func (c *Uints) Equal(d *Uints) bool {
	if c.n != d.n {
		return false
	}
	for i := 0; i < c.n; i++ {
		if c.At(i) != d.At(i) {
			return false
		}
	}
	return true
}

// FirstDiff returns the first index at which c and d differ, or -1.
func (c *Uints) FirstDiff(d *Uints) int {
	n := min(c.n, d.n)
	for i := 0; i < n; i++ {
		if c.At(i) != d.At(i) {
			return i
		}
	}
	if c.n != d.n {
		return n
	}
	return -1
}

// U32 returns the values as a []uint32 view when the column is stored at
// 4 bytes per value, for hot loops; ok is false otherwise.
func (c *Uints) U32() (s []uint32, ok bool) { return c.u32, c.u32 != nil }

// U8 returns the values as a []uint8 view when stored at 1 byte per value.
func (c *Uints) U8() (s []uint8, ok bool) { return c.u8, c.u8 != nil }

// U64 returns the values as a []uint64 view when stored at 8 bytes per value.
func (c *Uints) U64() (s []uint64, ok bool) { return c.u64, c.u64 != nil }

// Bytes reports the memory held by the column's storage.
func (c *Uints) Bytes() int { return cap(c.u8) + 4*cap(c.u32) + 8*cap(c.u64) }

// UintsOf builds a column from values (for tests and small tables).
func UintsOf(vs ...uint64) Uints {
	var c Uints
	for _, v := range vs {
		c.Append(v)
	}
	return c
}

// SatAdd returns a+b, or the uint64 maximum when the sum overflows: sizes
// summed over a heap saturate rather than wrap.
func SatAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}
