package fuchsia

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// WriteFIDL writes f as a heapdump FIDL element stream: the SnapshotElement
// batches a collector sends, in the container file internal/fidl defines.
//
// IR read from a FIDL stream (every snapshot has a fuchsiair.Snapshot.Stream)
// is written element for element: the same elements with the same fields,
// in the same order, batches and chunks, so that a stream read and written
// again is byte-identical. Other Fuchsia IR (read from a profile) is
// written as the collector would send it (fidl.Emit's order and chunking),
// one process per snapshot; other IR is converted first (Convert), its
// classes in regions that name them. The loss report says what the stream
// cannot hold: functions above all, so the blocks whose allocation site a
// function named are read back in another class, and stacks with frames a
// function named are read back with frames named by module and offset
// (counted exactly, in objects, from what the reader makes of the
// addresses: streamRead).
func WriteFIDL(w io.Writer, f *ir.File) (ir.LossReport, error) {
	f, loss, err := prepare(f, fuchsiair.FormatFIDL, "a FIDL stream")
	if err != nil {
		return loss, err
	}
	if len(f.Snapshots) == 0 {
		return loss, fmt.Errorf("%s: the file has no snapshots", fuchsiair.FormatFIDL)
	}
	if fuchsiair.Of(f.Snapshots[0]).Stream != nil {
		err = replay(w, f) // Validate saw to it that all snapshots have one
	} else {
		err = emit(w, f, &loss)
	}
	return loss, err
}

// replay writes the elements a stream-read IR describes.
func replay(w io.Writer, f *ir.File) error {
	multi := fuchsiair.Of(f.Snapshots[0]).HasProcessName
	wr, err := fidl.NewWriter(w, multi)
	if err != nil {
		return err
	}
	var e fidl.Element
	for _, s := range f.Snapshots {
		r := newReplayer(f, s)
		if multi {
			fs := fuchsiair.Of(s)
			e = fidl.Element{Kind: fidl.KindSnapshotHeader, SnapshotHeader: fidl.SnapshotHeader{
				ProcessName: f.Strings[fs.ProcessName], ProcessKoid: uint64(fs.ProcessKoid)}}
			e.SnapshotHeader.Present.Set(fidl.SnapshotHeaderProcessName)
			e.SnapshotHeader.Present.Set(fidl.SnapshotHeaderProcessKoid)
			e.SnapshotHeader.Unknown = r.headerUnknown()
			if err := wr.WriteElement(&e); err != nil {
				return err
			}
			if err := wr.EndBatch(); err != nil {
				return err
			}
		}
		for i, kind := range r.x.Records {
			if kind == fuchsiair.RecordEndOfBatch {
				err = wr.EndBatch()
			} else {
				r.element(uint32(i), kind, &e)
				err = wr.WriteElement(&e)
			}
			if err != nil {
				return err
			}
		}
		if err := wr.EndBatch(); err != nil { // the empty batch that ends the snapshot
			return err
		}
	}
	if multi {
		if err := wr.EndBatch(); err != nil {
			return err
		}
	}
	return wr.Close()
}

// replayer walks one snapshot's records, with a cursor per element kind.
type replayer struct {
	f  *ir.File
	s  *ir.Snapshot
	fs *fuchsiair.Snapshot
	x  *fuchsiair.Stream

	alloc, stackChunk, thread, region, contentsChunk, orphan, unknownAt int
	stackDone                                                           []uint32 // per stack: addresses written
	contentsDone                                                        []uint64 // per node: bytes written
	orphanAt                                                            int      // bytes of OrphanContents written
	pcs                                                                 []uint64
}

func newReplayer(f *ir.File, s *ir.Snapshot) *replayer {
	fs := fuchsiair.Of(s)
	return &replayer{f: f, s: s, fs: fs, x: fs.Stream,
		stackDone: make([]uint32, fs.Stacks()), contentsDone: make([]uint64, s.Nodes.Len())}
}

// unknown returns the unknown fields of record rec (they are sorted by
// record, and records are visited in order).
func (r *replayer) unknown(rec uint32) []fidl.RawField {
	x := r.x
	var out []fidl.RawField
	for ; r.unknownAt < len(x.UnknownRecord) && x.UnknownRecord[r.unknownAt] == rec; r.unknownAt++ {
		k := r.unknownAt
		b := x.UnknownBytes[x.UnknownFirst[k]:x.UnknownFirst[k+1]]
		out = append(out, fidl.RawField{Ordinal: x.UnknownOrdinal[k], Inline: len(b) == 4, Bytes: b})
	}
	return out
}

// headerUnknown returns the SnapshotHeader's unknown fields: they sort
// last (FuchsiaHeaderRecord), after those of the records.
func (r *replayer) headerUnknown() []fidl.RawField {
	x := r.x
	k := len(x.UnknownRecord)
	for k > 0 && x.UnknownRecord[k-1] == fuchsiair.HeaderRecord {
		k--
	}
	var out []fidl.RawField
	for ; k < len(x.UnknownRecord); k++ {
		b := x.UnknownBytes[x.UnknownFirst[k]:x.UnknownFirst[k+1]]
		out = append(out, fidl.RawField{Ordinal: x.UnknownOrdinal[k], Inline: len(b) == 4, Bytes: b})
	}
	return out
}

// element fills e with the element of record i.
func (r *replayer) element(i uint32, kind uint8, e *fidl.Element) {
	f, s, fs, x := r.f, r.s, r.fs, r.x
	unknown := r.unknown(i)
	switch kind {
	case fuchsiair.RecordAllocation:
		n := r.alloc
		r.alloc++
		af := x.AllocFields[n]
		a := fidl.Allocation{Present: fidl.Fields(af), Size: s.Nodes.SelfSize.At(n),
			StackTraceKey: x.StackKey[fs.Stack[n]], Unknown: unknown}
		if af&fuchsiair.AllocAddress != 0 {
			a.Address = s.Nodes.ID.At(n)
		}
		if af&fuchsiair.AllocTimestamp != 0 {
			a.Timestamp = fs.Timestamp[n]
		}
		if af&fuchsiair.AllocThreadKey != 0 {
			a.ThreadInfoKey = x.ThreadKey[fs.Thread[n]-1]
		}
		if af&fuchsiair.AllocCount != 0 {
			a.Count = fs.Count.At(n)
		}
		*e = fidl.Element{Kind: fidl.KindAllocation, Allocation: a}
	case fuchsiair.RecordStackTrace:
		c := r.stackChunk
		r.stackChunk++
		k := x.StackChunkStack[c]
		locs := fs.StackOf(int(k))
		from := r.stackDone[k]
		to := from + x.StackChunkSize[c]
		r.stackDone[k] = to
		r.pcs = r.pcs[:0]
		for _, l := range locs[from:to] {
			r.pcs = append(r.pcs, fuchsiair.FileOf(f).Locations.Address[l])
		}
		t := fidl.StackTrace{Key: x.StackKey[k], ProgramAddresses: r.pcs, Unknown: unknown}
		t.Present.Set(fidl.StackTraceKey)
		t.Present.Set(fidl.StackTraceProgramAddresses)
		*e = fidl.Element{Kind: fidl.KindStackTrace, StackTrace: t}
	case fuchsiair.RecordThread:
		t := r.thread
		r.thread++
		ti := fidl.ThreadInfo{Key: x.ThreadKey[t], Koid: fs.ThreadKoid[t], Name: f.Strings[fs.ThreadName[t]], Unknown: unknown}
		ti.Present.Set(fidl.ThreadInfoKey)
		ti.Present.Set(fidl.ThreadInfoKoid)
		ti.Present.Set(fidl.ThreadInfoName)
		*e = fidl.Element{Kind: fidl.KindThreadInfo, ThreadInfo: ti}
	case fuchsiair.RecordRegion:
		g := r.region
		r.region++
		mp := &fuchsiair.FileOf(f).Mappings
		m := x.RegionMapping[g]
		id, _ := hex.DecodeString(f.Strings[mp.BuildID[m]]) // validated hex
		reg := fidl.ExecutableRegion{Present: fidl.Fields(x.RegionFields[g]), Address: mp.Start[m],
			Size: mp.Limit[m] - mp.Start[m], FileOffset: mp.Offset[m], BuildID: fidl.BuildID{Value: id},
			Vaddr: x.RegionVaddr[g], Unknown: unknown}
		if reg.Present.Has(fidl.RegionName) {
			reg.Name = f.Strings[mp.File[m]]
		}
		*e = fidl.Element{Kind: fidl.KindExecutableRegion, ExecutableRegion: reg}
	case fuchsiair.RecordContents:
		c := r.contentsChunk
		r.contentsChunk++
		size := uint64(x.ContentsChunkSize[c])
		var b fidl.BlockContents
		if node := x.ContentsChunkNode[c]; node == fuchsiair.OrphanChunk {
			b.Address = x.OrphanAddress[r.orphan]
			b.Contents = x.OrphanContents[r.orphanAt : r.orphanAt+int(size)]
			r.orphan++
			r.orphanAt += int(size)
		} else {
			data, _ := fs.ContentsOf(int(node))
			from := r.contentsDone[node]
			b.Address = s.Nodes.ID.At(int(node))
			b.Contents = data[from : from+size]
			r.contentsDone[node] = from + size
		}
		b.Unknown = unknown
		b.Present.Set(fidl.BlockContentsAddress)
		b.Present.Set(fidl.BlockContentsContents)
		*e = fidl.Element{Kind: fidl.KindBlockContents, BlockContents: b}
	}
}

// emit writes profile-shaped Fuchsia IR as the collector would stream it.
func emit(w io.Writer, f *ir.File, loss *ir.LossReport) error {
	ff := fuchsiair.FileOf(f)
	multi := len(f.Snapshots) > 1
	for _, s := range f.Snapshots {
		if fuchsiair.Of(s).HasProcessName || fuchsiair.Of(s).HasProcessKoid {
			multi = true
		}
	}
	var truncated, invalidUTF8, badBuildID, dupRegion, dupAddress, noAddressContents, synthetic int
	text := func(s string, limit int) string {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
			invalidUTF8++
		}
		if len(s) > limit {
			cut := limit
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut]
			truncated++
		}
		return s
	}
	lc, mp := &ff.Locations, &ff.Mappings
	// Class mappings carry a converted heap's classes (their functions are
	// read back from them); any other location's functions are lost.
	isClass := make([]bool, mp.Len())
	for m := range isClass {
		_, _, isClass[m] = mp.ClassOf(m, f.Strings)
	}
	lostFn := make([]bool, ff.Functions.Len())
	for l := range lc.Len() {
		if m := lc.Mapping[l]; m != 0 && isClass[m-1] {
			continue
		}
		for _, fi := range lc.Function[lc.FirstLine[l]:lc.FirstLine[l+1]] {
			lostFn[fi-1] = true
		}
	}
	pcOf := func(l uint32) uint64 {
		if a := lc.Address[l]; a != 0 || lc.FirstLine[l] == lc.FirstLine[l+1] {
			return a
		}
		// A location known only by its function (a converted graph
		// heap's class): the stream has raw addresses only.
		synthetic++
		return 0x1000 + 16*uint64(l)
	}
	var procs []fidl.Process
	sent, nsent := make([]bool, ff.Mappings.Len()), 0 // mappings sent as some process's region
	for _, s := range f.Snapshots {
		fs := fuchsiair.Of(s)
		p := fidl.Process{Koid: uint64(fs.ProcessKoid)}
		if fs.HasProcessName {
			p.Name = text(f.Strings[fs.ProcessName], fidl.MaxNameLength)
		}
		// Regions: the mappings the snapshot's stacks use (all of them for
		// a single snapshot: ffx gives each process its own).
		use := make([]bool, ff.Mappings.Len())
		if len(f.Snapshots) == 1 {
			for i := range use {
				use[i] = true
			}
		} else {
			for _, l := range fs.StackLocation {
				if m := lc.Mapping[l]; m != 0 {
					use[m-1] = true
				}
			}
		}
		for m, u := range use {
			if u && !sent[m] {
				sent[m] = true
				nsent++
			}
		}
		starts := map[uint64]bool{}
		for m, u := range use {
			if !u {
				continue
			}
			if starts[mp.Start[m]] {
				dupRegion++
				continue
			}
			starts[mp.Start[m]] = true
			id, err := hex.DecodeString(f.Strings[mp.BuildID[m]])
			if err != nil || len(id) > fidl.MaxBuildIDLength {
				badBuildID++
				id = nil
			}
			g := fidl.ExecutableRegion{Address: mp.Start[m], Size: mp.Limit[m] - mp.Start[m], FileOffset: mp.Offset[m], BuildID: fidl.BuildID{Value: id}}
			for _, o := range []int{fidl.RegionAddress, fidl.RegionSize, fidl.RegionFileOffset, fidl.RegionBuildID} {
				g.Present.Set(o)
			}
			if name, lib, ok := mp.ClassOf(m, f.Strings); ok && (!utf8.ValidString(name) || !utf8.ValidString(lib)) {
				// Made valid part by part, so that the offset still
				// parts the name from the library; one name counted.
				bad := invalidUTF8
				g.Name, g.FileOffset = fuchsiair.ClassModule(text(name, 1<<30), text(lib, 1<<30))
				invalidUTF8 = bad + 1
				g.Present.Set(fidl.RegionName)
			} else if name := f.Strings[mp.File[m]]; name != "" {
				g.Name = text(name, 1<<30)
				g.Present.Set(fidl.RegionName)
			}
			p.Regions = append(p.Regions, g)
		}
		for k := 0; k < fs.Stacks(); k++ {
			locs := fs.StackOf(k)
			pcs := make([]uint64, len(locs))
			for j, l := range locs {
				pcs[j] = pcOf(l)
			}
			t := fidl.StackTrace{Key: uint64(k + 1), ProgramAddresses: pcs}
			t.Present.Set(fidl.StackTraceKey)
			t.Present.Set(fidl.StackTraceProgramAddresses)
			p.StackTraces = append(p.StackTraces, t)
		}
		for t := range fs.ThreadName {
			ti := fidl.ThreadInfo{Key: uint64(t + 1), Koid: fs.ThreadKoid[t], Name: text(f.Strings[fs.ThreadName[t]], fidl.MaxNameLength)}
			ti.Present.Set(fidl.ThreadInfoKey)
			ti.Present.Set(fidl.ThreadInfoKoid)
			ti.Present.Set(fidl.ThreadInfoName)
			p.Threads = append(p.Threads, ti)
		}
		addrs := map[uint64]bool{}
		for i := 0; i < s.Nodes.Len(); i++ {
			fl := fs.Flags[i]
			a := fidl.Allocation{Size: s.Nodes.SelfSize.At(i), StackTraceKey: uint64(fs.Stack[i] + 1)}
			a.Present.Set(fidl.AllocationSize)
			a.Present.Set(fidl.AllocationStackTraceKey)
			hasAddr := false
			if fl&fuchsiair.FlagAddress != 0 {
				if addr := s.Nodes.ID.At(i); addrs[addr] {
					dupAddress++
				} else {
					addrs[addr] = true
					a.Address = addr
					a.Present.Set(fidl.AllocationAddress)
					hasAddr = true
				}
			}
			if fl&fuchsiair.FlagTimestamp != 0 {
				a.Timestamp = fs.Timestamp[i]
				a.Present.Set(fidl.AllocationTimestamp)
			}
			if len(fs.Thread) > 0 && fs.Thread[i] != 0 {
				a.ThreadInfoKey = uint64(fs.Thread[i])
				a.Present.Set(fidl.AllocationThreadInfoKey)
			}
			if c := fs.Count.At(i); c != 1 {
				a.Count = c
				a.Present.Set(fidl.AllocationCount)
			}
			p.Allocations = append(p.Allocations, a)
			if data, ok := fs.ContentsOf(i); ok {
				if !hasAddr {
					noAddressContents++
					continue
				}
				b := fidl.BlockContents{Address: a.Address, Contents: data}
				b.Present.Set(fidl.BlockContentsAddress)
				b.Present.Set(fidl.BlockContentsContents)
				p.Contents = append(p.Contents, b)
			}
		}
		procs = append(procs, p)
	}
	st, err := fidl.Emit(procs, multi)
	if err != nil {
		return err
	}
	if _, err := st.WriteTo(w); err != nil {
		return err
	}

	// The reader names a stream's frames and allocation sites from program
	// addresses alone: a frame a function named is named by its module and
	// offset, a site a function named becomes another (and the heuristics
	// for unsymbolized stacks may move others). Counted in objects, a
	// sample of several allocations being that many (ir.ObjectCounts), as
	// are its roots.
	var restacked, moved, movedRoots uint64
	var restackedExample, movedExample string
	rf, rss := streamRead(f, procs)
	rff := fuchsiair.FileOf(rf)
	for k, s := range f.Snapshots {
		fs, rs := fuchsiair.Of(s), rss[k]
		was, will := stackNames(f, ff, fs), stackNames(rf, rff, fuchsiair.Of(rs))
		names := fuchsiair.SiteNames(rf, rs)
		objects := ir.ObjectCounts(s)
		rootsOf := make([]uint64, s.Nodes.Len())
		for _, r := range s.Roots {
			rootsOf[r.Node]++
		}
		for i := range s.Nodes.Len() {
			n := uint64(1)
			if objects != nil {
				n = objects(i)
			}
			if st := fs.Stack[i]; was[st] != will[st] {
				restacked = ir.SatAdd(restacked, n)
				if restackedExample == "" {
					restackedExample = fmt.Sprintf("%q becomes %q", was[st], will[st])
				}
			}
			if name := f.String(s.Nodes.Name[i]); name != names[i] {
				moved = ir.SatAdd(moved, n)
				if movedExample == "" {
					movedExample = fmt.Sprintf("%q becomes %q", name, names[i])
				}
				// A root's objects are roots of its category, its
				// name; the objects beyond the first of a block that is
				// none are roots named by it (ir.ExpandObjects).
				if rootsOf[i] > 0 {
					movedRoots = ir.SatAdd(movedRoots, rootsOf[i]*n)
				} else {
					movedRoots = ir.SatAdd(movedRoots, n-1)
				}
			}
		}
	}

	// What the stream cannot hold.
	if restacked > 0 {
		loss.Addf(ir.LossAllocationStacks, int64(restacked), "objects' allocation stacks are read back otherwise: a FIDL stream has raw program addresses only (symbolization is done on the host), so the %d functions and the locations' lines are not kept and frames are named by module and offset", count(lostFn)).
			WithExample(restackedExample)
	}
	if moved > 0 {
		// Kinds of what changes with a block's site: its class, its name
		// and, for a root, its category.
		loss.Add(ir.LossClasses, int64(moved), "objects are read back in another class: their allocation sites were named by functions, which a stream does not have, and are named from program addresses instead").WithExample(movedExample)
		loss.Add(ir.LossNodeNames, int64(moved), "objects are read back with another name (their allocation site, named from program addresses)").WithExample(movedExample)
		if movedRoots > 0 {
			loss.Add(ir.LossGCRoots, int64(movedRoots), "roots are read back in another category (their allocation site, named from program addresses)")
		}
	}
	if synthetic > 0 {
		loss.Add("synthetic-addresses", int64(synthetic), "frames known only by their function get synthetic program addresses (0x1000 + 16 × location index)")
	}
	made := 0 // heapconv's mappings, which no symbolizer needs
	for m := range mp.Len() {
		if mp.Made(m, f.Strings) {
			made++
		}
	}
	if made < mp.Len() {
		loss.Add("fuchsia-vaddr", 0, "the regions' vaddr is unknown (pprof has none) and not sent; symbolizing needs it")
	}
	if unused := ff.Mappings.Len() - nsent; unused > 0 {
		loss.Add(fuchsiair.LossBuildIDs, int64(unused), "mappings no process's stacks use are not sent, with their build ids (a stream's regions belong to a process)")
	}
	labels, captured := 0, 0
	const stream = "a FIDL stream"
	for _, s := range f.Snapshots {
		labels += len(fuchsiair.Of(s).LabelKey)
		loss.Merge(fuchsiair.Of(s).SampleValuesLoss(f, stream))
		if s.CaptureTime != 0 {
			captured++
		}
	}
	if labels > 0 {
		loss.Add(fuchsiair.LossLabels, int64(labels), "sample labels other than ffx's are not kept")
	}
	loss.Merge(ff.ProfileLoss(f, stream))
	if captured > 0 {
		// The profile's time, which the reader took for the capture time.
		loss.Add(ir.LossCaptureTime, int64(captured), "capture times have no place in a FIDL stream")
	}
	for _, c := range []struct {
		n          int
		kind, what string
	}{
		{truncated, ir.LossTruncatedNames, "names longer than the stream's bound (32 bytes for threads and processes) are truncated"},
		{invalidUTF8, "invalid-utf8", "names that are not UTF-8 have their bad bytes replaced with U+FFFD"},
		{badBuildID, fuchsiair.LossBuildIDs, "build ids that are not the hex of at most 32 bytes are sent empty"},
		{dupRegion, "fuchsia-regions", "regions starting where another of the same process starts are dropped (the receiver rejects them)"},
		// An allocation's address is its node id.
		{dupAddress, ir.LossNodeIDs, "allocations at the address of an earlier one are sent without an address (the receiver rejects duplicates)"},
		{noAddressContents, fuchsiair.LossContents, "block contents of allocations sent without an address are dropped"},
	} {
		if c.n > 0 {
			loss.Add(c.kind, int64(c.n), c.what)
		}
	}
	return nil
}

// count returns how many of bs are true.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
