package moarvm

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// snapCols builds the column blocks of one snapshot.
type snapCols struct {
	w  *writer
	s  *ir.Snapshot
	ms *moarvmir.Snapshot
	// identity is true when every collectable's references start at its
	// first edge (RefStart equals FirstEdge where there are references).
	identity bool
	snapMeta string
	topIDs   []uint64
	topScore []uint64
	// continued is true when a self size does not fit colsize's 16 bits:
	// sizes are then split as moarvmir.SplitSize says, the rest in colusize.
	continued bool
}

// prepareSnapshot checks snapshot k's columns and reference ranges and
// settles its snapmeta and highscores.
func (w *writer) prepareSnapshot(k int, s *ir.Snapshot) (*snapCols, error) {
	ms := moarvmir.Of(s)
	nd := &s.Nodes
	n, r := nd.Len(), s.Edges.Len()
	switch {
	case len(nd.FirstEdge) != n+1 || int(nd.FirstEdge[n]) != r:
		return nil, fmt.Errorf("moarvm: snapshot %d: edge offsets do not cover the %d references", k, r)
	case nd.SelfSize.Len() != n || (nd.ExternalSize.Len() != 0 && nd.ExternalSize.Len() != n):
		return nil, fmt.Errorf("moarvm: snapshot %d: %d self sizes and %d unmanaged sizes for %d collectables", k, nd.SelfSize.Len(), nd.ExternalSize.Len(), n)
	case ms.TOFI.Len() != n || ms.RefStart.Len() != n:
		return nil, fmt.Errorf("moarvm: snapshot %d: %d TOFIs and %d reference starts for %d collectables", k, ms.TOFI.Len(), ms.RefStart.Len(), n)
	case len(s.Edges.Name) != r || len(s.Edges.Target) != r:
		return nil, fmt.Errorf("moarvm: snapshot %d: edge columns disagree on the reference count", k)
	}
	sc := &snapCols{w: w, s: s, ms: ms}
	if err := sc.checkRanges(); err != nil {
		return nil, fmt.Errorf("moarvm: snapshot %d: %w", k, err)
	}
	if nd.SelfSize.Max() >= moarvmir.SizeContinued {
		// What the reader joins again differs where the unmanaged size is
		// not 0: a size of exactly 65535 with unmanaged memory reads back
		// as the mark's, one self size, and a continued sum may be capped.
		sc.continued = nd.SelfSize.Max() > moarvmir.SizeContinued
		merged, capped := 0, 0
		for i := range n {
			x, u := nd.SelfSize.At(i), uint64(0)
			if nd.ExternalSize.Len() > 0 {
				u = nd.ExternalSize.At(i)
			}
			if self, ext := moarvmir.JoinSize(moarvmir.SplitSize(x, u)); self != x || ext != u {
				if u > math.MaxUint64-x {
					capped++
				} else {
					merged++
				}
			}
		}
		if merged > 0 {
			w.loss.Add(ir.LossExternalSizes, int64(merged), "collectables of 65535 bytes or more that have unmanaged memory read back with it in their self size: colsize 65535 marks a self size continued in colusize")
		}
		if capped > 0 {
			w.loss.Add(ir.LossSizesCapped, int64(capped), "collectables' self and unmanaged sizes together exceed 2^64-1: their sum, read back as the self size, is capped")
		}
	}
	if ms.HasMeta {
		sc.snapMeta = moarvmir.SnapMetaJSON(ms, s.Totals)
	} else {
		// Version 2 snapshots have no snapmeta: write what MoarVM would.
		sc.snapMeta = moarvmir.SnapMetaJSON(&moarvmir.Snapshot{GCSeqNum: uint64(k) + 1}, Totals(s))
	}
	if ms.TopIDs != nil || ms.TopScores != nil {
		if len(ms.TopIDs) != len(ms.TopScores) {
			return nil, fmt.Errorf("moarvm: snapshot %d: %d top IDs for %d top scores", k, len(ms.TopIDs), len(ms.TopScores))
		}
		sc.topIDs, sc.topScore = ms.TopIDs, ms.TopScores
	} else {
		if w.meta.EntryCount > moarvmir.MaxHighscores || uint64(len(w.meta.DataOrder))*w.meta.EntryCount > moarvmir.MaxHighscores {
			return nil, fmt.Errorf("moarvm: snapshot %d: highscore boards of %d × %d entries are too big to compute (at most %d)", k, len(w.meta.DataOrder), w.meta.EntryCount, moarvmir.MaxHighscores)
		}
		var unknown []string
		sc.topIDs, sc.topScore, unknown = Leaderboards(s, int(w.meta.EntryCount), w.meta.DataOrder)
		if !ms.HasMeta {
			w.loss.Add(moarvmir.LossHighscores, int64(len(sc.topIDs)), "version 2 snapshots have no highscore boards: those written are computed from the graph, as MoarVM computes them, and reading the file back finds them")
		}
		for _, b := range unknown {
			w.loss.Add(moarvmir.LossHighscores, int64(w.meta.EntryCount), "entries of highscore boards MoarVM does not compute are written as zeros").
				WithExample(fmt.Sprintf("snapshot %d: board %q", k, b))
		}
	}
	return sc, nil
}

// checkRanges checks that the reference ranges [RefStart[i], +count) tile
// the reference table.
func (sc *snapCols) checkRanges() error {
	nd, rs := &sc.s.Nodes, &sc.ms.RefStart
	n, r := nd.Len(), uint64(sc.s.Edges.Len())
	sc.identity = true
	for i := 0; i < n; i++ {
		lo, hi := nd.FirstEdge[i], nd.FirstEdge[i+1]
		if lo != hi && rs.At(i) != uint64(lo) {
			sc.identity = false
			break
		}
	}
	if sc.identity {
		return nil
	}
	used := make([]uint64, (r+63)/64)
	for i := 0; i < n; i++ {
		lo, hi := nd.FirstEdge[i], nd.FirstEdge[i+1]
		if lo == hi {
			continue
		}
		st, cnt := rs.At(i), uint64(hi-lo)
		if st > r || cnt > r-st {
			return fmt.Errorf("collectable %d: references [%d, %d+%d) beyond the %d references", i, st, st, cnt, r)
		}
		if !moarvmir.MarkRange(used, st, st+cnt) {
			return fmt.Errorf("collectable %d: references [%d, %d+%d) overlap another collectable's", i, st, st, cnt)
		}
	}
	return nil
}

// builder returns the function that encodes the named column.
func (sc *snapCols) builder(name string) func() ([]byte, error) {
	nd, ms := &sc.s.Nodes, sc.ms
	n := nd.Len()
	switch name {
	case moarvmir.ColKind:
		return func() ([]byte, error) {
			b := make([]byte, 2*n)
			for i, k := range nd.Kind[:n] {
				binary.LittleEndian.PutUint16(b[2*i:], uint16(k))
			}
			return b, nil
		}
	case moarvmir.ColSize:
		return func() ([]byte, error) {
			if !sc.continued {
				b, _ := uintsColumn(&nd.SelfSize, n, 2, math.MaxUint16)
				return b, nil
			}
			b := make([]byte, 2*n)
			for i := range n {
				colsize, _ := moarvmir.SplitSize(nd.SelfSize.At(i), 0)
				binary.LittleEndian.PutUint16(b[2*i:], uint16(colsize))
			}
			return b, nil
		}
	case moarvmir.ColTOFI:
		return func() ([]byte, error) {
			b, bad := uintsColumn(&ms.TOFI, n, 4, math.MaxUint32)
			if bad >= 0 {
				return nil, fmt.Errorf("collectable %d: type or frame index %d does not fit coltofi's 32 bits", bad, ms.TOFI.At(bad))
			}
			return b, nil
		}
	case moarvmir.ColRefCount:
		return func() ([]byte, error) {
			b := make([]byte, 4*n)
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint32(b[4*i:], nd.FirstEdge[i+1]-nd.FirstEdge[i])
			}
			return b, nil
		}
	case moarvmir.ColRefStart:
		return func() ([]byte, error) {
			b, _ := uintsColumn(&ms.RefStart, n, 8, math.MaxUint64)
			return b, nil
		}
	case moarvmir.ColUnmanaged:
		return func() ([]byte, error) {
			if !sc.continued {
				b, _ := uintsColumn(&nd.ExternalSize, n, 8, math.MaxUint64)
				return b, nil
			}
			b := make([]byte, 8*n)
			for i := range n {
				var u uint64
				if nd.ExternalSize.Len() > 0 {
					u = nd.ExternalSize.At(i)
				}
				_, colusize := moarvmir.SplitSize(nd.SelfSize.At(i), u)
				binary.LittleEndian.PutUint64(b[8*i:], colusize)
			}
			return b, nil
		}
	case moarvmir.RefDescr:
		return sc.refDescr
	case moarvmir.RefTarget:
		return sc.refTarget
	case moarvmir.TopIDs:
		return func() ([]byte, error) { return u64Column(sc.topIDs), nil }
	case moarvmir.TopScore:
		return func() ([]byte, error) { return u64Column(sc.topScore), nil }
	}
	return func() ([]byte, error) { return nil, fmt.Errorf("internal error: no column %q", name) }
}

// refDescr encodes refdescr (moarvmir.PackRef) at each edge's place.
func (sc *snapCols) refDescr() ([]byte, error) {
	s := sc.s
	ed := &s.Edges
	heap := uint64(sc.w.m.StringCount)
	// tags maps an IR edge kind to its refdescr kind; 255 = not writable.
	var tags [256]uint8
	for k := range tags {
		tags[k] = 255
	}
	for k := range min(len(s.EdgeKinds), len(moarvmir.EdgeKinds)) {
		if tag, ok := moarvmir.RefKind(uint8(k)); ok {
			tags[k] = tag
		}
	}
	b := make([]byte, 8*ed.Len())
	var fail error
	sc.forRanges(func(lo, hi int, st uint64) bool {
		dst := b[8*st : 8*(st+uint64(hi-lo))]
		kinds, idxs := ed.Kind[lo:hi], ed.Name[lo:hi]
		for j, k := range kinds {
			idx, tag := uint64(idxs[j]), tags[k]
			if tag == 255 || (k == moarvmir.StringRef && idx >= heap) {
				if tag == 255 {
					fail = fmt.Errorf("edge %d: edge kind %d is not a MoarVM reference kind", lo+j, k)
				} else {
					fail = fmt.Errorf("edge %d: description string %d is beyond the string heap (%d strings)", lo+j, idx, heap)
				}
				return false
			}
			binary.LittleEndian.PutUint64(dst[8*j:], moarvmir.PackRef(idx, tag))
		}
		return true
	})
	return b, fail
}

// refTarget encodes reftrget: each edge's target at its place.
func (sc *snapCols) refTarget() ([]byte, error) {
	ed := &sc.s.Edges
	b := make([]byte, 8*ed.Len())
	sc.forRanges(func(lo, hi int, st uint64) bool {
		dst := b[8*st : 8*(st+uint64(hi-lo))]
		for j, t := range ed.Target[lo:hi] {
			binary.LittleEndian.PutUint64(dst[8*j:], uint64(t))
		}
		return true
	})
	return b, nil
}

// forRanges calls put with every collectable's edge range [lo, hi) and the
// position of its first reference in the reference table (RefStart), or
// once for all edges when the positions are the edges' own; it stops when
// put returns false. checkRanges has checked the positions.
func (sc *snapCols) forRanges(put func(lo, hi int, st uint64) bool) {
	nd := &sc.s.Nodes
	if sc.identity {
		put(0, sc.s.Edges.Len(), 0)
		return
	}
	starts := &sc.ms.RefStart
	fe := nd.FirstEdge
	for i := 0; i < nd.Len(); i++ {
		lo, hi := int(fe[i]), int(fe[i+1])
		if lo != hi && !put(lo, hi, starts.At(i)) {
			return
		}
	}
}

func u64Column(vs []uint64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// uintsColumn encodes n values of u (zeros when u is empty) at width bytes
// each; it returns the index of the first value above limit, or -1.
func uintsColumn(u *ir.Uints, n, width int, limit uint64) ([]byte, int) {
	b := make([]byte, width*n)
	if u8, ok := u.U8(); ok {
		return b, putInts(b, u8[:n], width, limit)
	}
	if u32, ok := u.U32(); ok {
		return b, putInts(b, u32[:n], width, limit)
	}
	if u64, ok := u.U64(); ok {
		return b, putInts(b, u64[:n], width, limit)
	}
	return b, -1 // all zero
}

func putInts[T uint8 | uint32 | uint64](b []byte, vs []T, width int, limit uint64) int {
	switch width {
	case 2:
		for i, v := range vs {
			if uint64(v) > limit {
				return i
			}
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
	case 4:
		for i, v := range vs {
			if uint64(v) > limit {
				return i
			}
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
	default:
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
	}
	return -1
}

// Totals returns the snapmeta totals MoarVM computes for a snapshot, in its
// order (moarvmir.TotalNames): the heap size Σ(self + unmanaged size), the
// numbers of objects, type objects, STables and frames (collectables of
// kinds 1–4), and the number of references.
func Totals(s *ir.Snapshot) []ir.Total {
	nd := &s.Nodes
	var heap uint64
	var counts [5]uint64
	for i := 0; i < nd.Len(); i++ {
		heap = satAdd(heap, nd.SelfSize.At(i))
		if nd.ExternalSize.Len() > 0 {
			heap = satAdd(heap, nd.ExternalSize.At(i))
		}
		if k := nd.Kind[i]; k >= moarvmir.Object && k <= moarvmir.Frame {
			counts[k]++
		}
	}
	vals := []uint64{heap, counts[1], counts[2], counts[3], counts[4], uint64(s.Edges.Len())}
	out := make([]ir.Total, len(vals))
	for i, v := range vals {
		out[i] = ir.Total{Name: moarvmir.TotalNames[i], Value: v}
	}
	return out
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}
