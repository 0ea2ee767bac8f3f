package irtest

import (
	"cmp"
	"fmt"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	"math/rand/v2"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// MoarVMOptions describe the MoarVM file RandomMoarVM makes.
type MoarVMOptions struct {
	// V2 makes a format version 2 file (MoarVM built without zstd): no
	// filemeta, no snapmeta and so no totals, no highscores, and no block
	// names in the TOCs (version 2 has no TOCs; the reader keeps what each
	// group of tables added).
	V2 bool
	// NoPID leaves "pid" out of the filemeta.
	NoPID bool
	// BadRefs adds string references whose index lies beyond the string
	// heap and references of the unused kind 3.
	BadRefs bool
	// Recovery marks the file as recovered from a damaged one, with lost
	// snapshots; its TOC list is sometimes empty.
	Recovery bool
}

// The root categories MoarVM names with a string reference from the root,
// in the order it writes them: two for the VM, then four per thread.
var (
	moarVMVMRoots     = []int{moarvmir.PermRoots, moarvmir.InstanceRoots}
	moarVMThreadRoots = []int{moarvmir.CStackRoots, moarvmir.ThreadRoots, moarvmir.InterGenRoots, moarvmir.CallStackRoots}
)

// moarVMReprs are REPR names for the type table.
var moarVMReprs = []string{"P6opaque", "VMArray", "VMHash", "MVMCode", "KnowHOWREPR", "P6int", "P6str", "P6num", "VMString", "NFA"}

// RandomMoarVM returns a random valid file shaped as readers/moarvm produces
// it (see ir/moarvm/section.go) from seed, mo and these fields of opts: MinNodes and
// MaxNodes (collectables beyond the root and the root kinds), MaxOutDegree,
// Snapshots, Strings and MaxStringUnits.
//
// Strings, types and static frames are global to the file and each inner
// TOC adds some (the final one now and then too); a snapshot uses only what
// the TOCs up to its own added. References keep MoarVM's layout: each
// collectable's range of the reference table starts where RefStart says,
// the root's first, the others in a random order.
func RandomMoarVM(seed int64, opts Options, mo MoarVMOptions) *ir.File {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x51ed270b27b3e5c1)), o: opts, seed: seed}
	g.defaults()
	f := g.moarVMFile(mo)
	if err := f.Validate(); err != nil {
		panic(fmt.Sprintf("irtest: generated an invalid MoarVM file (seed %d): %v", seed, err))
	}
	return f
}

// moarVMTables is what the TOCs up to one snapshot have added.
type moarVMTables struct{ strings, types, frames int }

func (g *gen) moarVMFile(mo MoarVMOptions) *ir.File {
	f := &ir.File{Format: moarvmir.Format, FormatVersion: "moarvm v3"}
	g.f = f
	m := &moarvmir.File{Version: 3, HasMeta: true, Subversion: 1, StartTime: uint64(g.r.Int64N(1 << 40)),
		EntryCount: uint64(1 + g.intn(5)), DataOrder: slices.Clone(moarvmir.DefaultDataOrder)}
	if mo.V2 {
		f.FormatVersion = "moarvm v2"
		m = &moarvmir.File{Version: 2}
	} else {
		if !mo.NoPID {
			m.PID, m.HasPID = uint64(1+g.intn(1<<22)), true
		}
		if g.chance(6) {
			m.EntryCount = 0 // boards of no entries: present, but empty
		}
	}
	f.SetSection(m)
	nsnap := g.o.Snapshots

	// The string heap is deduplicated file-wide, as MoarVM keeps it.
	seen := map[string]uint32{}
	intern := func(s string) uint32 {
		if i, ok := seen[s]; ok {
			return i
		}
		seen[s] = uint32(len(f.Strings))
		f.Strings = append(f.Strings, s)
		return seen[s]
	}
	fresh := func() {
		for {
			s := g.str()
			if _, ok := seen[s]; !ok {
				intern(s)
				return
			}
			if g.chance(2) {
				return // gave up: this TOC adds one string fewer
			}
		}
	}
	// inHeap returns the index of a random string among the first n.
	inHeap := func(n int) uint32 { return uint32(g.intn(n)) }

	// The TOCs: one per snapshot and the final one. Snapshot 0 brings the
	// root categories, some types and some frames.
	avail := make([]moarVMTables, nsnap+1)
	c := &f.Classes
	for k := 0; k <= nsnap; k++ {
		final := k == nsnap
		s0, t0, f0 := len(f.Strings), c.Len(), len(m.FrameName)
		if k == 0 {
			for _, kind := range append(slices.Clone(moarVMVMRoots), moarVMThreadRoots...) {
				intern(moarvmir.RootNames[kind])
			}
			intern("<STable>")
		}
		if !final || g.chance(4) {
			for j := g.intn(4 + g.o.MaxNodes/4); j > 0; j-- {
				fresh()
			}
		}
		nt := g.intn(3 + g.o.MaxNodes/8)
		if k == 0 {
			nt++
		} else if final && !g.chance(4) {
			nt = 0
		}
		for j := 0; j < nt; j++ {
			name := uint32(len(f.Strings))
			fresh()
			if int(name) == len(f.Strings) {
				name = inHeap(len(f.Strings))
			}
			c.Name = append(c.Name, name)
			c.Library = append(c.Library, intern(moarVMReprs[g.intn(len(moarVMReprs))]))
		}
		nf := g.intn(3 + g.o.MaxNodes/8)
		if k == 0 {
			nf++
		} else if final && !g.chance(4) {
			nf = 0
		}
		for j := 0; j < nf; j++ {
			name := intern("")
			if !g.chance(3) {
				name = inHeap(len(f.Strings))
			}
			m.FrameName = append(m.FrameName, name)
			m.FrameCUID = append(m.FrameCUID, intern(fmt.Sprintf("%d", 1000+g.intn(9000))))
			m.FrameLine = append(m.FrameLine, uint32(1+g.intn(2000)))
			m.FrameFile = append(m.FrameFile, intern([]string{"gen/moar/stage2/NQPCORE.setting", "src/core.c/Any.rakumod", "-e", "<null>"}[g.intn(4)]))
		}
		toc := moarvmir.TOC{NewStrings: uint32(len(f.Strings) - s0), NewTypes: uint32(c.Len() - t0),
			NewFrames: uint32(len(m.FrameName) - f0)}
		toc.Blocks = moarVMBlocks(mo.V2, final, toc)
		m.TOCs = append(m.TOCs, toc)
		avail[k] = moarVMTables{len(f.Strings), c.Len(), len(m.FrameName)}
	}
	c.FirstField = make([]uint32, c.Len()+1) // types have no fields
	m.StringCount = len(f.Strings)

	// Strings the reader adds beyond the heap: the root's name (and the
	// categories' and "", which the heap holds here).
	root := uint32(len(f.Strings))
	f.Strings = append(f.Strings, moarvmir.RootNames[moarvmir.Root])
	cats := map[int]uint32{}
	for kind, name := range moarvmir.RootNames {
		if i, ok := seen[name]; ok && name != "" {
			cats[kind] = i
		}
	}

	snapTime, seq := m.StartTime, uint64(0)
	for k := 0; k < nsnap; k++ {
		snapTime += uint64(g.intn(1 << 20))
		seq += uint64(1 + g.intn(3)) // a confprog may skip GC runs
		s := g.moarVMSnapshot(mo, m, avail[k], root, cats)
		s.Name = seen[""] // snapshots have no names
		if !mo.V2 {
			moarvmir.Of(s).SnapTime, moarvmir.Of(s).GCSeqNum = snapTime, seq
		}
		f.Snapshots = append(f.Snapshots, s)
	}

	if mo.Recovery {
		m.Recovery = &moarvmir.Recovery{DamageAt: int64(16 + g.intn(1<<20)), Reason: "irtest: " + g.str(), Lost: 1 + g.intn(3)}
		if g.chance(2) {
			m.TOCs = nil // the TOCs were lost with the tail
		}
	}
	return f
}

// moarVMBlocks returns the names of an inner TOC's blocks, as MoarVM writes
// them (none for version 2).
func moarVMBlocks(v2, final bool, t moarvmir.TOC) []string {
	if v2 {
		return nil
	}
	var b []string
	if !final {
		b = append(b, "snapmeta", "colkind", "colsize", "coltofi", "colrfcnt", "colrfstr", "colusize", "refdescr", "reftrget")
	}
	if t.NewStrings > 0 {
		b = append(b, "strings")
	}
	if t.NewTypes > 0 {
		b = append(b, "reprname", "typename")
	}
	if t.NewFrames > 0 {
		b = append(b, "sfname", "sfcuid", "sfline", "sffile")
	}
	if !final {
		b = append(b, "topIDs", "topscore")
	}
	return b
}

// moarVMSnapshot makes one snapshot using the tables in av: the root, the
// root kinds of one or two threads, then objects, type objects, STables and
// frames.
func (g *gen) moarVMSnapshot(mo MoarVMOptions, m *moarvmir.File, av moarVMTables, root uint32, cats map[int]uint32) *ir.Snapshot {
	f := g.f
	s := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
	ms := &moarvmir.Snapshot{HasMeta: !mo.V2}
	s.SetSection(ms)
	nd := &s.Nodes

	add := func(kind int, name uint32, class uint32, tofi uint64, self, unmanaged uint64) {
		nd.Kind = append(nd.Kind, uint8(kind))
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, class)
		nd.ID.Append(uint64(len(nd.Name) - 1))
		nd.SelfSize.Append(self)
		nd.ExternalSize.Append(unmanaged)
		ms.TOFI.Append(tofi)
	}
	add(moarvmir.Root, root, 0, 0, 0, 0)
	roots := slices.Clone(moarVMVMRoots)
	for t := 1 + g.intn(2); t > 0; t-- {
		roots = append(roots, moarVMThreadRoots...)
	}
	for _, kind := range roots {
		add(kind, cats[kind], 0, 0, 0, 0)
	}
	nroot := 1 + len(roots)
	n := nroot + g.o.MinNodes + g.intn(g.o.MaxNodes-g.o.MinNodes+1)
	for len(nd.Kind) < n {
		kind := 1 + g.intn(4)
		switch kind {
		case moarvmir.Frame:
			fr := g.intn(av.frames)
			add(kind, m.FrameName[fr], 0, uint64(fr), 168, uint64(g.intn(4))*64)
		default:
			t := g.intn(av.types)
			unmanaged := uint64(0)
			if kind == moarvmir.Object && g.chance(4) {
				unmanaged = g.size()
			}
			add(kind, f.Classes.Name[t], uint32(1+t), uint64(t), uint64(8*(1+g.intn(64))), unmanaged)
		}
	}

	// References, grouped by collectable in node order.
	ed := &s.Edges
	nd.FirstEdge = []uint32{0}
	ref := func(kind uint8, name uint32, target int) {
		ed.Kind = append(ed.Kind, kind)
		ed.Name = append(ed.Name, name)
		ed.Target = append(ed.Target, uint32(target))
	}
	for i := 0; i < n; i++ {
		switch kind := int(nd.Kind[i]); {
		case i == 0:
			for j, k := range roots {
				ref(moarvmir.StringRef, cats[k], 1+j)
			}
		case kind == moarvmir.CallStackRoots:
			for j := g.intn(3); j > 0 && n > nroot; j-- {
				ref(moarvmir.IndexRef, uint32(j), nroot+g.intn(n-nroot))
			}
		default:
			for j := g.intn(g.o.MaxOutDegree + 1); j > 0; j-- {
				target := g.intn(n)
				switch k := g.intn(8); {
				case k == 0:
					ref(moarvmir.UnknownRef, 0, target)
				case k <= 2:
					ref(moarvmir.IndexRef, uint32(g.intn(32)), target)
				case mo.BadRefs && k == 3:
					ref(moarvmir.BadString, uint32(m.StringCount+g.intn(1<<16)), target)
				case mo.BadRefs && k == 4:
					ref(moarvmir.Kind3, uint32(g.intn(1<<10)), target)
				default:
					ref(moarvmir.StringRef, uint32(g.intn(av.strings)), target)
				}
			}
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}

	// Where each collectable's references sat in the file's table: the
	// root's first, then the others in a random order (MoarVM's work list).
	// A collectable without references keeps where the cursor was (v3) or
	// 0 (v2).
	order := make([]int, n-1)
	for i := range order {
		order[i] = i + 1
	}
	g.r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	start := make([]uint64, n)
	cursor := uint64(nd.FirstEdge[1])
	for _, i := range order {
		lo, hi := nd.EdgeRange(i)
		if hi == lo && mo.V2 {
			continue
		}
		start[i] = cursor
		cursor += uint64(hi - lo)
	}
	ms.RefStart.AppendAll(start)

	if !mo.V2 {
		var heap uint64
		var counts [moarvmir.Frame + 1]uint64
		for i := 0; i < n; i++ {
			k := nd.Kind[i]
			heap += nd.SelfSize.At(i) + nd.ExternalSize.At(i)
			if k >= moarvmir.Object && k <= moarvmir.Frame {
				counts[k]++
			}
		}
		for i, v := range []uint64{heap, counts[moarvmir.Object], counts[moarvmir.TypeObject], counts[moarvmir.STable],
			counts[moarvmir.Frame], uint64(ed.Len())} {
			s.Totals = append(s.Totals, ir.Total{Name: moarvmir.TotalNames[i], Value: v})
		}
		g.moarVMBoards(s, m, av)
	}
	return s
}

// moarVMBoards fills the highscore boards as MoarVM computes them: concrete
// objects by type and frames by static frame, by count and by size
// (colsize + colusize), entry_count entries each, padded with zero scores.
func (g *gen) moarVMBoards(s *ir.Snapshot, m *moarvmir.File, av moarVMTables) {
	ms := moarvmir.Of(s)
	ms.TopIDs, ms.TopScores = []uint64{}, []uint64{}
	for _, board := range m.DataOrder {
		byType := board == "types_by_count" || board == "types_by_size"
		bySize := board == "types_by_size" || board == "frames_by_size"
		scores := map[uint64]uint64{}
		for i := 0; i < s.Nodes.Len(); i++ {
			k := s.Nodes.Kind[i]
			if byType && k != moarvmir.Object || !byType && k != moarvmir.Frame {
				continue
			}
			v := uint64(1)
			if bySize {
				v = s.Nodes.SelfSize.At(i) + s.Nodes.ExternalSize.At(i)
			}
			scores[ms.TOFI.At(i)] += v
		}
		type entry struct{ id, score uint64 }
		var es []entry
		for id, v := range scores {
			es = append(es, entry{id, v})
		}
		slices.SortFunc(es, func(a, b entry) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
		})
		for j := uint64(0); j < m.EntryCount; j++ {
			if j < uint64(len(es)) {
				ms.TopIDs = append(ms.TopIDs, es[j].id)
				ms.TopScores = append(ms.TopScores, es[j].score)
				continue
			}
			limit := av.frames
			if byType {
				limit = av.types
			}
			ms.TopIDs = append(ms.TopIDs, uint64(g.intn(limit)))
			ms.TopScores = append(ms.TopScores, 0)
		}
	}
}
