// Package slicesx holds what the standard slices package does not: a Grow
// that leaves the room it makes unwritten.
package slicesx

// Grow returns s with room for n more elements, like slices.Grow. Unlike
// it, it does not write the new room (slices.Grow appends zeros): memory
// fresh from the system then stays untouched until it is used, and its
// pages are mapped only then. For the big columns of a heap whose room is
// an estimate, that saves a page fault per 4 KiB of room never used, and
// mapping a page costs many times what clearing a mapped one does
// (BenchmarkPagesFresh and BenchmarkPagesMapped measure both).
func Grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	g := make([]T, len(s), len(s)+n)
	copy(g, s)
	return g
}
