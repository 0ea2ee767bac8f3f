package fuchsia

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// tagMask clears the aarch64 top-byte tag (TBI, HWASan, MTE), as the
// collector does before reading a block.
const tagMask = ^(uint64(0xFF) << 56)

// blockIndex finds the block containing an address: blocks sorted by
// start, with a bucket table over the address range narrowing the binary
// search to a few entries.
type blockIndex struct {
	start, end []uint64
	node       []uint32
	lo, hi     uint64   // the range the blocks cover
	shift      uint     // bucket = (addr - lo) >> shift
	bucket     []uint32 // first block whose end lies beyond the bucket's start
}

func newBlockIndex(s *ir.Snapshot) *blockIndex {
	fx := fuchsiair.Of(s)
	n := s.Nodes.Len()
	type blk struct {
		start, end uint64
		node       uint32
	}
	bs := make([]blk, 0, n)
	for i := 0; i < n; i++ {
		if fx.Flags[i]&fuchsiair.FlagAddress == 0 {
			continue
		}
		a := s.Nodes.ID.At(i) & tagMask
		size := max(s.Nodes.SelfSize.At(i), 1) // a 0-byte block still has its address
		end := a + size
		if end < a {
			end = math.MaxUint64
		}
		bs = append(bs, blk{a, end, uint32(i)})
	}
	slices.SortFunc(bs, func(x, y blk) int {
		if x.start != y.start {
			if x.start < y.start {
				return -1
			}
			return 1
		}
		return int(x.node) - int(y.node)
	})
	ix := &blockIndex{start: make([]uint64, len(bs)), end: make([]uint64, len(bs)), node: make([]uint32, len(bs))}
	for i, b := range bs {
		ix.start[i], ix.end[i], ix.node[i] = b.start, b.end, b.node
	}
	if len(bs) == 0 {
		return ix
	}
	ix.lo = bs[0].start
	for _, b := range bs {
		ix.hi = max(ix.hi, b.end)
	}
	// About one bucket per block.
	span := ix.hi - ix.lo
	ix.shift = 0
	for span>>ix.shift > uint64(len(bs)) {
		ix.shift++
	}
	nb := int(span>>ix.shift) + 1
	ix.bucket = make([]uint32, nb+1)
	j := 0
	for b := 0; b <= nb; b++ {
		at := uint64(math.MaxUint64)
		if off := uint64(b) << ix.shift; off>>ix.shift == uint64(b) && off <= math.MaxUint64-ix.lo {
			at = ix.lo + off
		}
		// The last block starting at or before the bucket's start.
		for j+1 < len(bs) && ix.start[j+1] <= at {
			j++
		}
		ix.bucket[b] = uint32(j)
	}
	return ix
}

// find returns the position of the block containing v, or -1.
func (ix *blockIndex) find(v uint64) int {
	if v < ix.lo || v >= ix.hi {
		return -1
	}
	b := (v - ix.lo) >> ix.shift
	lo, hi := int(ix.bucket[b]), int(ix.bucket[b+1])+1
	hi = min(hi, len(ix.start))
	// The last block starting at or before v, in [lo, hi).
	for hi-lo > 8 {
		m := int(uint(lo+hi) >> 1)
		if ix.start[m] <= v {
			lo = m
		} else {
			hi = m
		}
	}
	k := -1
	for j := lo; j < hi && ix.start[j] <= v; j++ {
		k = j
	}
	if k < 0 || v >= ix.end[k] {
		return -1
	}
	return k
}

// scan derives edges from the snapshot's block contents (see
// ir/fuchsia/section.go).
func scan(f *ir.File, s *ir.Snapshot) error {
	fx := fuchsiair.Of(s)
	ix := newBlockIndex(s)
	n := s.Nodes.Len()
	var names []uint32 // word index -> 1 + string index of "+0x<offset>"
	name := func(off int) uint32 {
		w := off / 8
		if w >= len(names) {
			names = append(names, make([]uint32, w+1-len(names))...)
		}
		if names[w] == 0 {
			names[w] = internFile(f, "+0x"+strconv.FormatUint(uint64(off), 16)) + 1
		}
		return names[w] - 1
	}
	ed := &s.Edges
	first := s.Nodes.FirstEdge
	for i := 0; i < n; i++ {
		first[i] = uint32(ed.Len())
		b, ok := fx.ContentsOf(i)
		if !ok {
			continue
		}
		for off := 0; off+8 <= len(b); off += 8 {
			v := binary.LittleEndian.Uint64(b[off:]) & tagMask
			if v < ix.lo || v >= ix.hi {
				continue
			}
			k := ix.find(v)
			if k < 0 || ix.node[k] == uint32(i) {
				continue
			}
			kind := uint8(fuchsiair.Pointer)
			if v != ix.start[k] {
				kind = fuchsiair.Interior
			}
			ed.Kind = append(ed.Kind, kind)
			ed.Name = append(ed.Name, name(off))
			ed.Target = append(ed.Target, ix.node[k])
		}
		if ed.Len() > math.MaxUint32 {
			return fmt.Errorf("fuchsia: more than 2^32 derived edges")
		}
	}
	first[n] = uint32(ed.Len())
	fx.DerivedEdges = true
	return nil
}

// internFile adds a string to the file's table (scan caches the index of
// every edge name it makes).
func internFile(f *ir.File, s string) uint32 {
	f.Strings = append(f.Strings, s)
	return uint32(len(f.Strings) - 1)
}

// deriveEdges scans the blocks' contents for pointers (when asked and a
// snapshot has contents) and sets every snapshot's roots; it returns the
// number of edges derived.
func deriveEdges(f *ir.File, scanPointers bool) (int, error) {
	edges := 0
	for _, s := range f.Snapshots {
		if scanPointers && len(fuchsiair.Of(s).ContentsStart) > 0 {
			if err := scan(f, s); err != nil {
				return 0, err
			}
			edges += s.Edges.Len()
		}
		setRoots(s)
	}
	return edges, nil
}

// setRoots makes every node no other node points to a root, with its
// allocation site (its name) as the category: without edges, every node.
func setRoots(s *ir.Snapshot) {
	n := s.Nodes.Len()
	pointed := make([]bool, n)
	for i := 0; i < n; i++ {
		lo, hi := s.Nodes.EdgeRange(i)
		for _, t := range s.Edges.Target[lo:hi] {
			if int(t) != i {
				pointed[t] = true
			}
		}
	}
	s.Roots = s.Roots[:0]
	for i := 0; i < n; i++ {
		if !pointed[i] {
			s.Roots = append(s.Roots, ir.RootRef{Node: uint32(i), Category: s.Nodes.Name[i]})
		}
	}
}
