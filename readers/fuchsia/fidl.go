package fuchsia

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// IsFIDL reports whether head, the first bytes of a file, starts a heapdump
// FIDL element stream container (internal/fidl's package doc defines it).
func IsFIDL(head []byte) bool { return fidl.IsContainer(head) }

// ReadFIDL reads a heapdump FIDL element stream — the SnapshotElement
// batches a collector sends, in the container file internal/fidl defines —
// into the IR. Options.Size is the input's size when known (0 otherwise):
// record lengths are believed only when the bytes left can hold them.
//
// The stream is reassembled by the receive rules of Fuchsia's
// heapdump_snapshot crate (a violation is an error naming the offset of the
// record at fault), then mapped as ffx maps it into a profile with
// --with-tags (ir/fuchsia/section.go); what the profile cannot hold (keys, the
// fields sent, region vaddrs, chunks, batches, unknown fields) goes into
// fuchsiair.Snapshot.Stream, so that writing the stream again reproduces it
// element for element. The block contents are the stream's own:
// Options.ContentsDir and Options.Contents must not be set.
// Options.ScanPointers derives edges from them as for a profile.
func ReadFIDL(r io.Reader, opts Options) (*ir.File, error) {
	if opts.ContentsDir != "" || opts.Contents != nil {
		return nil, fmt.Errorf("%s: a FIDL element stream carries its block contents; a contents directory is for pprof profiles", fuchsiair.FormatFIDL)
	}
	st, err := fidl.ReadStream(r, opts.Size)
	if err != nil {
		return nil, err
	}
	snaps, err := st.Reassemble()
	if err != nil {
		return nil, err
	}
	if len(snaps) == 0 {
		return nil, ir.Errorf(fuchsiair.FormatFIDL, fidl.HeaderSize, "the multi-process stream holds no process")
	}
	b := newFIDLBuilder(st)
	for i := range snaps {
		b.snapshot(&snaps[i])
	}
	f := b.d.f
	b.d.symbolizeClasses()
	contents := 0
	for _, sb := range b.d.snaps {
		b.d.finish(sb)
		f.Snapshots = append(f.Snapshots, sb.s)
		for _, fl := range sb.fs.Flags {
			if fl&fuchsiair.FlagContents != 0 {
				contents++
			}
		}
	}
	f.Strings = b.d.strs.Strings // with the site names finish interned
	edges, err := deriveEdges(f, opts.ScanPointers)
	if err != nil {
		return nil, err
	}
	v := "FIDL element stream, single-process"
	if st.MultiProcess {
		v = "FIDL element stream, " + processes(len(f.Snapshots))
	}
	if contents > 0 {
		if contents == 1 {
			v += ", with the contents of 1 block"
		} else {
			v += fmt.Sprintf(", with the contents of %d blocks", contents)
		}
	}
	if opts.ScanPointers {
		v += fmt.Sprintf(", %d edges derived by scanning the contents for pointers (heuristic: integers that look like addresses count too)", edges)
	}
	f.FormatVersion = v
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: the IR read is invalid: %w", fuchsiair.FormatFIDL, err)
	}
	return f, nil
}

// fidlBuilder turns reassembled snapshots into IR, sharing the profile
// reader's site naming (decoder.finish).
type fidlBuilder struct {
	st *fidl.Stream
	d  *decoder
}

func newFIDLBuilder(st *fidl.Stream) *fidlBuilder {
	d := &decoder{strs: ir.NewInterner(nil)}
	d.f = &ir.File{Format: fuchsiair.FormatFIDL, Producer: "fuchsia.memory.heapdump.client collector"}
	d.ff = &fuchsiair.File{}
	d.f.SetSection(d.ff)
	d.internString("")
	// The sample types ffx writes, interned in its order.
	d.ff.SampleTypes = []fuchsiair.ValueType{
		{Type: d.internString(fuchsiair.ObjectsType), Unit: d.internString(fuchsiair.CountUnit)},
		{Type: d.internString(fuchsiair.AllocatedType), Unit: d.internString(fuchsiair.BytesUnit)},
	}
	return &fidlBuilder{st: st, d: d}
}

// snapshot adds one reassembled process.
func (b *fidlBuilder) snapshot(sn *fidl.Snapshot) {
	st, d := b.st, b.d
	s := &ir.Snapshot{Root: ir.NoNode, NodeKinds: append([]string(nil), fuchsiair.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), fuchsiair.EdgeKinds...)}
	fs := &fuchsiair.Snapshot{StackFirst: []uint32{0}}
	x := &fuchsiair.Stream{}
	fs.Stream = x
	s.SetSection(fs)
	if sn.Header >= 0 {
		h := &st.SnapshotHeaders[sn.Header]
		fs.HasProcessName, fs.HasProcessKoid = true, true
		fs.ProcessName = d.internString(h.ProcessName)
		fs.ProcessKoid = int64(h.ProcessKoid)
		s.Name = fs.ProcessName
	}

	// Mappings: the regions sorted by start address (sn.Regions is), ids
	// going on across processes.
	ff := d.ff
	mp := &ff.Mappings
	firstMapping := mp.Len()
	mappingOf := make(map[int]uint32, len(sn.Regions)) // region element -> mapping
	for _, ri := range sn.Regions {
		g := &st.ExecutableRegions[ri]
		mappingOf[ri] = uint32(mp.Len())
		mp.Append(g.Address, g.Address+g.Size, g.FileOffset, d.internString(g.Name), d.internString(hex.EncodeToString(g.BuildID.Value)), 0)
	}

	// Nodes: one per Allocation, in arrival order.
	n := len(sn.Allocations)
	nodeAt := make(map[uint64]uint32, n)
	for i, ai := range sn.Allocations {
		if a := &st.Allocations[ai]; a.Present.Has(fidl.AllocationAddress) {
			nodeAt[a.Address] = uint32(i)
		}
	}

	// The records: kinds, stack and thread tables in arrival order, chunks.
	stackOf := map[uint64]uint32{} // key -> stack index
	threadOf := map[uint64]uint32{}
	var stacks [][]uint64
	contentsTotal := 0
	for ri := sn.Start; ri < sn.End; ri++ {
		r := st.Records[ri]
		var unknown []fidl.RawField
		switch r.Kind {
		case fidl.KindEndOfBatch:
			x.Records = append(x.Records, fuchsiair.RecordEndOfBatch)
			continue
		case fidl.KindAllocation:
			unknown = st.Allocations[r.Index].Unknown
		case fidl.KindStackTrace:
			t := &st.StackTraces[r.Index]
			unknown = t.Unknown
			k, ok := stackOf[t.Key]
			if !ok {
				k = uint32(len(stacks))
				stackOf[t.Key] = k
				stacks = append(stacks, sn.StackTraces[t.Key])
				x.StackKey = append(x.StackKey, t.Key)
			}
			x.StackChunkStack = append(x.StackChunkStack, k)
			x.StackChunkSize = append(x.StackChunkSize, uint32(len(t.ProgramAddresses)))
		case fidl.KindThreadInfo:
			t := &st.ThreadInfos[r.Index]
			unknown = t.Unknown
			threadOf[t.Key] = uint32(len(fs.ThreadName) + 1)
			fs.ThreadName = append(fs.ThreadName, d.internString(t.Name))
			fs.ThreadKoid = append(fs.ThreadKoid, t.Koid)
			fs.ThreadBare = append(fs.ThreadBare, false)
			x.ThreadKey = append(x.ThreadKey, t.Key)
		case fidl.KindExecutableRegion:
			g := &st.ExecutableRegions[r.Index]
			unknown = g.Unknown
			x.RegionMapping = append(x.RegionMapping, mappingOf[int(r.Index)])
			x.RegionFields = append(x.RegionFields, uint8(g.Present))
			x.RegionVaddr = append(x.RegionVaddr, g.Vaddr)
		case fidl.KindBlockContents:
			c := &st.BlockContents[r.Index]
			unknown = c.Unknown
			// Contents are kept exactly when an allocation has their
			// address (Reassemble checked the sizes).
			node, ok := nodeAt[c.Address]
			if ok {
				contentsTotal += len(c.Contents)
			} else {
				node = fuchsiair.OrphanChunk
				x.OrphanAddress = append(x.OrphanAddress, c.Address)
				x.OrphanContents = append(x.OrphanContents, c.Contents...)
			}
			x.ContentsChunkNode = append(x.ContentsChunkNode, node)
			x.ContentsChunkSize = append(x.ContentsChunkSize, uint32(len(c.Contents)))
		}
		b.addUnknown(x, uint32(len(x.Records)), unknown)
		x.Records = append(x.Records, uint8(r.Kind))
	}
	if sn.Header >= 0 {
		b.addUnknown(x, fuchsiair.HeaderRecord, st.SnapshotHeaders[sn.Header].Unknown)
	}

	// Locations: one per distinct program address of the process, first
	// seen over the allocations' stacks, then over the other stacks.
	lc := &ff.Locations
	locOf := map[uint64]uint32{}
	stackLocs := make([][]uint32, len(stacks))
	addStack := func(k uint32) {
		if stackLocs[k] != nil {
			return
		}
		ls := make([]uint32, len(stacks[k]))
		for j, pc := range stacks[k] {
			l, ok := locOf[pc]
			if !ok {
				l = lc.Append(mp.Holding(firstMapping, pc), pc)
				locOf[pc] = l
			}
			ls[j] = l
		}
		stackLocs[k] = ls
	}
	for _, ai := range sn.Allocations {
		addStack(stackOf[st.Allocations[ai].StackTraceKey])
	}
	for k := range stacks {
		addStack(uint32(k))
	}
	for _, ls := range stackLocs {
		fs.StackLocation = append(fs.StackLocation, ls...)
		fs.StackFirst = append(fs.StackFirst, uint32(len(fs.StackLocation)))
	}

	// The node columns.
	nd := &s.Nodes
	nd.Kind = make([]uint8, n)
	nd.ID.Reserve(n)
	nd.SelfSize.Reserve(n)
	fs.Count.Reserve(n)
	fs.Flags = make([]uint8, n)
	fs.Stack = make([]uint32, n)
	x.AllocFields = make([]uint8, n)
	var contentsStart []uint64
	var contents []byte
	for i, ai := range sn.Allocations {
		a := &st.Allocations[ai]
		x.AllocFields[i] = uint8(a.Present)
		fl := uint8(fuchsiair.FlagBytes)
		id := uint64(0)
		if a.Present.Has(fidl.AllocationAddress) {
			fl |= fuchsiair.FlagAddress
			id = a.Address
		}
		nd.ID.Append(id)
		nd.SelfSize.Append(a.Size)
		fs.Count.Append(a.CountOrDefault())
		fs.Stack[i] = stackOf[a.StackTraceKey]
		if a.Present.Has(fidl.AllocationTimestamp) {
			if fs.Timestamp == nil {
				fs.Timestamp = make([]int64, n)
			}
			fs.Timestamp[i] = a.Timestamp
			fl |= fuchsiair.FlagTimestamp
		}
		if a.Present.Has(fidl.AllocationThreadInfoKey) {
			if fs.Thread == nil {
				fs.Thread = make([]uint32, n)
			}
			fs.Thread[i] = threadOf[a.ThreadInfoKey]
		}
		if fl&fuchsiair.FlagAddress != 0 {
			if data, ok := sn.Contents[a.Address]; ok {
				if contentsStart == nil {
					contentsStart = make([]uint64, i+1, n+1)
					contents = make([]byte, 0, contentsTotal)
				}
				fl |= fuchsiair.FlagContents
				contents = append(contents, data...)
			}
		}
		if contentsStart != nil {
			contentsStart = append(contentsStart, uint64(len(contents)))
		}
		fs.Flags[i] = fl
	}
	if len(contentsStart) > 0 {
		fs.ContentsStart, fs.Contents = contentsStart, contents
	}
	nd.ID.Trim()
	nd.SelfSize.Trim()
	fs.Count.Trim()
	d.snaps = append(d.snaps, &snapBuilder{s: s, fs: fs})
}

// addUnknown records the unknown fields of the element that is record r.
func (b *fidlBuilder) addUnknown(x *fuchsiair.Stream, r uint32, fields []fidl.RawField) {
	for _, u := range fields {
		if x.UnknownFirst == nil {
			x.UnknownFirst = []uint32{0}
		}
		x.UnknownRecord = append(x.UnknownRecord, r)
		x.UnknownOrdinal = append(x.UnknownOrdinal, u.Ordinal)
		x.UnknownBytes = append(x.UnknownBytes, u.Bytes...)
		x.UnknownFirst = append(x.UnknownFirst, uint32(len(x.UnknownBytes)))
	}
}

// symbolizeClasses gives every location in a class mapping
// (fuchsiair.ClassBuildID) one line, whose function is named by the class,
// as in the profile heapconv converts a graph heap to: the stream carries
// the class in the region, having no functions. Other locations have no
// lines.
func (d *decoder) symbolizeClasses() {
	ff := d.ff
	lc, mp, fn := &ff.Locations, &ff.Mappings, &ff.Functions
	if lc.Len() == 0 {
		return
	}
	lc.FirstLine = make([]uint32, 1, lc.Len()+1)
	fnOf := map[string]uint32{} // class name -> 1 + function index
	for l := range lc.Len() {
		if m := lc.Mapping[l]; m != 0 {
			if name, _, ok := mp.ClassOf(int(m-1), d.strs.Strings); ok {
				fi, ok := fnOf[name]
				if !ok {
					fn.ID = append(fn.ID, uint64(fn.Len()+1))
					fn.Name = append(fn.Name, d.internString(name))
					fn.SystemName = append(fn.SystemName, 0)
					fn.Filename = append(fn.Filename, 0)
					fn.StartLine = append(fn.StartLine, 0)
					fi = uint32(fn.Len())
					fnOf[name] = fi
				}
				lc.Function = append(lc.Function, fi)
				lc.Line = append(lc.Line, 0)
				lc.Column = append(lc.Column, 0)
			}
		}
		lc.FirstLine = append(lc.FirstLine, uint32(len(lc.Function)))
	}
}
