package moarvm

import (
	"math"
)

// The reference kinds: the low two bits of a refdescr entry. Kinds 0–2
// are the IR's edge kinds of the same numbers (UnknownRef,
// IndexRef, StringRef).
const (
	RefUnknown = 0 // described by nothing
	RefIndex   = 1 // described by an index
	RefString  = 2 // described by a string of the heap
	RefUnused  = 3 // never written by MoarVM
)

// MaxRefIndex is the largest index a refdescr entry can hold beside its
// kind.
const MaxRefIndex = math.MaxUint64 >> 2

// PackRef returns the refdescr entry of a reference of that kind and index
// (at most MaxRefIndex).
func PackRef(index uint64, kind uint8) uint64 { return index<<2 | uint64(kind&3) }

// UnpackRef splits a refdescr entry into its index and kind.
func UnpackRef(d uint64) (index uint64, kind uint8) { return d >> 2, uint8(d & 3) }

// EdgeKind returns the IR edge kind (an index into EdgeKinds) of
// a reference of kind k whose index is index, in a file of strings
// strings: a string index beyond the heap (MoarVM's u16 wrap-around) and
// the unused kind 3 have kinds of their own, so that their raw index is
// kept and written back.
func EdgeKind(k uint8, index, strings uint64) uint8 {
	switch {
	case k == RefString && index >= strings:
		return BadString
	case k == RefUnused:
		return Kind3
	}
	return k
}

// RefKind returns the reference kind an IR edge kind (an index into
// EdgeKinds) is written as, and false for kinds MoarVM has none
// for: EdgeKind's inverse.
func RefKind(edgeKind uint8) (uint8, bool) {
	switch edgeKind {
	case UnknownRef, IndexRef, StringRef:
		return edgeKind, true
	case BadString:
		return RefString, true
	case Kind3:
		return RefUnused, true
	}
	return 0, false
}

// SizeContinued in colsize marks a collectable whose self size does not
// fit colsize's 16 bits: heapconv writes 65535 and the rest in colusize,
// and reads the two back as one self size (with no unmanaged size). No
// MoarVM object has this size (theirs are multiples of 8), so the mark
// cannot be taken for one.
const SizeContinued = 1<<16 - 1

// SplitSize returns the colsize and colusize heapconv writes for a
// collectable's self and unmanaged sizes: the self size in colsize when it
// fits, else SizeContinued and the rest added to colusize, the sum capped
// at 2^64-1 (JoinSize undoes it).
func SplitSize(self, unmanaged uint64) (colsize, colusize uint64) {
	if self <= SizeContinued {
		return self, unmanaged
	}
	sum := self + unmanaged
	if sum < self {
		sum = math.MaxUint64
	}
	return SizeContinued, sum - SizeContinued
}

// JoinSize returns the self and unmanaged sizes of a collectable's colsize
// and colusize: SplitSize's inverse. A colusize too big to join is left as
// it is: SplitSize caps a continued sum below that, so such a collectable
// is one of exactly 65535 bytes with that much unmanaged memory; and
// colsize 65535 with no unmanaged size is just that size.
func JoinSize(colsize, colusize uint64) (self, unmanaged uint64) {
	if colsize == SizeContinued && colusize > 0 && colusize <= math.MaxUint64-SizeContinued {
		return SizeContinued + colusize, 0
	}
	return colsize, colusize
}
