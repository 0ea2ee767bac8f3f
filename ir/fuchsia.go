package ir

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Fuchsia heapdump snapshots (the pprof profiles `ffx profile heapdump
// snapshot` and `download` write, gzipped or not, plus the optional
// --output-contents-dir directory; described in docs/formats/fuchsia.md)
// map into the common model like this:
//
//   - strings are interned into File.Strings (the profile's string table
//     is not kept as such: pprof gives it no meaning beyond the fields that
//     refer to it, and the address labels parsed into node ids are dropped);
//   - everything that is file-wide in a pprof Profile is FuchsiaFile: the
//     sample types, the other Profile scalars, and the mapping, location
//     and function tables with their pprof ids, in file order (ids are
//     file-wide even in a multi-process profile);
//   - a profile is one snapshot, or with ffx --multi-process one snapshot
//     per process (samples labelled process_name / process_koid), in order
//     of first appearance; Snapshot.Name is the process name;
//   - every Sample is a node of kind "native" (ir/fuchsia.NodeKinds): one
//     live block with --with-tags, or a stack-merged group of blocks
//     without (FuchsiaSnapshot.Count is value[0], the block count).
//     Nodes.ID is the block address (the "address" label; 0 without one),
//     Nodes.SelfSize is value[1] (the bytes);
//   - a node's class and name are its allocation site: the first frame of
//     its stack outside the allocator (ir/fuchsia.IsAllocatorFrame: the
//     hooks Fuchsia's dupefinder filters, AllocatorFrames, and Scudo's and
//     the C, C++ and Rust allocation functions), named by its function
//     when the profile is symbolized, else "0x<pc>". Raw program counters
//     cannot be recognized by name: for unsymbolized stacks the reader
//     skips, when the mappings are named, the hooks and the frames in
//     libc.so (Scudo, malloc), then the frames at least half of the
//     allocations taking the same path funnel through (operator new,
//     Rust's allocation shims); without names, the leading frames all the
//     stacks starting at the same program counter share. Both are
//     heuristics (ir/fuchsia/site.go). The class's Library is the
//     name of the mapping the frame lies in. A frame in a class mapping
//     (FuchsiaClassBuildID: what heapconv writes for the classes of a
//     converted graph heap) is the site before any other, named by the
//     class and library the mapping stands for, so that a FIDL stream,
//     which has no function names, keeps them. The full stack is kept in
//     the snapshot's stack table;
//   - the labels ffx writes (address, bytes, timestamp, thread and the
//     process labels) become columns and flags; any other label, or one of
//     these in a form ffx does not write, is kept as it is in the generic
//     label columns, so that writing the profile again is exact (pprof
//     label order is not kept: the Go library keeps labels in maps);
//   - block contents (the --output-contents-dir files, exactly size bytes
//     each) are FuchsiaSnapshot.Contents; unreadable blocks have none;
//   - pprof has no edges. When contents are scanned for pointers (a reader
//     option), every aligned 64-bit word that, with its top-byte tag
//     cleared, points into another live block of the same process becomes
//     an edge from the block holding it, named "+0x<word offset>": of kind
//     "internal" when it points at the block's start, "interior" when it
//     points inside it. Blocks no other block points to are the snapshot's
//     Roots, with their allocation site as category. These edges are
//     heuristic (FuchsiaSnapshot.DerivedEdges), and are not written back.
//
// The FIDL SnapshotElement stream (fuchsia.memory.heapdump.client, the
// "fuchsia-fidl" format) maps into the same sections the way ffx turns it
// into a profile with --with-tags (docs/formats/fuchsia.md): one node per
// Allocation; the regions as mappings, sorted by start address, ids going
// on across processes; one location per distinct program address of a
// process, in first-seen order over the allocations' stacks (then over the
// stacks no allocation names), those in a class region (FuchsiaClassBuildID)
// with one line whose function is named by the class, as in the profile
// the stream was converted from; threads as the thread table; process name
// and koid from the SnapshotHeader. What the stream has beyond that — keys,
// which fields were sent, region vaddrs, chunking, batches and unknown
// fields — is FuchsiaSnapshot.Stream, so that the stream can be written
// again element for element.

// Per-node flags (FuchsiaSnapshot.Flags).
const (
	// FuchsiaAddress: the sample has an "address" label (Nodes.ID).
	FuchsiaAddress = 1 << iota
	// FuchsiaBytes: the sample has a "bytes" label equal to value[1].
	FuchsiaBytes
	// FuchsiaTimestamp: the sample has a "timestamp" label (Timestamp).
	FuchsiaTimestamp
	// FuchsiaContents: the block's contents were read (Contents).
	FuchsiaContents
)

// Mapping flags (FuchsiaMappings.Flags): pprof's has_* booleans.
const (
	FuchsiaHasFunctions = 1 << iota
	FuchsiaHasFilenames
	FuchsiaHasLineNumbers
	FuchsiaHasInlineFrames
)

// FuchsiaValueType is a pprof ValueType: two string indices.
type FuchsiaValueType struct {
	Type, Unit uint32
}

// FuchsiaFile holds what is file-wide in a heapdump pprof profile.
type FuchsiaFile struct {
	// Gzip is true when the profile was gzip-compressed (the newest ffx).
	Gzip bool

	// SampleTypes are the profile's sample types: [objects/count,
	// allocated/bytes] from ffx. Every sample has one value per type: the
	// first is FuchsiaSnapshot.Count, the second Nodes.SelfSize, the
	// others FuchsiaSnapshot.ExtraValues.
	SampleTypes []FuchsiaValueType
	// The other Profile fields (ffx sets none of them). String fields are
	// string indices; 0 is "" (unset).
	DefaultSampleType uint32
	DropFrames        uint32
	KeepFrames        uint32
	DocURL            uint32
	Comments          []uint32
	TimeNanos         int64
	DurationNanos     int64
	PeriodType        FuchsiaValueType
	Period            int64

	Mappings  FuchsiaMappings
	Functions FuchsiaFunctions
	Locations FuchsiaLocations

	// SampleSnapshot, when not empty, gives for every sample in file order
	// the snapshot it belongs to: for profiles whose processes' samples are
	// interleaved. Empty when the samples are the snapshots' nodes in
	// snapshot order (as ffx writes them).
	SampleSnapshot []uint32
}

// FuchsiaMappings is the mapping table (one entry per executable segment
// with ffx), column by column, in file order.
type FuchsiaMappings struct {
	ID      []uint64
	Start   []uint64
	Limit   []uint64
	Offset  []uint64 // the ELF p_offset; fake for the kernel collector
	File    []uint32 // string index: the module name
	BuildID []uint32 // string index: the hex build id
	Flags   []uint8  // FuchsiaHas*
}

// Len returns the number of mappings.
func (m *FuchsiaMappings) Len() int { return len(m.ID) }

// FuchsiaFunctions is the function table (only with ffx --symbolize).
type FuchsiaFunctions struct {
	ID         []uint64
	Name       []uint32 // string index
	SystemName []uint32 // string index
	Filename   []uint32 // string index
	StartLine  []int64
}

// Len returns the number of functions.
func (f *FuchsiaFunctions) Len() int { return len(f.ID) }

// FuchsiaLocations is the location table: one raw program counter each,
// with its lines (inlined frames, innermost first) when symbolized. Location
// l's lines are [FirstLine[l], FirstLine[l+1]).
type FuchsiaLocations struct {
	ID      []uint64
	Mapping []uint32 // 1 + mapping index, or 0 for none
	Address []uint64
	Folded  []bool
	// FirstLine has Len()+1 entries (none when there are no locations).
	FirstLine []uint32
	Function  []uint32 // per line: 1 + function index, never 0
	Line      []int64
	Column    []int64
}

// Len returns the number of locations.
func (l *FuchsiaLocations) Len() int { return len(l.ID) }

// FuchsiaSnapshot holds what one process's part of a heapdump profile has
// beyond the common model. Per-node columns have one entry per node unless
// said otherwise.
type FuchsiaSnapshot struct {
	// The process labels of a --multi-process profile. Without them the
	// profile is single-process (and contents files have no koid prefix).
	HasProcessName bool
	HasProcessKoid bool
	ProcessName    uint32 // string index (also Snapshot.Name)
	ProcessKoid    int64

	// Count is value[0]: 1 per block with --with-tags (Allocation.count),
	// the number of blocks merged into a stack-merged sample.
	Count Uints
	// Flags are FuchsiaAddress, FuchsiaBytes, FuchsiaTimestamp and
	// FuchsiaContents.
	Flags []uint8
	// Timestamp is the "timestamp" label (ns of the monotonic clock) where
	// FuchsiaTimestamp is set; empty when no node has one.
	Timestamp []int64
	// Thread is 1 + an index into the thread table, or 0 for none; empty
	// when no node has a thread.
	Thread []uint32
	// Stack is each node's index into the stack table.
	Stack []uint32
	// ExtraValues holds the values beyond the first two, len(SampleTypes)-2
	// per node (empty for ffx's profiles).
	ExtraValues []int64

	// The thread table: one entry per distinct "thread" label. A label of
	// the form ffx writes, "name[koid]", is split; another (ThreadBare) is
	// kept whole in ThreadName.
	ThreadName []uint32 // string index
	ThreadKoid []uint64
	ThreadBare []bool

	// The stack table: stack k is StackLocation[StackFirst[k]:StackFirst[k+1]],
	// location indices (into FuchsiaFile.Locations), leaf first.
	StackFirst    []uint32
	StackLocation []uint32

	// Labels ffx does not write, by node: node i's are
	// [LabelFirst[i], LabelFirst[i+1]). LabelFirst is empty when no node
	// has any. A label is a string (LabelStr, a string index) unless
	// LabelNumeric, then LabelNum with unit LabelUnit (string index).
	LabelFirst   []uint32
	LabelKey     []uint32
	LabelNumeric []bool
	LabelStr     []uint32
	LabelNum     []int64
	LabelUnit    []uint32

	// Contents are the blocks' bytes: node i's are
	// Contents[ContentsStart[i]:ContentsStart[i+1]], exactly its size,
	// where FuchsiaContents is set. ContentsStart has one entry per node
	// plus one, or none when no block has contents.
	ContentsStart []uint64
	Contents      []byte

	// DerivedEdges is true when the edges were derived by scanning the
	// contents for pointers: heuristic, not part of the profile.
	DerivedEdges bool

	// Stream is set when the snapshot was read from a FIDL element stream:
	// what the stream holds beyond the profile. nil for pprof input.
	Stream *FuchsiaStream
}

// Record kinds of FuchsiaStream.Records: the SnapshotElement union
// ordinals of the elements a snapshot holds, and the end of a batch.
const (
	FuchsiaRecordAllocation = 1
	FuchsiaRecordStackTrace = 2
	FuchsiaRecordRegion     = 3
	FuchsiaRecordContents   = 4
	FuchsiaRecordThread     = 5
	FuchsiaRecordEndOfBatch = 0x80
)

// FuchsiaHeaderRecord in FuchsiaStream.UnknownRecord stands for the
// snapshot's SnapshotHeader (multi-process streams).
const FuchsiaHeaderRecord = math.MaxUint32

// FuchsiaOrphanChunk in FuchsiaStream.ContentsChunkNode marks a chunk of
// block contents that matches no allocation: the receiver drops it, the
// stream keeps it (OrphanAddress, OrphanContents).
const FuchsiaOrphanChunk = math.MaxUint32

// FIDL table field bits (bit n-1 for field ordinal n) of
// FuchsiaStream.AllocFields and RegionFields.
const (
	FuchsiaAllocAddress    = 1 << 0
	FuchsiaAllocSize       = 1 << 1
	FuchsiaAllocStackKey   = 1 << 2
	FuchsiaAllocTimestamp  = 1 << 3
	FuchsiaAllocThreadKey  = 1 << 4
	FuchsiaAllocCount      = 1 << 5
	FuchsiaRegionRequired  = 0xf // address, size, file_offset, build_id
	FuchsiaRegionVaddr     = 1 << 4
	FuchsiaRegionName      = 1 << 5
	fuchsiaAllocKnownMask  = 0x3f
	fuchsiaRegionKnownMask = 0x3f
)

// FuchsiaStream is what one process's part of a FIDL element stream holds
// beyond the profile: enough to write the same elements again in the same
// order, batches and chunks. The elements are those of the snapshot's data
// batches, Records, between the SnapshotHeader batch (multi-process) and
// the empty batch that ends the snapshot; those, and the stream's last
// empty batch, follow from the snapshots. The element values are the
// snapshot's: node i is the i-th Allocation, thread t the t-th ThreadInfo,
// and so on.
type FuchsiaStream struct {
	// Records are the snapshot's data records in stream order:
	// FuchsiaRecord* kinds. Every batch holds at least one element and
	// ends with FuchsiaRecordEndOfBatch.
	Records []uint8

	// AllocFields are, per node, the Allocation fields sent
	// (FuchsiaAlloc* bits). Without FuchsiaAllocCount the count is 1.
	AllocFields []uint8

	// StackKey is each stack's stack_trace_key; the stacks are in order of
	// their first chunk. The StackTrace chunks, in stream order, are
	// StackChunkStack (a stack index) with StackChunkSize addresses each.
	StackKey        []uint64
	StackChunkStack []uint32
	StackChunkSize  []uint32

	// ThreadKey is each thread's thread_info_key.
	ThreadKey []uint64

	// The ExecutableRegions in stream order: the mapping each became
	// (index into FuchsiaFile.Mappings; the build id is its hex string, the
	// name its File), the optional fields sent (FuchsiaRegionVaddr,
	// FuchsiaRegionName, plus FuchsiaRegionRequired), and vaddr (0 when
	// not sent). pprof has no vaddr.
	RegionMapping []uint32
	RegionFields  []uint8
	RegionVaddr   []uint64

	// The BlockContents chunks in stream order: the node whose contents
	// they continue, or FuchsiaOrphanChunk, and their size. Orphan chunks
	// take their addresses from OrphanAddress and their bytes from
	// OrphanContents, in order.
	ContentsChunkNode []uint32
	ContentsChunkSize []uint32
	OrphanAddress     []uint64
	OrphanContents    []byte

	// Table fields this reader does not know (a newer collector's), kept
	// as FIDL bindings keep unknown data: the record they belong to (an
	// index into Records, or FuchsiaHeaderRecord), the field ordinal and
	// the envelope payload (4 bytes inline, or a non-zero multiple of 8
	// out of line), in UnknownBytes[UnknownFirst[k]:UnknownFirst[k+1]].
	// By record, then by increasing ordinal. UnknownFirst is empty when
	// there are none.
	UnknownRecord  []uint32
	UnknownOrdinal []uint64
	UnknownFirst   []uint32
	UnknownBytes   []byte
}

// Stacks returns the number of stacks in the table.
func (s *FuchsiaSnapshot) Stacks() int { return max(len(s.StackFirst)-1, 0) }

// StackOf returns stack k's location indices, leaf first.
func (s *FuchsiaSnapshot) StackOf(k int) []uint32 {
	return s.StackLocation[s.StackFirst[k]:s.StackFirst[k+1]]
}

// ContentsOf returns node i's contents and whether it has any.
func (s *FuchsiaSnapshot) ContentsOf(i int) ([]byte, bool) {
	if len(s.ContentsStart) == 0 || s.Flags[i]&FuchsiaContents == 0 {
		return nil, false
	}
	return s.Contents[s.ContentsStart[i]:s.ContentsStart[i+1]], true
}

func (m *FuchsiaFile) validate(f *File) error {
	ns := uint32(len(f.Strings))
	str := func(what string, v uint32) error {
		if v >= ns {
			return fmt.Errorf("fuchsia: %s: string %d out of range (%d strings)", what, v, ns)
		}
		return nil
	}
	for i, t := range m.SampleTypes {
		if err := str(fmt.Sprintf("sample type %d", i), max(t.Type, t.Unit)); err != nil {
			return err
		}
	}
	if len(m.SampleTypes) < 2 {
		return fmt.Errorf("fuchsia: %d sample types (a heapdump profile has a count and a size)", len(m.SampleTypes))
	}
	for _, v := range append([]uint32{m.DefaultSampleType, m.DropFrames, m.KeepFrames, m.DocURL, m.PeriodType.Type, m.PeriodType.Unit}, m.Comments...) {
		if err := str("profile field", v); err != nil {
			return err
		}
	}
	mp := &m.Mappings
	nm := mp.Len()
	if len(mp.Start) != nm || len(mp.Limit) != nm || len(mp.Offset) != nm || len(mp.File) != nm || len(mp.BuildID) != nm || len(mp.Flags) != nm {
		return fmt.Errorf("fuchsia: mapping columns disagree on the mapping count")
	}
	for i := 0; i < nm; i++ {
		if err := str(fmt.Sprintf("mapping %d", i), max(mp.File[i], mp.BuildID[i])); err != nil {
			return err
		}
	}
	fn := &m.Functions
	nf := fn.Len()
	if len(fn.Name) != nf || len(fn.SystemName) != nf || len(fn.Filename) != nf || len(fn.StartLine) != nf {
		return fmt.Errorf("fuchsia: function columns disagree on the function count")
	}
	for i := 0; i < nf; i++ {
		if err := str(fmt.Sprintf("function %d", i), max(fn.Name[i], fn.SystemName[i], fn.Filename[i])); err != nil {
			return err
		}
	}
	lc := &m.Locations
	nl := lc.Len()
	if len(lc.Mapping) != nl || len(lc.Address) != nl || len(lc.Folded) != nl {
		return fmt.Errorf("fuchsia: location columns disagree on the location count")
	}
	nline := len(lc.Function)
	if len(lc.Line) != nline || len(lc.Column) != nline {
		return fmt.Errorf("fuchsia: line columns disagree on the line count")
	}
	if nl > 0 || len(lc.FirstLine) > 0 {
		if len(lc.FirstLine) != nl+1 {
			return fmt.Errorf("fuchsia: %d line offsets for %d locations", len(lc.FirstLine), nl)
		}
		if err := checkOffsets(lc.FirstLine, nline, "fuchsia location line"); err != nil {
			return err
		}
	} else if nline > 0 {
		return fmt.Errorf("fuchsia: lines without locations")
	}
	for i, v := range lc.Mapping {
		if int(v) > nm {
			return fmt.Errorf("fuchsia: location %d: mapping %d out of range (%d mappings)", i, v, nm)
		}
	}
	for i, v := range lc.Function {
		if v == 0 || int(v) > nf {
			return fmt.Errorf("fuchsia: line %d: function %d out of range (%d functions)", i, v, nf)
		}
	}
	for _, ids := range [][]uint64{mp.ID, fn.ID, lc.ID} {
		if err := uniqueIDs(ids); err != nil {
			return err
		}
	}
	if err := m.validateStreams(f); err != nil {
		return err
	}
	if len(m.SampleSnapshot) > 0 {
		counts := make([]int, len(f.Snapshots))
		for i, k := range m.SampleSnapshot {
			if int(k) >= len(f.Snapshots) {
				return fmt.Errorf("fuchsia: sample %d: snapshot %d out of range", i, k)
			}
			counts[k]++
		}
		for k, s := range f.Snapshots {
			if counts[k] != s.Nodes.Len() {
				return fmt.Errorf("fuchsia: snapshot %d has %d nodes but %d samples", k, s.Nodes.Len(), counts[k])
			}
		}
	}
	return nil
}

// uniqueIDs checks that pprof ids are non-zero and distinct, as pprof
// requires.
func uniqueIDs(ids []uint64) error {
	seen := make(map[uint64]struct{}, len(ids))
	for i, id := range ids {
		if id == 0 {
			return fmt.Errorf("fuchsia: entry %d has the reserved id 0", i)
		}
		if _, ok := seen[id]; ok {
			return fmt.Errorf("fuchsia: id %d appears twice", id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

func (fs *FuchsiaSnapshot) validate(f *File, s *Snapshot, n int, ns uint32) error {
	m := f.Fuchsia
	if m == nil {
		return fmt.Errorf("fuchsia: snapshot section without the file's")
	}
	if fs.HasProcessName && fs.ProcessName >= ns {
		return fmt.Errorf("fuchsia: process name: string %d out of range", fs.ProcessName)
	}
	if fs.Count.Len() != n || len(fs.Flags) != n || len(fs.Stack) != n {
		return fmt.Errorf("fuchsia: %d counts, %d flags and %d stacks for %d nodes", fs.Count.Len(), len(fs.Flags), len(fs.Stack), n)
	}
	if len(fs.Timestamp) != 0 && len(fs.Timestamp) != n {
		return fmt.Errorf("fuchsia: %d timestamps for %d nodes", len(fs.Timestamp), n)
	}
	if len(fs.Thread) != 0 && len(fs.Thread) != n {
		return fmt.Errorf("fuchsia: %d threads for %d nodes", len(fs.Thread), n)
	}
	if extra := len(m.SampleTypes) - 2; extra >= 0 && len(fs.ExtraValues) != extra*n {
		return fmt.Errorf("fuchsia: %d extra values for %d nodes of %d sample types", len(fs.ExtraValues), n, len(m.SampleTypes))
	}
	nt := len(fs.ThreadName)
	if len(fs.ThreadKoid) != nt || len(fs.ThreadBare) != nt {
		return fmt.Errorf("fuchsia: thread columns disagree on the thread count")
	}
	for i, v := range fs.ThreadName {
		if v >= ns {
			return fmt.Errorf("fuchsia: thread %d: string %d out of range", i, v)
		}
	}
	for i, v := range fs.Thread {
		if int(v) > nt {
			return fmt.Errorf("fuchsia: node %d: thread %d out of range (%d threads)", i, v, nt)
		}
	}
	if len(fs.StackFirst) == 0 {
		if len(fs.StackLocation) > 0 || n > 0 {
			return fmt.Errorf("fuchsia: nodes or stack frames without a stack table")
		}
	} else if err := checkOffsets(fs.StackFirst, len(fs.StackLocation), "fuchsia stack"); err != nil {
		return err
	}
	nl := uint32(m.Locations.Len())
	for i, l := range fs.StackLocation {
		if l >= nl {
			return fmt.Errorf("fuchsia: stack frame %d: location %d out of range (%d locations)", i, l, nl)
		}
	}
	nst := uint32(fs.Stacks())
	for i, k := range fs.Stack {
		if k >= nst {
			return fmt.Errorf("fuchsia: node %d: stack %d out of range (%d stacks)", i, k, nst)
		}
	}
	nlab := len(fs.LabelKey)
	if len(fs.LabelNumeric) != nlab || len(fs.LabelStr) != nlab || len(fs.LabelNum) != nlab || len(fs.LabelUnit) != nlab {
		return fmt.Errorf("fuchsia: label columns disagree on the label count")
	}
	if len(fs.LabelFirst) > 0 {
		if len(fs.LabelFirst) != n+1 {
			return fmt.Errorf("fuchsia: %d label offsets for %d nodes", len(fs.LabelFirst), n)
		}
		if err := checkOffsets(fs.LabelFirst, nlab, "fuchsia label"); err != nil {
			return err
		}
	} else if nlab > 0 {
		return fmt.Errorf("fuchsia: labels without label offsets")
	}
	for i := 0; i < nlab; i++ {
		if fs.LabelKey[i] >= ns || fs.LabelStr[i] >= ns || fs.LabelUnit[i] >= ns {
			return fmt.Errorf("fuchsia: label %d: string out of range", i)
		}
	}
	hasContents := false
	for i, fl := range fs.Flags {
		if fl&FuchsiaTimestamp != 0 && len(fs.Timestamp) == 0 {
			return fmt.Errorf("fuchsia: node %d has a timestamp, but there is no timestamp column", i)
		}
		if fl&FuchsiaContents != 0 {
			hasContents = true
		}
		if fl&^(FuchsiaAddress|FuchsiaBytes|FuchsiaTimestamp|FuchsiaContents) != 0 {
			return fmt.Errorf("fuchsia: node %d: unknown flags %#x", i, fl)
		}
	}
	if len(fs.ContentsStart) > 0 || len(fs.Contents) > 0 {
		if len(fs.ContentsStart) != n+1 || fs.ContentsStart[0] != 0 || fs.ContentsStart[n] != uint64(len(fs.Contents)) {
			return fmt.Errorf("fuchsia: contents offsets do not cover the %d contents bytes of %d nodes", len(fs.Contents), n)
		}
		for i := 0; i < n; i++ {
			l := fs.ContentsStart[i+1] - fs.ContentsStart[i]
			if fs.ContentsStart[i+1] < fs.ContentsStart[i] {
				return fmt.Errorf("fuchsia: contents offsets decrease at node %d", i)
			}
			if fs.Flags[i]&FuchsiaContents == 0 && l != 0 {
				return fmt.Errorf("fuchsia: node %d has %d contents bytes but no contents flag", i, l)
			}
			if fs.Flags[i]&FuchsiaContents != 0 && l != s.Nodes.SelfSize.At(i) {
				return fmt.Errorf("fuchsia: node %d: %d contents bytes for a block of %d", i, l, s.Nodes.SelfSize.At(i))
			}
		}
	} else if hasContents {
		return fmt.Errorf("fuchsia: nodes flagged with contents, but there are none")
	}
	if s.Edges.Len() > 0 && !fs.DerivedEdges {
		return fmt.Errorf("fuchsia: %d edges, but a profile has none unless derived from contents", s.Edges.Len())
	}
	if fs.Stream != nil {
		if err := fs.Stream.validate(f, s); err != nil {
			return fmt.Errorf("fuchsia stream: %w", err)
		}
	}
	return nil
}

// validateStreams checks what FuchsiaStream sections need across the file:
// all snapshots have one or none; a single-process stream (no
// SnapshotHeader) is one snapshot; every mapping is the region of exactly
// one snapshot.
func (m *FuchsiaFile) validateStreams(f *File) error {
	n := 0
	for _, s := range f.Snapshots {
		if s.Fuchsia != nil && s.Fuchsia.Stream != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if n != len(f.Snapshots) {
		return fmt.Errorf("fuchsia stream: %d of %d snapshots have stream details (all or none do)", n, len(f.Snapshots))
	}
	multi := f.Snapshots[0].Fuchsia.HasProcessName
	used := make([]bool, m.Mappings.Len())
	for k, s := range f.Snapshots {
		fs := s.Fuchsia
		if fs.HasProcessName != multi || fs.HasProcessKoid != multi {
			return fmt.Errorf("fuchsia stream: snapshot %d: a multi-process stream has a SnapshotHeader with name and koid for every process, a single-process one none", k)
		}
		for _, mi := range fs.Stream.RegionMapping {
			if int(mi) >= len(used) {
				return fmt.Errorf("fuchsia stream: snapshot %d: mapping %d out of range (%d mappings)", k, mi, len(used))
			}
			if used[mi] {
				return fmt.Errorf("fuchsia stream: mapping %d is the region of two snapshots", mi)
			}
			used[mi] = true
		}
	}
	if !multi && len(f.Snapshots) != 1 {
		return fmt.Errorf("fuchsia stream: a single-process stream holds one snapshot, not %d", len(f.Snapshots))
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("fuchsia stream: mapping %d is no snapshot's region", i)
		}
	}
	if len(m.SampleSnapshot) > 0 {
		return fmt.Errorf("fuchsia stream: samples interleaved across snapshots")
	}
	return nil
}

// isLowerHex reports whether s is an even number of lowercase hex digits.
func isLowerHex(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// validate checks that the stream details agree with the snapshot, so that
// writing the elements back cannot fail and reading them again gives the
// same snapshot.
func (st *FuchsiaStream) validate(f *File, s *Snapshot) error {
	fs := s.Fuchsia
	n := s.Nodes.Len()
	nstack := fs.Stacks()
	nthread := len(fs.ThreadName)
	var count [256]int
	prevEnd := true
	for i, r := range st.Records {
		switch r {
		case FuchsiaRecordAllocation, FuchsiaRecordStackTrace, FuchsiaRecordRegion, FuchsiaRecordContents, FuchsiaRecordThread:
			prevEnd = false
		case FuchsiaRecordEndOfBatch:
			if prevEnd {
				return fmt.Errorf("record %d: an empty batch inside the snapshot's data", i)
			}
			prevEnd = true
		default:
			return fmt.Errorf("record %d: unknown kind %d", i, r)
		}
		count[r]++
	}
	if !prevEnd {
		return fmt.Errorf("the last batch has no end")
	}
	for _, c := range []struct {
		kind int
		what string
		have int
	}{
		{FuchsiaRecordAllocation, "allocations (nodes)", n},
		{FuchsiaRecordStackTrace, "stack trace chunks", len(st.StackChunkStack)},
		{FuchsiaRecordRegion, "regions", len(st.RegionMapping)},
		{FuchsiaRecordContents, "contents chunks", len(st.ContentsChunkNode)},
		{FuchsiaRecordThread, "threads", nthread},
	} {
		if count[c.kind] != c.have {
			return fmt.Errorf("%d records of kind %d for %d %s", count[c.kind], c.kind, c.have, c.what)
		}
	}
	if len(fs.LabelKey) > 0 || len(fs.ExtraValues) > 0 {
		return fmt.Errorf("an element stream has no pprof labels or extra values")
	}

	// Allocations.
	if len(st.AllocFields) != n {
		return fmt.Errorf("%d allocation field sets for %d nodes", len(st.AllocFields), n)
	}
	for i, af := range st.AllocFields {
		fl := fs.Flags[i]
		switch {
		case af&^fuchsiaAllocKnownMask != 0:
			return fmt.Errorf("node %d: unknown allocation field bits %#x", i, af)
		case af&(FuchsiaAllocSize|FuchsiaAllocStackKey) != FuchsiaAllocSize|FuchsiaAllocStackKey:
			return fmt.Errorf("node %d: an Allocation has a size and a stack trace key", i)
		case af&FuchsiaAllocAddress != 0 != (fl&FuchsiaAddress != 0):
			return fmt.Errorf("node %d: address field and address flag disagree", i)
		case af&FuchsiaAllocAddress == 0 && s.Nodes.ID.At(i) != 0:
			return fmt.Errorf("node %d: an id without an address field", i)
		case af&FuchsiaAllocTimestamp != 0 != (fl&FuchsiaTimestamp != 0):
			return fmt.Errorf("node %d: timestamp field and timestamp flag disagree", i)
		case af&FuchsiaAllocThreadKey != 0 != (len(fs.Thread) > 0 && fs.Thread[i] != 0):
			return fmt.Errorf("node %d: thread key field and thread disagree", i)
		case af&FuchsiaAllocCount == 0 && fs.Count.At(i) != 1:
			return fmt.Errorf("node %d: count %d without a count field (the default is 1)", i, fs.Count.At(i))
		case fl&FuchsiaBytes == 0:
			return fmt.Errorf("node %d: every allocation has its size as the bytes label", i)
		}
	}
	addrs := make(map[uint64]bool, n)
	for i := 0; i < n; i++ {
		if fs.Flags[i]&FuchsiaAddress != 0 {
			a := s.Nodes.ID.At(i)
			if addrs[a] {
				return fmt.Errorf("node %d: a second allocation at 0x%x", i, a)
			}
			addrs[a] = true
		}
	}

	// Stacks: keys unique, chunks cover each stack in order, first chunks
	// in stack order.
	if len(st.StackKey) != nstack {
		return fmt.Errorf("%d stack keys for %d stacks", len(st.StackKey), nstack)
	}
	if len(st.StackChunkSize) != len(st.StackChunkStack) {
		return fmt.Errorf("%d stack chunk sizes for %d chunks", len(st.StackChunkSize), len(st.StackChunkStack))
	}
	seenKey := make(map[uint64]bool, nstack)
	for _, k := range st.StackKey {
		if seenKey[k] {
			return fmt.Errorf("stack key %d appears twice", k)
		}
		seenKey[k] = true
	}
	filled := make([]uint64, nstack)
	next := uint32(0)
	for c, k := range st.StackChunkStack {
		if k > next || k >= uint32(nstack) {
			return fmt.Errorf("stack chunk %d: stack %d out of order (stacks are in order of their first chunk)", c, k)
		}
		if k == next {
			next++
		}
		filled[k] += uint64(st.StackChunkSize[c])
	}
	for k := 0; k < nstack; k++ {
		if int(next) <= k {
			return fmt.Errorf("stack %d has no chunk", k)
		}
		if filled[k] != uint64(len(fs.StackOf(k))) {
			return fmt.Errorf("stack %d: chunks of %d addresses for %d frames", k, filled[k], len(fs.StackOf(k)))
		}
	}

	// Threads.
	if len(st.ThreadKey) != nthread {
		return fmt.Errorf("%d thread keys for %d threads", len(st.ThreadKey), nthread)
	}
	seenKey = make(map[uint64]bool, nthread)
	for t, k := range st.ThreadKey {
		if seenKey[k] {
			return fmt.Errorf("thread key %d appears twice", k)
		}
		seenKey[k] = true
		if fs.ThreadBare[t] {
			return fmt.Errorf("thread %d: a ThreadInfo has a name and a koid", t)
		}
		if name := f.Strings[fs.ThreadName[t]]; len(name) > 32 || !utf8.ValidString(name) {
			return fmt.Errorf("thread %d: name is not UTF-8 of at most 32 bytes", t)
		}
	}
	if fs.HasProcessName {
		if name := f.Strings[fs.ProcessName]; len(name) > 32 || !utf8.ValidString(name) {
			return fmt.Errorf("process name is not UTF-8 of at most 32 bytes")
		}
	}

	// Regions.
	nr := len(st.RegionMapping)
	if len(st.RegionFields) != nr || len(st.RegionVaddr) != nr {
		return fmt.Errorf("region columns disagree on the region count")
	}
	mp := &f.Fuchsia.Mappings
	starts := make(map[uint64]bool, nr)
	for r, mi := range st.RegionMapping {
		if int(mi) >= mp.Len() {
			return fmt.Errorf("region %d: mapping %d out of range (%d mappings)", r, mi, mp.Len())
		}
		rf := st.RegionFields[r]
		if rf&^fuchsiaRegionKnownMask != 0 || rf&FuchsiaRegionRequired != FuchsiaRegionRequired {
			return fmt.Errorf("region %d: field bits %#x (address, size, file_offset and build_id are required)", r, rf)
		}
		if rf&FuchsiaRegionVaddr == 0 && st.RegionVaddr[r] != 0 {
			return fmt.Errorf("region %d: a vaddr without a vaddr field", r)
		}
		if rf&FuchsiaRegionName == 0 && mp.File[mi] != 0 && f.Strings[mp.File[mi]] != "" {
			return fmt.Errorf("region %d: a name without a name field", r)
		}
		if rf&FuchsiaRegionName != 0 && !utf8.ValidString(f.Strings[mp.File[mi]]) {
			return fmt.Errorf("region %d: name is not UTF-8", r)
		}
		if id := f.Strings[mp.BuildID[mi]]; len(id) > 64 || !isLowerHex(id) {
			return fmt.Errorf("region %d: build id %q is not the hex of at most 32 bytes", r, id)
		}
		if mp.Flags[mi] != 0 {
			return fmt.Errorf("region %d: mapping %d has symbolization flags", r, mi)
		}
		if starts[mp.Start[mi]] {
			return fmt.Errorf("region %d: a second region at 0x%x", r, mp.Start[mi])
		}
		starts[mp.Start[mi]] = true
	}

	// Contents chunks.
	if len(st.ContentsChunkSize) != len(st.ContentsChunkNode) {
		return fmt.Errorf("%d contents chunk sizes for %d chunks", len(st.ContentsChunkSize), len(st.ContentsChunkNode))
	}
	got := make([]uint64, n)
	chunks := make([]bool, n)
	orphans, orphanBytes := 0, uint64(0)
	for c, node := range st.ContentsChunkNode {
		size := uint64(st.ContentsChunkSize[c])
		if node == FuchsiaOrphanChunk {
			if orphans >= len(st.OrphanAddress) {
				return fmt.Errorf("contents chunk %d: more orphan chunks than orphan addresses", c)
			}
			if addrs[st.OrphanAddress[orphans]] {
				return fmt.Errorf("contents chunk %d: orphan chunk at 0x%x, the address of an allocation", c, st.OrphanAddress[orphans])
			}
			orphans++
			orphanBytes += size
			continue
		}
		if int(node) >= n {
			return fmt.Errorf("contents chunk %d: node %d out of range", c, node)
		}
		if fs.Flags[node]&FuchsiaContents == 0 {
			return fmt.Errorf("contents chunk %d: node %d has no contents", c, node)
		}
		got[node] += size
		chunks[node] = true
	}
	if orphans != len(st.OrphanAddress) || orphanBytes != uint64(len(st.OrphanContents)) {
		return fmt.Errorf("%d orphan chunks of %d bytes for %d orphan addresses and %d bytes", orphans, orphanBytes, len(st.OrphanAddress), len(st.OrphanContents))
	}
	for i := 0; i < n; i++ {
		if fs.Flags[i]&FuchsiaContents == 0 {
			continue
		}
		if !chunks[i] || got[i] != s.Nodes.SelfSize.At(i) {
			return fmt.Errorf("node %d: contents chunks of %d bytes for a block of %d", i, got[i], s.Nodes.SelfSize.At(i))
		}
		if fs.Flags[i]&FuchsiaAddress == 0 {
			return fmt.Errorf("node %d: contents without an address", i)
		}
	}

	// Unknown fields.
	nu := len(st.UnknownRecord)
	if len(st.UnknownOrdinal) != nu {
		return fmt.Errorf("unknown field columns disagree on their count")
	}
	if nu > 0 || len(st.UnknownFirst) > 0 {
		if len(st.UnknownFirst) != nu+1 {
			return fmt.Errorf("%d unknown field offsets for %d fields", len(st.UnknownFirst), nu)
		}
		if err := checkOffsets(st.UnknownFirst, len(st.UnknownBytes), "unknown field"); err != nil {
			return err
		}
	} else if len(st.UnknownBytes) > 0 {
		return fmt.Errorf("unknown field bytes without fields")
	}
	for k := 0; k < nu; k++ {
		r, ord := st.UnknownRecord[k], st.UnknownOrdinal[k]
		known := 0
		switch {
		case r == FuchsiaHeaderRecord:
			if !fs.HasProcessName {
				return fmt.Errorf("unknown field %d: a SnapshotHeader field, but the snapshot has no header", k)
			}
			known = 2
		case int(r) < len(st.Records):
			known = [...]int{FuchsiaRecordAllocation: 6, FuchsiaRecordStackTrace: 2, FuchsiaRecordRegion: 6,
				FuchsiaRecordContents: 2, FuchsiaRecordThread: 3, 0x80: 0}[min(int(st.Records[r]), 0x80)]
			if known == 0 {
				return fmt.Errorf("unknown field %d: record %d is not an element", k, r)
			}
		default:
			return fmt.Errorf("unknown field %d: record %d out of range", k, r)
		}
		if ord <= uint64(known) || ord > 64 {
			return fmt.Errorf("unknown field %d: ordinal %d is a known field or beyond a table's 64", k, ord)
		}
		if k > 0 {
			pr, po := st.UnknownRecord[k-1], st.UnknownOrdinal[k-1]
			if r < pr || r == pr && ord <= po {
				return fmt.Errorf("unknown field %d: not by record and increasing ordinal", k)
			}
		}
		if size := st.UnknownFirst[k+1] - st.UnknownFirst[k]; size != 4 && (size == 0 || size%8 != 0) {
			return fmt.Errorf("unknown field %d: %d payload bytes (4 inline, or a non-zero multiple of 8)", k, size)
		}
	}
	return nil
}

// FuchsiaClassBuildID begins the build id (hex) of the mappings — in a
// FIDL stream, the executable regions — that stand for the classes of a
// graph heap converted to a Fuchsia profile or stream: one mapping per
// class, holding the program address of the class's frames, its module
// name and file offset made by FuchsiaClassModule. A stream has program
// addresses but no function names; the mapping's name carries the class
// through it. (The 16 bytes spell "heapconv-classes".)
const FuchsiaClassBuildID = "68656170636f6e762d636c6173736573"

// FuchsiaClassMappingID returns the build id of the mapping of class k of a
// conversion: FuchsiaClassBuildID, then k in 4 bytes. Each class is a
// module of its own: pprof takes mappings of the same build id, size and
// offset for one and merges them (go tool pprof -proto does).
func FuchsiaClassMappingID(k uint32) string {
	return fmt.Sprintf("%s%08x", FuchsiaClassBuildID, k)
}

// FuchsiaClassModule returns the module name and file offset of the class
// mapping (FuchsiaClassBuildID) of class name in library: the name, then
// " (library)" when there is one, as ClassLabels qualifies a name; the
// offset is the name's length in bytes, so that a name holding " (" is
// still told from its library (ParseFuchsiaClassModule).
func FuchsiaClassModule(name, library string) (module string, offset uint64) {
	if library == "" {
		return name, uint64(len(name))
	}
	return name + " (" + library + ")", uint64(len(name))
}

// ParseFuchsiaClassModule returns the class and library a class mapping's
// module name and file offset stand for (FuchsiaClassModule); ok is false
// when they are not of that form.
func ParseFuchsiaClassModule(module string, offset uint64) (name, library string, ok bool) {
	if offset > uint64(len(module)) {
		return "", "", false
	}
	name, rest := module[:offset], module[offset:]
	if rest == "" {
		return name, "", true
	}
	if len(rest) < 4 || !strings.HasPrefix(rest, " (") || !strings.HasSuffix(rest, ")") {
		return "", "", false
	}
	return name, rest[2 : len(rest)-1], true
}

// ClassOf returns the class mapping i (an index) stands for, when it is a
// class mapping (its build id begins with FuchsiaClassBuildID); strs is
// the file's string table.
func (m *FuchsiaMappings) ClassOf(i int, strs []string) (name, library string, ok bool) {
	if !strings.HasPrefix(strs[m.BuildID[i]], FuchsiaClassBuildID) {
		return "", "", false
	}
	return ParseFuchsiaClassModule(strs[m.File[i]], m.Offset[i])
}

// selectFuchsia returns the Fuchsia sections, snapshot n and the class table
// of a file holding only snapshot n (for Select). The file-wide tables are
// the union of every process's: a mapping, location, function or class is
// kept when snapshot n uses it (its stacks' locations, their mappings and
// lines' functions, its stream's regions, its nodes' classes, a location
// in one of its regions) or when no snapshot does, and dropped when only
// the other snapshots use it. So a FIDL stream's snapshot keeps exactly
// its own regions (every mapping of a stream must be one snapshot's
// region), and one process of a profile does not carry the others'
// stacks. Indices are renumbered; pprof ids are kept.
func (f *File) selectFuchsia(n int) (*FuchsiaFile, *Snapshot, Classes) {
	m := f.Fuchsia
	lc, mp, fn := &m.Locations, &m.Mappings, &m.Functions
	// Who uses each entry: bit mine for snapshot n, others for another.
	const mine, others = 1, 2
	locUse := make([]uint8, lc.Len())
	mapUse := make([]uint8, mp.Len())
	classUse := make([]uint8, f.Classes.Len())
	for k, s := range f.Snapshots {
		who := uint8(others)
		if k == n {
			who = mine
		}
		for _, c := range s.Nodes.Class {
			if c > 0 {
				classUse[c-1] |= who
			}
		}
		fs := s.Fuchsia
		if fs == nil {
			continue
		}
		for _, l := range fs.StackLocation {
			locUse[l] |= who
		}
		if fs.Stream != nil {
			for _, mi := range fs.Stream.RegionMapping {
				mapUse[mi] |= who
			}
		}
	}
	keep := func(use uint8) bool { return use&mine != 0 || use == 0 }
	// A location no stack uses belongs to the process whose region holds
	// it, if any. One kept keeps its mapping and functions; one dropped
	// counts as the others'.
	for l := range locUse {
		if mi := lc.Mapping[l]; locUse[l] == 0 && mi != 0 {
			locUse[l] = mapUse[mi-1]
		}
	}
	fnUse := make([]uint8, fn.Len())
	for l := range locUse {
		who := uint8(others)
		if keep(locUse[l]) {
			who = mine
		}
		if mi := lc.Mapping[l]; mi != 0 {
			mapUse[mi-1] |= who
		}
		for _, fi := range lc.Function[lc.FirstLine[l]:lc.FirstLine[l+1]] {
			fnUse[fi-1] |= who
		}
	}
	mapNew, nm := renumber(mapUse, keep)
	fnNew, nf := renumber(fnUse, keep)
	locNew, nl := renumber(locUse, keep)
	classNew, nc := renumber(classUse, keep)

	mm := *m
	mm.SampleSnapshot = nil // one process's samples are in order by themselves
	if nm < mp.Len() {
		var t FuchsiaMappings
		for i := range mapNew {
			if mapNew[i] != dropped {
				t.ID = append(t.ID, mp.ID[i])
				t.Start = append(t.Start, mp.Start[i])
				t.Limit = append(t.Limit, mp.Limit[i])
				t.Offset = append(t.Offset, mp.Offset[i])
				t.File = append(t.File, mp.File[i])
				t.BuildID = append(t.BuildID, mp.BuildID[i])
				t.Flags = append(t.Flags, mp.Flags[i])
			}
		}
		mm.Mappings = t
	}
	if nf < fn.Len() {
		var t FuchsiaFunctions
		for i := range fnNew {
			if fnNew[i] != dropped {
				t.ID = append(t.ID, fn.ID[i])
				t.Name = append(t.Name, fn.Name[i])
				t.SystemName = append(t.SystemName, fn.SystemName[i])
				t.Filename = append(t.Filename, fn.Filename[i])
				t.StartLine = append(t.StartLine, fn.StartLine[i])
			}
		}
		mm.Functions = t
	}
	if nl < lc.Len() || nm < mp.Len() || nf < fn.Len() {
		var t FuchsiaLocations
		for l := range locNew {
			if locNew[l] == dropped {
				continue
			}
			if len(t.FirstLine) == 0 {
				t.FirstLine = append(t.FirstLine, 0)
			}
			t.ID = append(t.ID, lc.ID[l])
			mi := lc.Mapping[l]
			if mi != 0 {
				mi = mapNew[mi-1] + 1
			}
			t.Mapping = append(t.Mapping, mi)
			t.Address = append(t.Address, lc.Address[l])
			t.Folded = append(t.Folded, lc.Folded[l])
			for j := lc.FirstLine[l]; j < lc.FirstLine[l+1]; j++ {
				t.Function = append(t.Function, fnNew[lc.Function[j]-1]+1)
				t.Line = append(t.Line, lc.Line[j])
				t.Column = append(t.Column, lc.Column[j])
			}
			t.FirstLine = append(t.FirstLine, uint32(len(t.Function)))
		}
		mm.Locations = t
	}

	s := *f.Snapshots[n]
	if fs := s.Fuchsia; fs != nil && nl < lc.Len() {
		fs2 := *fs
		fs2.StackLocation = make([]uint32, len(fs.StackLocation))
		for i, l := range fs.StackLocation {
			fs2.StackLocation[i] = locNew[l]
		}
		s.Fuchsia = &fs2
	}
	if fs := s.Fuchsia; fs != nil && fs.Stream != nil && nm < mp.Len() {
		st := *fs.Stream
		st.RegionMapping = make([]uint32, len(st.RegionMapping))
		for i, mi := range fs.Stream.RegionMapping {
			st.RegionMapping[i] = mapNew[mi]
		}
		fs2 := *fs
		fs2.Stream = &st
		s.Fuchsia = &fs2
	}
	classes := f.Classes
	if nc < f.Classes.Len() {
		c := &f.Classes
		classes = Classes{}
		for i := range classNew {
			if classNew[i] != dropped {
				if len(classes.FirstField) == 0 {
					classes.FirstField = []uint32{0} // none without classes, as decoded
				}
				classes.Name = append(classes.Name, c.Name[i])
				classes.Library = append(classes.Library, c.Library[i])
				classes.FieldName = append(classes.FieldName, c.FieldName[c.FirstField[i]:c.FirstField[i+1]]...)
				classes.FirstField = append(classes.FirstField, uint32(len(classes.FieldName)))
			}
		}
		s.Nodes.Class = make([]uint32, len(f.Snapshots[n].Nodes.Class))
		for i, c := range f.Snapshots[n].Nodes.Class {
			if c > 0 {
				c = classNew[c-1] + 1
			}
			s.Nodes.Class[i] = c
		}
	}
	return &mm, &s, classes
}

// dropped marks an entry renumber drops.
const dropped = ^uint32(0)

// renumber gives each entry whose use keep accepts its index among those
// kept, and the others dropped; it returns how many are kept.
func renumber(use []uint8, keep func(uint8) bool) ([]uint32, int) {
	idx := make([]uint32, len(use))
	n := 0
	for i, u := range use {
		if keep(u) {
			idx[i] = uint32(n)
			n++
		} else {
			idx[i] = dropped
		}
	}
	return idx, n
}
