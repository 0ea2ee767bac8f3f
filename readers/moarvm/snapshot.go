package moarvm

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// namer finds the strings node names need that MoarVM's string heap may
// lack, and adds them after it.
type namer struct {
	f     *ir.File
	empty uint32
	roots []uint32 // colkind → name, for the root kinds
}

func newNamer(f *ir.File) *namer {
	n := &namer{f: f, roots: make([]uint32, len(moarvmir.RootNames))}
	n.empty = n.intern("")
	for k, name := range moarvmir.RootNames {
		if name != "" {
			n.roots[k] = n.intern(name)
		}
	}
	return n
}

// apply names a snapshot's root-kind and unknown-kind nodes, which the
// reader leaves for when the whole string heap is known.
func (n *namer) apply(s *ir.Snapshot) {
	s.Name = n.empty
	for i, k := range s.Nodes.Kind {
		if k < moarvmir.Object || k > moarvmir.Frame {
			if int(k) < len(n.roots) && moarvmir.RootNames[k] != "" {
				s.Nodes.Name[i] = n.roots[k]
			} else {
				s.Nodes.Name[i] = n.empty
			}
		}
	}
}

func (n *namer) intern(s string) uint32 {
	for i, t := range n.f.Strings {
		if t == s {
			return uint32(i)
		}
	}
	n.f.Strings = append(n.f.Strings, s)
	return uint32(len(n.f.Strings) - 1)
}

// snapshot reads the snapshot whose blocks TOC t lists. It spends its part
// of the decompression budget once mine is closed, then closes next.
func (r *reader) snapshot(f *ir.File, t *toc, mine <-chan struct{}, next chan<- struct{}) (*ir.Snapshot, string, error) {
	passed := false
	pass := func() {
		if !passed {
			passed = true
			close(next)
		}
	}
	defer func() {
		if !passed {
			<-mine // keep the order even when failing early
			pass()
		}
	}()
	var bs [8]block
	for k, name := range moarvmir.SnapshotColumns {
		b, ok := t.find(name)
		if !ok {
			return nil, "", errorf(t.start, "snapshot without a %s block", name)
		}
		bs[k] = b
	}
	s := &ir.Snapshot{
		NodeKinds: append([]string(nil), moarvmir.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), moarvmir.EdgeKinds...),
		Root:      ir.NoNode,
	}
	m := &moarvmir.Snapshot{}
	s.SetSection(m)
	var note string
	if b, ok := t.find(moarvmir.BlockSnapMeta); ok {
		js, err := r.readMeta(b)
		if err != nil {
			return nil, "", err
		}
		m.HasMeta = true
		if s.Totals, note, err = parseSnapMeta(js, m); err != nil {
			return nil, "", errorf(b.start+moarvmir.HeaderSize, "snapmeta: %v", err)
		}
	}
	// The kinds and reference counts fix the number of collectables and of
	// references; every other column must agree with them.
	var kind, size, tofi, rfcnt, rfstr, usize, descr, target, topIDs, topScores *column
	err := parallel(
		func() (err error) { kind, err = r.readColumn(bs[0], -1); return },
		func() (err error) { rfcnt, err = r.readColumn(bs[3], -1); return },
	)
	if err != nil {
		return nil, "", err
	}
	n := kind.len()
	if rfcnt.len() != n {
		return nil, "", errorf(bs[3].start, "colrfcnt has %d entries for %d collectables", rfcnt.len(), n)
	}
	if n >= math.MaxUint32 {
		return nil, "", errorf(bs[0].start, "%d collectables (at most 2^32-2 are supported)", n)
	}
	var refs uint64
	for i := 0; i < n; i++ {
		refs += rfcnt.at(i)
	}
	if refs > math.MaxUint32 {
		return nil, "", errorf(bs[3].start, "%d references (at most 2^32-1 are supported)", refs)
	}
	// Everything this snapshot decompresses: the two columns read, the six
	// whose sizes they fix.
	need := int64(len(kind.data)+len(rfcnt.data)) + int64(n)*int64(moarvmir.EntrySize(moarvmir.ColSize)+moarvmir.EntrySize(moarvmir.ColTOFI)+
		moarvmir.EntrySize(moarvmir.ColRefStart)+moarvmir.EntrySize(moarvmir.ColUnmanaged)) + int64(refs)*int64(moarvmir.EntrySize(moarvmir.RefDescr)+moarvmir.EntrySize(moarvmir.RefTarget))
	<-mine
	ok := r.reserve(need)
	pass()
	if !ok {
		return nil, "", errorf(bs[0].start, "the snapshot's columns decompress to %d bytes, more than the file can need", need)
	}
	jobs := []func() error{
		func() (err error) { target, err = r.readColumn(bs[7], int64(refs)); return },
		func() (err error) { descr, err = r.readColumn(bs[6], int64(refs)); return },
		func() (err error) { rfstr, err = r.readColumn(bs[4], int64(n)); return },
		func() (err error) { usize, err = r.readColumn(bs[5], int64(n)); return },
		func() (err error) { tofi, err = r.readColumn(bs[2], int64(n)); return },
		func() (err error) { size, err = r.readColumn(bs[1], int64(n)); return },
	}
	tb, okI := t.find(moarvmir.TopIDs)
	sb, okS := t.find(moarvmir.TopScore)
	if okI != okS {
		return nil, "", errorf(t.start, "snapshot with only one of topIDs and topscore")
	}
	if okI {
		// The boards are bounded by highscore_structure: no budget.
		boards := int64(len(moarvmir.FileOf(f).DataOrder)) * int64(moarvmir.FileOf(f).EntryCount)
		jobs = append(jobs,
			func() (err error) { topIDs, err = r.readColumn(tb, boards); return },
			func() (err error) { topScores, err = r.readColumn(sb, boards); return },
		)
	}
	if err := parallel(jobs...); err != nil {
		return nil, "", err
	}
	if okI {
		if topIDs.len() != topScores.len() {
			return nil, "", errorf(sb.start, "topscore has %d entries, topIDs %d", topScores.len(), topIDs.len())
		}
		if fm := moarvmir.FileOf(f); topIDs.len() > 0 && uint64(topIDs.len()) != uint64(len(fm.DataOrder))*fm.EntryCount {
			return nil, "", errorf(tb.start, "topIDs has %d entries, but highscore_structure says %d boards of %d", topIDs.len(), len(fm.DataOrder), fm.EntryCount)
		}
		m.TopIDs, m.TopScores = make([]uint64, topIDs.len()), make([]uint64, topIDs.len())
		for i := range m.TopIDs {
			m.TopIDs[i], m.TopScores[i] = topIDs.at(i), topScores.at(i)
		}
	}
	err = parallel(
		func() error { return nodes(f, s, kind, size, tofi, usize, rfstr) },
		func() error { return edges(f, s, kind.len(), rfcnt, rfstr, descr, target) },
	)
	if err != nil {
		return nil, "", err
	}
	if n > 0 {
		s.Root = 0
	}
	return s, note, nil
}

// values decodes entries [from, from+len(dst)) into dst, with the width
// switch outside the loop.
func (c *column) values(dst []uint64, from int) {
	d := c.data
	switch c.width {
	case 1:
		for i := range dst {
			dst[i] = uint64(d[from+i])
		}
	case 2:
		d = d[2*from : 2*(from+len(dst))]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint16(d[2*i:]))
		}
	case 4:
		d = d[4*from : 4*(from+len(dst))]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint32(d[4*i:]))
		}
	default:
		d = d[8*from : 8*(from+len(dst))]
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(d[8*i:])
		}
	}
}

// appendColumn appends a column's entries to a Uints in batches.
func appendColumn(dst *ir.Uints, c *column) {
	n := c.len()
	buf := make([]uint64, min(n, 8192))
	dst.Reserve(n)
	for i := 0; i < n; i += len(buf) {
		b := buf[:min(len(buf), n-i)]
		c.values(b, i)
		dst.AppendAll(b)
	}
}

// joinContinuedSizes makes the self size of each collectable whose colsize
// is moarvmir.SizeContinued the sum of its colsize and colusize (moarvmir.JoinSize):
// a size heapconv split because colsize has 16 bits.
func joinContinuedSizes(nd *ir.Nodes) {
	for i := range nd.SelfSize.Len() {
		if nd.SelfSize.At(i) != moarvmir.SizeContinued {
			continue
		}
		if self, u := moarvmir.JoinSize(moarvmir.SizeContinued, nd.ExternalSize.At(i)); self != moarvmir.SizeContinued {
			nd.SelfSize.Set(i, self)
			nd.ExternalSize.Set(i, u)
		}
	}
}

// nodes fills the node columns. Types and frames must be read as far as
// the snapshot's own TOC; the root kinds are named later (namer.apply).
func nodes(f *ir.File, s *ir.Snapshot, kind, size, tofi, usize, rfstr *column) error {
	n := kind.len()
	nd := &s.Nodes
	nd.Kind = make([]uint8, n)
	nd.Name = make([]uint32, n)
	nd.Class = make([]uint32, n)
	nTypes, nFrames := uint64(f.Classes.Len()), uint64(len(moarvmir.FileOf(f).FrameName))
	maxKind := uint64(len(moarvmir.NodeKinds) - 1)
	ks, tfs := make([]uint64, min(n, 8192)), make([]uint64, min(n, 8192))
	for base := 0; base < n; base += len(ks) {
		kb, tb := ks[:min(len(ks), n-base)], tfs[:min(len(ks), n-base)]
		kind.values(kb, base)
		tofi.values(tb, base)
		for j, k := range kb {
			i := base + j
			if k > 255 {
				return kind.errorf(i, "collectable kind %d (at most 255 are supported; MoarVM has 11)", k)
			}
			maxKind = max(maxKind, k)
			nd.Kind[i] = uint8(k)
			switch tf := tb[j]; {
			case k >= moarvmir.Object && k <= moarvmir.STable:
				if tf >= nTypes {
					return tofi.errorf(i, "type %d of a collectable of kind %d, but there are %d types", tf, k, nTypes)
				}
				nd.Class[i] = uint32(tf) + 1
				nd.Name[i] = f.Classes.Name[tf]
			case k == moarvmir.Frame:
				if tf >= nFrames {
					return tofi.errorf(i, "static frame %d of a frame, but there are %d static frames", tf, nFrames)
				}
				nd.Name[i] = moarvmir.FileOf(f).FrameName[tf]
			}
		}
	}
	for k := uint64(len(s.NodeKinds)); k <= maxKind; k++ {
		s.NodeKinds = append(s.NodeKinds, "kind "+itoa(k))
	}
	nd.ID.Reserve(n)
	for base := 0; base < n; base += len(ks) {
		b := ks[:min(len(ks), n-base)]
		for j := range b {
			b[j] = uint64(base + j)
		}
		nd.ID.AppendAll(b)
	}
	appendColumn(&nd.SelfSize, size)
	appendColumn(&nd.ExternalSize, usize)
	joinContinuedSizes(nd)
	appendColumn(&moarvmir.Of(s).TOFI, tofi)
	appendColumn(&moarvmir.Of(s).RefStart, rfstr)
	return nil
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		if v /= 10; v == 0 {
			return string(b[i:])
		}
	}
}

// edges gathers every collectable's references, which the file stores as
// one range each of the reference table, in collectable order.
func edges(f *ir.File, s *ir.Snapshot, n int, rfcnt, rfstr, descr, target *column) error {
	refs := descr.len()
	nd, ed := &s.Nodes, &s.Edges
	nd.FirstEdge = make([]uint32, n+1)
	starts := make([]uint64, n)
	rfstr.values(starts, 0)
	// The ranges must tile the table: mark them a word at a time.
	used := make([]uint64, (refs+63)/64)
	cnts := make([]uint64, min(n, 8192))
	e := uint64(0)
	for base := 0; base < n; base += len(cnts) {
		cb := cnts[:min(len(cnts), n-base)]
		rfcnt.values(cb, base)
		for j, cnt := range cb {
			i := base + j
			if cnt > 0 {
				st := starts[i]
				if st > uint64(refs) || cnt > uint64(refs)-st {
					return rfstr.errorf(i, "references [%d, %d+%d) beyond the %d references", st, st, cnt, refs)
				}
				if !moarvmir.MarkRange(used, st, st+cnt) {
					return rfstr.errorf(i, "references [%d, %d+%d) overlap another collectable's", st, st, cnt)
				}
			}
			e += cnt
			nd.FirstEdge[i+1] = uint32(e)
		}
	}
	ed.Kind = make([]uint8, refs)
	ed.Name = make([]uint32, refs)
	ed.Target = make([]uint32, refs)
	// Fill the edges in two halves of the table at once.
	mid := sort.Search(n, func(i int) bool { return int(nd.FirstEdge[i]) >= refs/2 })
	return parallel(
		func() error { return fillEdges(f, s, n, 0, mid, starts, descr, target) },
		func() error { return fillEdges(f, s, n, mid, n, starts, descr, target) },
	)
}

// fillEdges fills the edges of collectables [from, to) of the n. It runs
// beside nodes, so it touches no node column but FirstEdge.
func fillEdges(f *ir.File, s *ir.Snapshot, nodes, from, to int, starts []uint64, descr, target *column) error {
	nd, ed := &s.Nodes, &s.Edges
	n := uint64(nodes)
	ns := uint64(len(f.Strings)) // the heap so far: its extras come after every snapshot
	wide := descr.width == 8 && target.width == 8
	for i := from; i < to; i++ {
		e, end := int(nd.FirstEdge[i]), int(nd.FirstEdge[i+1])
		for j := int(starts[i]); e < end; j, e = j+1, e+1 {
			var d, t uint64
			if wide {
				d = binary.LittleEndian.Uint64(descr.data[8*j:])
				t = binary.LittleEndian.Uint64(target.data[8*j:])
			} else {
				d, t = descr.at(j), target.at(j)
			}
			if t >= n {
				return target.errorf(j, "reference to collectable %d, but there are %d", t, n)
			}
			idx, k := moarvmir.UnpackRef(d)
			if idx > math.MaxUint32 {
				return descr.errorf(j, "description index %d does not fit in 32 bits", idx)
			}
			ed.Kind[e], ed.Name[e], ed.Target[e] = moarvmir.EdgeKind(k, idx, ns), uint32(idx), uint32(t)
		}
	}
	return nil
}
