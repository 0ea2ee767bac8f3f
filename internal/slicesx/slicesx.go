// Package slicesx holds what the standard slices package does not: slices
// made and grown without writing their room.
//
// Go's make and slices.Grow clear every element. For the big columns a
// reader fills that is work twice over: memory a collection freed is
// cleared at a memory's bandwidth before it is written again, and memory
// fresh from the system, which is clear already, has its pages mapped by
// the zeros slices.Grow appends to room an estimate made and nothing may
// use. MakeUncleared and Grow leave the room as it was.
package slicesx

// Number is the element types whose slices MakeUncleared and Grow make:
// numbers hold no pointers, so memory left as it was is safe to hand out
// (the collector never follows what they hold).
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64
}

// Poison, when not zero, is written to every byte of the slices
// MakeUncleared returns (and so of Grow's new room), so that a test
// reading an element before it is written sees it. Only tests set it
// (slicestest.Main), before any slice is made.
var Poison byte

// MakeUncleared is make([]T, length, capacity) without clearing the
// elements: they hold whatever the memory held, possibly what an earlier
// slice left there, and the caller writes each before it is read. Small
// slices, where clearing costs nothing worth saving, and lengths make
// refuses are left to make. Built with the tag purego it is make.
func MakeUncleared[T Number](length, capacity int) []T {
	s := makeUncleared[T](length, capacity)
	if Poison != 0 {
		fill(s[:cap(s)], Poison)
	}
	return s
}

// Grow returns s with room for n more elements, like slices.Grow. Unlike
// it, it does not write the new room (slices.Grow appends zeros), nor
// clear it when the memory is not fresh. Memory fresh from the system then
// stays untouched until it is used, and its pages are mapped only then:
// for the big columns of a heap whose room is an estimate, that saves a
// page fault per 4 KiB of room never used, and mapping a page costs many
// times what clearing a mapped one does (BenchmarkPagesFresh and
// BenchmarkPagesMapped measure both).
func Grow[T Number](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	g := MakeUncleared[T](len(s), len(s)+n)
	copy(g, s)
	return g
}
