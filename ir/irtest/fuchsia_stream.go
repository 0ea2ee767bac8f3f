package irtest

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// This file makes the files of FuchsiaOptions.Stream: what readers/fuchsia
// makes of a FIDL element stream (see ir/fuchsia/section.go and fuchsiair.Stream).

// utf8Name returns prefix and a random string as UTF-8 (lone surrogates
// replaced) of at most limit bytes (no limit when limit is 0), cut at a
// rune boundary: FIDL strings are UTF-8, the names bounded.
func (g *fuchsiaGen) utf8Name(prefix string, limit int) string {
	s := strings.ToValidUTF8(prefix+g.str(), "?")
	if limit > 0 && len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// key returns a random stack or thread key not in seen: small or any.
func (g *fuchsiaGen) key(seen map[uint64]bool) uint64 {
	for {
		v := uint64(g.intn(64))
		if g.chance(3) {
			v = g.r.Uint64()
		}
		if !seen[v] {
			seen[v] = true
			return v
		}
	}
}

// streamTables makes the mapping and location tables of a stream read:
// per process its regions as mappings, sorted by start address, and one
// location per distinct program address, resolved to the process's
// mappings; ids are 1 + the index, going on across processes.
func (g *fuchsiaGen) streamTables() {
	x := g.x
	g.multi = g.o.Snapshots > 1 || g.fo.MultiProcess && !g.chance(4)
	mp, lc := &x.Mappings, &x.Locations
	lc.FirstLine = []uint32{0}
	for k := 0; k < g.o.Snapshots; k++ {
		lo := mp.Len()
		base := uint64(0x10000000) << g.intn(12)
		for j := g.intn(4); j > 0; j-- {
			size := uint64(1+g.intn(64)) << 12
			fields := uint8(fuchsiair.RegionRequired)
			var vaddr uint64
			if !g.chance(3) {
				fields |= fuchsiair.RegionVaddr
				if !g.chance(5) {
					vaddr = uint64(g.intn(64)) << 12
				}
			}
			file := uint32(0) // "": a region without a name
			if !g.chance(4) {
				fields |= fuchsiair.RegionName
				file = g.intern(g.utf8Name([]string{"libc.so", "libfdio.so", "bin/app", "<vDSO>", ""}[g.intn(5)], 0))
			}
			id := make([]byte, []int{0, 8, 20, 32, g.intn(33)}[g.intn(5)])
			for i := range id {
				id[i] = byte(g.r.Uint32())
			}
			mp.ID = append(mp.ID, uint64(mp.Len()+1))
			mp.Start = append(mp.Start, base)
			mp.Limit = append(mp.Limit, base+size)
			mp.Offset = append(mp.Offset, uint64(g.intn(16))<<12)
			mp.File = append(mp.File, file)
			mp.BuildID = append(mp.BuildID, g.intern(hex.EncodeToString(id)))
			mp.Flags = append(mp.Flags, 0)
			g.regionField = append(g.regionField, fields)
			g.regionVaddr = append(g.regionVaddr, vaddr)
			base += size + uint64(g.intn(16))<<12
		}
		hi := mp.Len()
		g.mappingsOf = append(g.mappingsOf, [2]int{lo, hi})

		// Locations: distinct addresses, in or out of the mappings.
		resolve := func(pc uint64) uint32 {
			for m := lo; m < hi; m++ {
				if mp.Start[m] <= pc && pc < mp.Limit[m] {
					return uint32(m + 1)
				}
			}
			return 0
		}
		first := lc.Len()
		seen := map[uint64]bool{}
		for j := 1 + g.intn(8+g.o.MaxNodes/2); j > 0; j-- {
			pc := g.r.Uint64()
			if m := lo + g.intn(hi-lo+1); m < hi {
				pc = mp.Start[m] + uint64(g.intn(int(mp.Limit[m]-mp.Start[m])))
			}
			if seen[pc] {
				continue
			}
			seen[pc] = true
			lc.ID = append(lc.ID, uint64(lc.Len()+1))
			lc.Mapping = append(lc.Mapping, resolve(pc))
			lc.Address = append(lc.Address, pc)
			lc.Folded = append(lc.Folded, false)
			lc.FirstLine = append(lc.FirstLine, 0)
		}
		g.locationsOf = append(g.locationsOf, [2]int{first, lc.Len()})
	}
}

// split cuts total into 1 to 3 chunk sizes, sometimes with a chunk of
// nothing among them.
func (g *fuchsiaGen) split(total uint64) []uint64 {
	parts := []uint64{total}
	for j := g.intn(3); j > 0 && total > 1; j-- {
		// cut the last part in two
		last := parts[len(parts)-1]
		if last < 2 {
			break
		}
		c := 1 + uint64(g.intn(int(min(last-1, 1<<20))))
		parts[len(parts)-1] = c
		parts = append(parts, last-c)
	}
	if g.chance(6) {
		at := g.intn(len(parts) + 1)
		parts = slices.Insert(parts, at, 0)
	}
	return parts
}

// merge orders the chunks of several sequences of at least one chunk
// each, every sequence kept in order: one sequence after the other, or
// interleaved. Interleaved and ordered, each sequence starts after the
// previous one started. It returns the sequence of every chunk in the
// merged order.
func (g *fuchsiaGen) merge(lens []int, interleave, ordered bool) []int {
	var out []int
	if !interleave {
		for k, n := range lens {
			for ; n > 0; n-- {
				out = append(out, k)
			}
		}
		return out
	}
	left := slices.Clone(lens)
	started, total := 0, 0
	for _, n := range lens {
		total += n
	}
	for len(out) < total {
		var open []int
		for k := range left {
			if left[k] > 0 && (!ordered || k < started) {
				open = append(open, k)
			}
		}
		var k int
		if ordered && started < len(lens) && (len(open) == 0 || g.chance(2)) {
			k = started
			started++
		} else {
			k = open[g.intn(len(open))]
		}
		left[k]--
		out = append(out, k)
	}
	return out
}

// streamSnapshot makes process k's snapshot as read from a stream.
func (g *fuchsiaGen) streamSnapshot(k int) *ir.Snapshot {
	fo, o := g.fo, &g.o
	s := &ir.Snapshot{Root: ir.NoNode, NodeKinds: slices.Clone(fuchsiair.NodeKinds), EdgeKinds: slices.Clone(fuchsiair.EdgeKinds)}
	x := &fuchsiair.Snapshot{}
	st := &fuchsiair.Stream{}
	x.Stream = st
	s.SetSection(x)
	if g.multi {
		x.HasProcessName, x.HasProcessKoid = true, true
		x.ProcessName = g.intern(g.utf8Name(fmt.Sprintf("process-%d ", k%3), 32))
		s.Name = x.ProcessName
		x.ProcessKoid = int64(1000 + 17*k + g.intn(10))
		if g.chance(8) {
			x.ProcessKoid = g.signed()
		}
	}
	n := o.MinNodes + g.intn(o.MaxNodes-o.MinNodes+1)

	// The stack table (stacks of no frames too), keys.
	llo, lhi := g.locationsOf[k][0], g.locationsOf[k][1]
	x.StackFirst = []uint32{0}
	nst := g.intn(3)
	if n > 0 {
		nst = 1 + g.intn(min(n, 8))
	}
	keys := map[uint64]bool{}
	for j := 0; j < nst; j++ {
		for d := g.intn(7); d > 0 && lhi > llo; d-- {
			x.StackLocation = append(x.StackLocation, uint32(llo+g.intn(lhi-llo)))
		}
		x.StackFirst = append(x.StackFirst, uint32(len(x.StackLocation)))
		st.StackKey = append(st.StackKey, g.key(keys))
	}
	// The thread table, keys.
	keys = map[uint64]bool{}
	for j := g.intn(4); j > 0; j-- {
		x.ThreadName = append(x.ThreadName, g.intern(g.utf8Name("thread-", 32)))
		x.ThreadKoid = append(x.ThreadKoid, uint64(g.intn(1<<20)))
		x.ThreadBare = append(x.ThreadBare, false)
		st.ThreadKey = append(st.ThreadKey, g.key(keys))
	}

	// Block addresses, distinct even for blocks of no bytes.
	sizes, addrs := g.blocks(n, 1)
	g.r.Shuffle(n, func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })

	hasTS := !g.chance(4)
	hasThread := len(x.ThreadName) > 0 && !g.chance(4)
	hasContents := fo.Contents && n > 0 && !g.chance(4)
	x.ContentsStart = []uint64{0}
	nd := &s.Nodes
	anyTS, anyThread := false, false
	for i := 0; i < n; i++ {
		stack := uint32(g.intn(nst))
		name, class := g.site(x.StackOf(int(stack)))
		nd.Kind = append(nd.Kind, 0)
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, class)
		x.Stack = append(x.Stack, stack)
		af := uint8(fuchsiair.AllocSize | fuchsiair.AllocStackKey)
		flags := uint8(fuchsiair.FlagBytes)
		hasAddr := !g.chance(10)
		if hasAddr {
			af |= fuchsiair.AllocAddress
			flags |= fuchsiair.FlagAddress
			nd.ID.Append(addrs[i])
		} else {
			nd.ID.Append(0)
		}
		nd.SelfSize.Append(sizes[i])
		count := uint64(1)
		if g.chance(3) {
			af |= fuchsiair.AllocCount
			count = []uint64{1, uint64(2 + g.intn(5)), 0, g.r.Uint64()}[g.intn(4)]
		}
		x.Count.Append(count)
		if hasTS {
			var ts int64
			if !g.chance(6) {
				af |= fuchsiair.AllocTimestamp
				flags |= fuchsiair.FlagTimestamp
				anyTS = true
				ts = g.r.Int64N(1 << 50)
				if g.chance(8) {
					ts = g.signed()
				}
			}
			x.Timestamp = append(x.Timestamp, ts)
		}
		if hasThread {
			t := uint32(g.intn(len(x.ThreadName) + 1))
			if t > 0 {
				af |= fuchsiair.AllocThreadKey
				anyThread = true
			}
			x.Thread = append(x.Thread, t)
		}
		if hasContents && hasAddr && !g.chance(5) {
			flags |= fuchsiair.FlagContents
			x.Contents = append(x.Contents, g.contents(sizes[i], addrs)...)
		}
		x.ContentsStart = append(x.ContentsStart, uint64(len(x.Contents)))
		x.Flags = append(x.Flags, flags)
		st.AllocFields = append(st.AllocFields, af)
	}
	// As the reader makes them: a column only when some node has a value.
	if !anyTS {
		x.Timestamp = nil
	}
	if !anyThread {
		x.Thread = nil
	}
	withContents := 0
	for _, fl := range x.Flags {
		if fl&fuchsiair.FlagContents != 0 {
			withContents++
		}
	}
	if withContents == 0 {
		x.ContentsStart, x.Contents = nil, nil
	}
	nd.FirstEdge = make([]uint32, n+1)
	if fo.DerivedEdges && withContents > 0 && !g.chance(4) {
		g.derive(s)
	} else {
		for i := 0; i < n; i++ {
			s.Roots = append(s.Roots, ir.RootRef{Node: uint32(i), Category: nd.Name[i]})
		}
	}

	// The stack chunks: each stack cut in chunks, the first chunks in
	// stack order.
	var stackParts [][]uint64
	var lens []int
	for j := 0; j < nst; j++ {
		p := g.split(uint64(len(x.StackOf(j))))
		stackParts = append(stackParts, p)
		lens = append(lens, len(p))
	}
	next := make([]int, nst)
	for _, j := range g.merge(lens, g.chance(2), true) {
		st.StackChunkStack = append(st.StackChunkStack, uint32(j))
		st.StackChunkSize = append(st.StackChunkSize, uint32(stackParts[j][next[j]]))
		next[j]++
	}

	// The regions: this process's mappings, in any order.
	mlo, mhi := g.mappingsOf[k][0], g.mappingsOf[k][1]
	for m := mlo; m < mhi; m++ {
		st.RegionMapping = append(st.RegionMapping, uint32(m))
	}
	g.r.Shuffle(len(st.RegionMapping), func(i, j int) {
		st.RegionMapping[i], st.RegionMapping[j] = st.RegionMapping[j], st.RegionMapping[i]
	})
	for _, m := range st.RegionMapping {
		st.RegionFields = append(st.RegionFields, g.regionField[m])
		st.RegionVaddr = append(st.RegionVaddr, g.regionVaddr[m])
	}

	// The contents chunks: each block's cut in chunks, sometimes
	// interleaved across blocks, and orphan chunks (an address no
	// allocation has) among them.
	var owners []uint32
	var parts [][]uint64
	lens = lens[:0]
	for i := 0; i < n; i++ {
		if x.Flags[i]&fuchsiair.FlagContents != 0 {
			p := g.split(sizes[i])
			owners = append(owners, uint32(i))
			parts = append(parts, p)
			lens = append(lens, len(p))
		}
	}
	var orphanAddrs []uint64
	if g.chance(2) {
		taken := map[uint64]bool{}
		for i := 0; i < n; i++ {
			if x.Flags[i]&fuchsiair.FlagAddress != 0 {
				taken[nd.ID.At(i)] = true
			}
		}
		for j := 1 + g.intn(3); j > 0; j-- {
			a := uint64(0x3000_0000_0000) + uint64(g.intn(1<<20))<<4
			if g.chance(3) {
				a = g.r.Uint64()
			}
			if taken[a] {
				continue
			}
			orphanAddrs = append(orphanAddrs, a)
			owners = append(owners, fuchsiair.OrphanChunk)
			parts = append(parts, []uint64{uint64(g.intn(41))})
			lens = append(lens, 1)
		}
	}
	next = make([]int, len(lens))
	for _, j := range g.merge(lens, g.chance(2), false) {
		size := parts[j][next[j]]
		next[j]++
		st.ContentsChunkNode = append(st.ContentsChunkNode, owners[j])
		st.ContentsChunkSize = append(st.ContentsChunkSize, uint32(size))
		if owners[j] == fuchsiair.OrphanChunk {
			// Orphan chunks take their addresses and bytes in chunk order.
			st.OrphanAddress = append(st.OrphanAddress, orphanAddrs[len(st.OrphanAddress)])
			for b := uint64(0); b < size; b++ {
				st.OrphanContents = append(st.OrphanContents, byte(g.r.Uint32()))
			}
		}
	}

	g.streamRecords(st, n, len(x.ThreadName))
	return s
}

// streamRecords makes the records: the elements of every kind, grouped by
// kind or mixed, in batches; and unknown fields on some of them (and on
// the SnapshotHeader of a multi-process stream).
func (g *fuchsiaGen) streamRecords(st *fuchsiair.Stream, nodes, threads int) {
	counts := []struct {
		kind uint8
		n    int
	}{
		{fuchsiair.RecordThread, threads}, {fuchsiair.RecordRegion, len(st.RegionMapping)},
		{fuchsiair.RecordStackTrace, len(st.StackChunkStack)}, {fuchsiair.RecordAllocation, nodes},
		{fuchsiair.RecordContents, len(st.ContentsChunkNode)},
	}
	g.r.Shuffle(len(counts), func(i, j int) { counts[i], counts[j] = counts[j], counts[i] })
	var elems []uint8
	for _, c := range counts {
		for j := 0; j < c.n; j++ {
			elems = append(elems, c.kind)
		}
	}
	if g.chance(2) {
		g.r.Shuffle(len(elems), func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
	}
	maxBatch := 1 + g.intn(8)
	for i := 0; i < len(elems); {
		b := 1 + g.intn(maxBatch)
		for ; b > 0 && i < len(elems); b-- {
			st.Records = append(st.Records, elems[i])
			i++
		}
		st.Records = append(st.Records, fuchsiair.RecordEndOfBatch)
	}

	// Unknown fields: ordinals beyond the table's known fields.
	if !g.chance(3) {
		return
	}
	known := map[uint8]int{fuchsiair.RecordAllocation: 6, fuchsiair.RecordStackTrace: 2, fuchsiair.RecordRegion: 6,
		fuchsiair.RecordContents: 2, fuchsiair.RecordThread: 3}
	var recs []uint32
	for r, kind := range st.Records {
		if kind != fuchsiair.RecordEndOfBatch && g.chance(4) {
			recs = append(recs, uint32(r))
		}
	}
	if g.multi && !g.chance(3) {
		recs = append(recs, fuchsiair.HeaderRecord)
	}
	for _, r := range recs {
		k := 2 // the SnapshotHeader's
		if r != fuchsiair.HeaderRecord {
			k = known[st.Records[r]]
		}
		ord := uint64(k)
		for j := 1 + g.intn(2); j > 0 && ord < 64; j-- {
			ord += uint64(1 + g.intn(int(min(64-ord, 5))))
			if g.chance(8) {
				ord = 64
			}
			if st.UnknownFirst == nil {
				st.UnknownFirst = []uint32{0}
			}
			size := 4
			if !g.chance(3) {
				size = 8 * (1 + g.intn(3))
			}
			for b := 0; b < size; b++ {
				st.UnknownBytes = append(st.UnknownBytes, byte(g.r.Uint32()))
			}
			st.UnknownRecord = append(st.UnknownRecord, r)
			st.UnknownOrdinal = append(st.UnknownOrdinal, ord)
			st.UnknownFirst = append(st.UnknownFirst, uint32(len(st.UnknownBytes)))
		}
	}
}
