package ir

import "unsafe"

// Slab stores short strings side by side in shared blocks. A heap has tens
// of millions of names; as separate allocations each would be rounded up
// to its size class and be an object for the collector. Bytes of a block
// are never written again once a string lies on them, so the strings can
// point into it. The zero value is an empty slab.
type Slab struct{ block []byte }

// SlabMax is the longest string a Slab stores; slabBlock is a block's
// size.
const (
	SlabMax   = 1 << 10
	slabBlock = 256 << 10
)

// Room returns n bytes (1 ≤ n ≤ SlabMax) for a string to be written into;
// SlabString then makes it a string.
func (s *Slab) Room(n int) []byte {
	if cap(s.block)-len(s.block) < n {
		s.block = make([]byte, 0, slabBlock)
	}
	start := len(s.block)
	s.block = s.block[:start+n]
	return s.block[start : start+n : start+n]
}

// Copy returns b as a string: in the slab when it is short, else as an
// allocation of its own.
func (s *Slab) Copy(b []byte) string {
	if len(b) == 0 || len(b) > SlabMax {
		return string(b)
	}
	room := s.Room(len(b))
	copy(room, b)
	return SlabString(room)
}

// SlabString returns the bytes Room gave, once written, as a string
// without copying them.
func SlabString(room []byte) string { return unsafe.String(&room[0], len(room)) }
