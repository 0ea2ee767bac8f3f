package irtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// FuchsiaOptions describe the Fuchsia heapdump file RandomFuchsia makes.
// Each feature, when asked for, still varies between snapshots and nodes
// (some blocks without a timestamp, some stacks unsymbolized, ...).
type FuchsiaOptions struct {
	// MultiProcess adds the process_name and process_koid labels of an
	// ffx --multi-process profile (one snapshot per process; with one
	// snapshot, a single-process profile of it). Some processes then lack
	// one of the two labels.
	MultiProcess bool
	// Tags makes per-block samples (ffx --with-tags): count 1, the block
	// address as the node id, bytes, timestamp and thread labels. Without
	// it, samples are stack-merged groups of blocks.
	Tags bool
	// Symbolized adds the function table and locations' lines (inlined
	// frames); some locations stay without lines.
	Symbolized bool
	// Contents adds block contents (needs Tags: contents are found by
	// address); some blocks have none.
	Contents bool
	// DerivedEdges derives edges and roots from the contents as the reader
	// does when scanning for pointers (needs Contents): the contents then
	// hold pointers to other blocks.
	DerivedEdges bool
	// Labels adds labels ffx does not write, string and numeric.
	Labels bool
	// ExtraSampleTypes adds sample types beyond count and bytes, with
	// their values (negative ones among them).
	ExtraSampleTypes bool
	// Interleaved interleaves the processes' samples in the profile
	// (fuchsiair.File.SampleSnapshot).
	Interleaved bool
	// ProfileFields sets the Profile fields ffx leaves unset: default
	// sample type, drop and keep frames, doc url, comments, time,
	// duration, period type and period.
	ProfileFields bool
	// Gzip marks the profile as gzip-compressed.
	Gzip bool

	// Stream makes the file a read of a FIDL element stream gives (format
	// fuchsia-fidl, fuchsiair.Snapshot.Stream on every snapshot): per-block
	// samples (Tags is implied) with the Allocation fields sent, keys,
	// regions (one snapshot's each, named or not, with or without vaddr),
	// stack and contents chunks (sometimes interleaved, some of no
	// elements), orphan contents, unknown fields and batches. A stream has
	// no labels, extra values, interleaved samples, symbolization, Profile
	// fields or gzip: those options are ignored. A stream of several
	// snapshots is multi-process (every process has a name and a koid);
	// one snapshot is too with MultiProcess (mostly), else it has neither.
	// Contents and DerivedEdges work as for a profile.
	Stream bool
}

// FuchsiaEverything returns options with every Fuchsia feature of a
// profile on (Stream, which excludes some of them, off).
func FuchsiaEverything() FuchsiaOptions {
	return FuchsiaOptions{MultiProcess: true, Tags: true, Symbolized: true, Contents: true, DerivedEdges: true,
		Labels: true, ExtraSampleTypes: true, Interleaved: true, ProfileFields: true, Gzip: true}
}

// FuchsiaStreamEverything returns options with every feature of a FIDL
// stream read on: with FuchsiaEverything's files, they set every field of
// the Fuchsia sections.
func FuchsiaStreamEverything() FuchsiaOptions {
	return FuchsiaOptions{Stream: true, MultiProcess: true, Tags: true, Contents: true, DerivedEdges: true}
}

// RandomFuchsia returns a random valid file shaped as readers/fuchsia
// produces it (see ir/fuchsia/section.go) from seed, fo and these fields of opts:
// MinNodes and MaxNodes (samples per process), Snapshots (processes),
// Strings and MaxStringUnits.
//
// The mapping, function and location tables are file-wide, with distinct
// non-zero pprof ids; each process has its own thread, stack and label
// tables. Nodes are named by their stack's leaf frame (its function when
// symbolized, else "0x<pc>"), with a class per site and mapping.
func RandomFuchsia(seed int64, opts Options, fo FuchsiaOptions) *ir.File {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x2545f4914f6cdd1d)), o: opts, seed: seed}
	g.defaults()
	if fo.Stream {
		fo.Tags = true
		fo.Symbolized, fo.Labels, fo.ExtraSampleTypes, fo.Interleaved, fo.ProfileFields, fo.Gzip = false, false, false, false, false, false
	}
	if !fo.Tags {
		fo.Contents = false
	}
	if !fo.Contents {
		fo.DerivedEdges = false
	}
	f := g.fuchsiaFile(fo)
	if err := f.Validate(); err != nil {
		panic(fmt.Sprintf("irtest: generated an invalid Fuchsia file (seed %d): %v", seed, err))
	}
	return f
}

// fuchsiaGen holds what the snapshots of one file share.
type fuchsiaGen struct {
	*gen
	fo      FuchsiaOptions
	x       *fuchsiair.File
	seen    map[string]uint32
	classes map[[2]uint32]uint32 // (name, library) -> 1 + class index
	ids     map[uint64]bool

	// With Stream: whether the stream is multi-process, and per snapshot
	// its mappings (regions) and locations, [lo, hi) index ranges; per
	// mapping the region fields and vaddr.
	multi       bool
	mappingsOf  [][2]int
	locationsOf [][2]int
	regionField []uint8
	regionVaddr []uint64
}

// intern returns s's index in the string table, adding it when new.
func (g *fuchsiaGen) intern(s string) uint32 {
	if i, ok := g.seen[s]; ok {
		return i
	}
	i := uint32(len(g.f.Strings))
	g.f.Strings = append(g.f.Strings, s)
	g.seen[s] = i
	return i
}

// id returns a fresh non-zero pprof id, small or large.
func (g *fuchsiaGen) id() uint64 {
	for {
		v := uint64(1 + g.intn(1000))
		if g.chance(6) {
			v = g.r.Uint64() | 1
		}
		if !g.ids[v] {
			g.ids[v] = true
			return v
		}
	}
}

// signed returns a random int64: mostly small, sometimes negative or huge.
func (g *gen) signed() int64 {
	switch g.intn(6) {
	case 0:
		return -int64(g.intn(1000))
	case 1:
		return int64(g.r.Uint64())
	case 2:
		return []int64{0, math.MinInt64, math.MaxInt64, -1}[g.intn(4)]
	}
	return int64(g.intn(5000))
}

func (g *gen) fuchsiaFile(fo FuchsiaOptions) *ir.File {
	f := &ir.File{Format: fuchsiair.Format, FormatVersion: "pprof", Producer: "ffx profile heapdump"}
	g.f = f
	x := &fuchsiair.File{Gzip: fo.Gzip}
	f.SetSection(x)
	fg := &fuchsiaGen{gen: g, fo: fo, x: x, seen: map[string]uint32{}, classes: map[[2]uint32]uint32{}, ids: map[uint64]bool{}}
	fg.intern("")
	if fo.Gzip {
		f.FormatVersion += " gzip"
	}

	x.SampleTypes = []fuchsiair.ValueType{
		{Type: fg.intern("objects"), Unit: fg.intern("count")},
		{Type: fg.intern("allocated"), Unit: fg.intern("bytes")},
	}
	if fo.ExtraSampleTypes {
		for k := 1 + g.intn(2); k > 0; k-- {
			x.SampleTypes = append(x.SampleTypes, fuchsiair.ValueType{Type: fg.intern(g.str()), Unit: fg.intern(g.str())})
		}
	}
	if fo.ProfileFields {
		x.DefaultSampleType = x.SampleTypes[1].Type
		x.DropFrames = fg.intern("__scudo_.*|" + g.str())
		x.KeepFrames = fg.intern(g.str())
		x.DocURL = fg.intern("https://fuchsia.dev/" + g.str())
		for k := 1 + g.intn(3); k > 0; k-- {
			x.Comments = append(x.Comments, fg.intern(g.str()))
		}
		x.TimeNanos = g.r.Int64N(1 << 62)
		x.DurationNanos = g.signed()
		x.PeriodType = fuchsiair.ValueType{Type: fg.intern("space"), Unit: fg.intern("bytes")}
		x.Period = g.signed()
	}

	if fo.Stream {
		fg.streamTables()
		for k := 0; k < g.o.Snapshots; k++ {
			f.Snapshots = append(f.Snapshots, fg.streamSnapshot(k))
		}
		f.Format, f.Producer = fuchsiair.FormatFIDL, "fuchsia.memory.heapdump.client collector"
		f.FormatVersion = "FIDL element stream, single-process"
		if fg.multi {
			f.FormatVersion = fmt.Sprintf("FIDL element stream, %d processes", len(f.Snapshots))
		}
	} else {
		fg.tables()
		for k := 0; k < g.o.Snapshots; k++ {
			f.Snapshots = append(f.Snapshots, fg.snapshot(k))
		}
	}
	if x.TimeNanos > 0 {
		for _, s := range f.Snapshots {
			s.CaptureTime = x.TimeNanos
		}
	}
	if fo.Interleaved && len(f.Snapshots) > 1 {
		for k, s := range f.Snapshots {
			for i := 0; i < s.Nodes.Len(); i++ {
				x.SampleSnapshot = append(x.SampleSnapshot, uint32(k))
			}
		}
		g.r.Shuffle(len(x.SampleSnapshot), func(i, j int) {
			x.SampleSnapshot[i], x.SampleSnapshot[j] = x.SampleSnapshot[j], x.SampleSnapshot[i]
		})
	}
	if f.Classes.Len() > 0 {
		f.Classes.FirstField = make([]uint32, f.Classes.Len()+1) // sites have no fields
	}
	return f
}

// tables makes the mapping, function and location tables.
func (g *fuchsiaGen) tables() {
	x := g.x
	mp := &x.Mappings
	base := uint64(0x10000000) << g.intn(12)
	for k := 1 + g.intn(4); k > 0; k-- {
		size := uint64(1+g.intn(64)) << 12
		mp.ID = append(mp.ID, g.id())
		mp.Start = append(mp.Start, base)
		mp.Limit = append(mp.Limit, base+size)
		mp.Offset = append(mp.Offset, uint64(g.intn(16))<<12)
		mp.File = append(mp.File, g.intern([]string{"libc.so", "libfdio.so", "bin/app", "<vDSO>", ""}[g.intn(5)]+g.str()))
		mp.BuildID = append(mp.BuildID, g.intern(fmt.Sprintf("%016x%08x", g.r.Uint64(), g.r.Uint32())))
		var flags uint8
		if g.fo.Symbolized {
			flags = uint8(g.intn(16))
		}
		mp.Flags = append(mp.Flags, flags)
		base += size + uint64(g.intn(16))<<12
	}
	fn := &x.Functions
	if g.fo.Symbolized {
		for k := 1 + g.intn(6+g.o.MaxNodes/4); k > 0; k-- {
			fn.ID = append(fn.ID, g.id())
			name := g.str()
			if g.chance(4) {
				name = fuchsiair.AllocatorFrames[g.intn(len(fuchsiair.AllocatorFrames))]
			}
			fn.Name = append(fn.Name, g.intern(name))
			fn.SystemName = append(fn.SystemName, g.intern("_Z"+name))
			fn.Filename = append(fn.Filename, g.intern("../../src/"+g.str()+".cc"))
			fn.StartLine = append(fn.StartLine, g.signed())
		}
	}
	lc := &x.Locations
	lc.FirstLine = []uint32{0}
	for k := 1 + g.intn(8+g.o.MaxNodes/2); k > 0; k-- {
		lc.ID = append(lc.ID, g.id())
		m := g.intn(mp.Len() + 1) // 0: no mapping
		addr := g.r.Uint64()
		if m > 0 {
			addr = mp.Start[m-1] + uint64(g.intn(int(mp.Limit[m-1]-mp.Start[m-1])))
		}
		lc.Mapping = append(lc.Mapping, uint32(m))
		lc.Address = append(lc.Address, addr)
		lc.Folded = append(lc.Folded, g.chance(8))
		if fn.Len() > 0 && !g.chance(5) {
			for j := 1 + g.intn(3); j > 0; j-- {
				lc.Function = append(lc.Function, uint32(1+g.intn(fn.Len())))
				lc.Line = append(lc.Line, g.signed())
				lc.Column = append(lc.Column, g.signed())
			}
		}
		lc.FirstLine = append(lc.FirstLine, uint32(len(lc.Function)))
	}
}

// site returns the name and 1 + class index of a stack's allocation site:
// its leaf frame.
func (g *fuchsiaGen) site(stack []uint32) (uint32, uint32) {
	if len(stack) == 0 {
		return g.intern("(no stack)"), 0
	}
	lc := &g.x.Locations
	l := stack[0]
	var name, lib uint32
	if lo, hi := lc.FirstLine[l], lc.FirstLine[l+1]; hi > lo {
		name = g.x.Functions.Name[lc.Function[lo]-1]
	} else {
		name = g.intern(fmt.Sprintf("0x%x", lc.Address[l]))
	}
	if m := lc.Mapping[l]; m > 0 {
		lib = g.x.Mappings.File[m-1]
	}
	key := [2]uint32{name, lib}
	c, ok := g.classes[key]
	if !ok {
		cl := &g.f.Classes
		cl.Name = append(cl.Name, name)
		cl.Library = append(cl.Library, lib)
		c = uint32(cl.Len())
		g.classes[key] = c
	}
	return name, c
}

// snapshot makes process k's snapshot.
func (g *fuchsiaGen) snapshot(k int) *ir.Snapshot {
	fo, o := g.fo, &g.o
	s := &ir.Snapshot{Root: ir.NoNode, NodeKinds: slices.Clone(fuchsiair.NodeKinds), EdgeKinds: slices.Clone(fuchsiair.EdgeKinds)}
	x := &fuchsiair.Snapshot{}
	s.SetSection(x)
	if fo.MultiProcess {
		x.HasProcessName, x.HasProcessKoid = !g.chance(6), !g.chance(6)
		if x.HasProcessName {
			x.ProcessName = g.intern(fmt.Sprintf("process-%d %s", k%3, g.str()))
			s.Name = x.ProcessName
		}
		if x.HasProcessKoid {
			x.ProcessKoid = int64(1000 + 17*k + g.intn(10))
			if g.chance(8) {
				x.ProcessKoid = g.signed()
			}
		}
	}
	n := o.MinNodes + g.intn(o.MaxNodes-o.MinNodes+1)

	// The stack table: distinct stacks of locations, leaf first.
	nl := g.x.Locations.Len()
	if n > 0 || !g.chance(3) {
		x.StackFirst = []uint32{0}
		for j := g.intn(1 + min(n, 8)); j >= 0 && (n > 0 || j > 0); j-- {
			for d := g.intn(7); d > 0; d-- {
				x.StackLocation = append(x.StackLocation, uint32(g.intn(nl)))
			}
			x.StackFirst = append(x.StackFirst, uint32(len(x.StackLocation)))
		}
	}
	// The thread table.
	if fo.Tags {
		for j := g.intn(4); j > 0; j-- {
			if g.chance(5) {
				x.ThreadName = append(x.ThreadName, g.intern(g.str()))
				x.ThreadKoid = append(x.ThreadKoid, 0)
				x.ThreadBare = append(x.ThreadBare, true)
				continue
			}
			x.ThreadName = append(x.ThreadName, g.intern("thread-"+g.str()))
			x.ThreadKoid = append(x.ThreadKoid, uint64(g.intn(1<<20)))
			x.ThreadBare = append(x.ThreadBare, false)
		}
	}

	sizes, addrs := g.blocks(n, 0)
	g.r.Shuffle(n, func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })

	extra := len(g.x.SampleTypes) - 2
	hasTS := fo.Tags && !g.chance(4)
	hasThread := len(x.ThreadName) > 0 && !g.chance(4)
	hasLabels := fo.Labels && !g.chance(4)
	hasContents := fo.Contents && n > 0 && !g.chance(4)
	if hasLabels {
		x.LabelFirst = []uint32{0}
	}
	if hasContents {
		x.ContentsStart = []uint64{0}
	}
	nd := &s.Nodes
	nst := x.Stacks()
	for i := 0; i < n; i++ {
		stack := uint32(g.intn(nst))
		name, class := g.site(x.StackOf(int(stack)))
		nd.Kind = append(nd.Kind, 0)
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, class)
		x.Stack = append(x.Stack, stack)
		var flags uint8
		if fo.Tags {
			nd.ID.Append(addrs[i])
			nd.SelfSize.Append(sizes[i])
			x.Count.Append(1)
			flags |= fuchsiair.FlagAddress
			if !g.chance(6) {
				flags |= fuchsiair.FlagBytes
			}
		} else {
			c := uint64(1 + g.intn(20))
			if g.chance(10) {
				c = uint64(g.r.Uint32())
			}
			nd.ID.Append(0)
			nd.SelfSize.Append(c * uint64(8+8*g.intn(64)))
			x.Count.Append(c)
		}
		if hasTS {
			ts := g.r.Int64N(1 << 50)
			if g.chance(6) {
				ts = 0 // no timestamp label
			} else {
				flags |= fuchsiair.FlagTimestamp
				if g.chance(8) {
					ts = g.signed()
				}
			}
			x.Timestamp = append(x.Timestamp, ts)
		}
		if hasThread {
			x.Thread = append(x.Thread, uint32(g.intn(len(x.ThreadName)+1)))
		}
		for j := 0; j < extra; j++ {
			x.ExtraValues = append(x.ExtraValues, g.signed())
		}
		if hasLabels {
			for j := g.intn(3); j > 0; j-- {
				x.LabelKey = append(x.LabelKey, g.intern([]string{"tag", "owner", "address", "bytes", g.str()}[g.intn(5)]))
				if g.chance(2) {
					x.LabelNumeric = append(x.LabelNumeric, true)
					x.LabelStr = append(x.LabelStr, 0)
					x.LabelNum = append(x.LabelNum, g.signed())
					x.LabelUnit = append(x.LabelUnit, g.intern([]string{"", "bytes", "nanoseconds", g.str()}[g.intn(4)]))
				} else {
					x.LabelNumeric = append(x.LabelNumeric, false)
					x.LabelStr = append(x.LabelStr, g.intern(g.str()))
					x.LabelNum = append(x.LabelNum, 0)
					x.LabelUnit = append(x.LabelUnit, 0)
				}
			}
			x.LabelFirst = append(x.LabelFirst, uint32(len(x.LabelKey)))
		}
		if hasContents {
			if !g.chance(5) {
				flags |= fuchsiair.FlagContents
				x.Contents = append(x.Contents, g.contents(sizes[i], addrs)...)
			}
			x.ContentsStart = append(x.ContentsStart, uint64(len(x.Contents)))
		}
		x.Flags = append(x.Flags, flags)
	}
	nd.FirstEdge = make([]uint32, n+1)
	if fo.DerivedEdges && hasContents && !g.chance(4) {
		g.derive(s)
	}
	return s
}

// contents returns a block's bytes: random words, pointers into the blocks
// at addrs (to their start, inside, tagged in the top byte) and zeros.
func (g *fuchsiaGen) contents(size uint64, addrs []uint64) []byte {
	b := make([]byte, size)
	for off := uint64(0); off+8 <= size; off += 8 {
		var w uint64
		switch g.intn(6) {
		case 0, 1:
			w = addrs[g.intn(len(addrs))]
			if g.chance(3) {
				w += 8
			}
			if g.chance(4) {
				w |= 0xb4 << 56 // a tagged pointer
			}
		case 2:
			w = g.r.Uint64()
		}
		binary.LittleEndian.PutUint64(b[off:], w)
	}
	for off := size &^ 7; off < size; off++ {
		b[off] = byte(g.intn(256))
	}
	return b
}

// derive scans the contents for pointers into other blocks, as
// readers/fuchsia does: every aligned word that, with its top byte
// cleared, points into another block is an edge named "+0x<offset>", and
// blocks nothing points to are the roots.
func (g *fuchsiaGen) derive(s *ir.Snapshot) {
	x := fuchsiair.Of(s)
	n := s.Nodes.Len()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return s.Nodes.ID.At(order[a]) < s.Nodes.ID.At(order[b]) })
	find := func(v uint64) int {
		k := sort.Search(n, func(j int) bool { return s.Nodes.ID.At(order[j]) > v }) - 1
		if k < 0 {
			return -1
		}
		i := order[k]
		start := s.Nodes.ID.At(i)
		if v >= start+max(s.Nodes.SelfSize.At(i), 1) {
			return -1
		}
		return i
	}
	ed := &s.Edges
	nd := &s.Nodes
	pointed := make([]bool, n)
	for i := 0; i < n; i++ {
		nd.FirstEdge[i] = uint32(ed.Len())
		b, ok := x.ContentsOf(i)
		if !ok {
			continue
		}
		for off := 0; off+8 <= len(b); off += 8 {
			v := binary.LittleEndian.Uint64(b[off:]) &^ (0xff << 56)
			t := find(v)
			if t < 0 || t == i {
				continue
			}
			kind := uint8(fuchsiair.Pointer)
			if v != nd.ID.At(t) {
				kind = fuchsiair.Interior
			}
			ed.Kind = append(ed.Kind, kind)
			ed.Name = append(ed.Name, g.intern(fmt.Sprintf("+0x%x", off)))
			ed.Target = append(ed.Target, uint32(t))
			pointed[t] = true
		}
	}
	nd.FirstEdge[n] = uint32(ed.Len())
	x.DerivedEdges = true
	for i := 0; i < n; i++ {
		if !pointed[i] {
			s.Roots = append(s.Roots, ir.RootRef{Node: uint32(i), Category: nd.Name[i]})
		}
	}
}

// blocks makes n block sizes and non-overlapping 16-aligned addresses, in
// address order, at least minGap 16-byte granules apart.
func (g *gen) blocks(n, minGap int) (sizes, addrs []uint64) {
	sizes = make([]uint64, n)
	addrs = make([]uint64, n)
	addr := uint64(0x4000_0000_0000) + uint64(g.intn(1<<20))<<4
	for i := range sizes {
		sizes[i] = uint64(g.intn(24)) * 8
		if g.chance(5) {
			sizes[i] = uint64(1 + g.intn(100))
		}
		addrs[i] = addr
		addr += (sizes[i]+15)&^15 + uint64(minGap+g.intn(4))*16
	}
	return sizes, addrs
}
