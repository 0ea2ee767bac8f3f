package fuchsia

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/heapconv/heapconv/ir"
)

// Fuchsia heapdump snapshots (the pprof profiles `ffx profile heapdump
// snapshot` and `download` write, gzipped or not, plus the optional
// --output-contents-dir directory; described in docs/formats/fuchsia.md)
// map into the common model like this:
//
//   - strings are interned into File.Strings (the profile's string table
//     is not kept as such: pprof gives it no meaning beyond the fields that
//     refer to it, and the address labels parsed into node ids are dropped);
//   - everything that is file-wide in a pprof Profile is File: the
//     sample types, the other Profile scalars, and the mapping, location
//     and function tables with their pprof ids, in file order (ids are
//     file-wide even in a multi-process profile);
//   - a profile is one snapshot, or with ffx --multi-process one snapshot
//     per process (samples labelled process_name / process_koid), in order
//     of first appearance; Snapshot.Name is the process name;
//   - every Sample is a node of kind "native" (ir/fuchsia.NodeKinds): one
//     live block with --with-tags, or a stack-merged group of blocks
//     without (Snapshot.Count is value[0], the block count).
//     Nodes.ID is the block address (the "address" label; 0 without one),
//     Nodes.SelfSize is value[1] (the bytes);
//   - a node's class and name are its allocation site: the first frame of
//     its stack outside the allocator (ir/fuchsia.IsAllocatorFrame: the
//     hooks Fuchsia's dupefinder filters, AllocatorFrames, and Scudo's and
//     the C, C++ and Rust allocation functions), named by its function
//     when the profile is symbolized, else as a symbolizer prints an
//     unsymbolized frame (File.AddressName): "module+0x<offset in the
//     file>", or "0x<pc>" when the mapping has no name or there is none.
//     Raw program counters cannot be recognized by name: for unsymbolized
//     stacks the reader skips, when the mappings are named, the leading
//     frames in libc.so (Scudo, malloc) and in heapdump's instrumentation
//     library (InstrumentationModule, the hooks) — or hooks linked into
//     another module, when stacks from different call sites share them —
//     then the frames at least half of the allocations taking the same
//     path funnel through (operator new, Rust's allocation shims); with or
//     without names, the leading frames all the stacks starting at the
//     same program counter share. Both are heuristics
//     (ir/fuchsia/site.go). The class's Library is the name of the
//     mapping the frame lies in. A frame in a class mapping
//     (ClassBuildID: what heapconv writes for the classes of a
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
//     each) are Snapshot.Contents; unreadable blocks have none;
//   - pprof has no edges. When contents are scanned for pointers (a reader
//     option), every aligned 64-bit word that, with its top-byte tag
//     cleared, points into another live block of the same process becomes
//     an edge from the block holding it, named "+0x<word offset>": of kind
//     "internal" when it points at the block's start, "interior" when it
//     points inside it. Blocks no other block points to are the snapshot's
//     Roots, with their allocation site as category. These edges are
//     heuristic (Snapshot.DerivedEdges), and are not written back.
//
// The FIDL SnapshotElement stream (fuchsia.memory.heapdump.client, the
// "fuchsia-fidl" format) maps into the same sections the way ffx turns it
// into a profile with --with-tags (docs/formats/fuchsia.md): one node per
// Allocation; the regions as mappings, sorted by start address, ids going
// on across processes; one location per distinct program address of a
// process, in first-seen order over the allocations' stacks (then over the
// stacks no allocation names), those in a class region (ClassBuildID)
// with one line whose function is named by the class, as in the profile
// the stream was converted from; threads as the thread table; process name
// and koid from the SnapshotHeader. What the stream has beyond that — keys,
// which fields were sent, region vaddrs, chunking, batches and unknown
// fields — is Snapshot.Stream, so that the stream can be written
// again element for element.

// Per-node flags (Snapshot.Flags).
const (
	// FlagAddress: the sample has an "address" label (Nodes.ID).
	FlagAddress = 1 << iota
	// FlagBytes: the sample has a "bytes" label equal to value[1].
	FlagBytes
	// FlagTimestamp: the sample has a "timestamp" label (Timestamp).
	FlagTimestamp
	// FlagContents: the block's contents were read (Contents).
	FlagContents
)

// Mapping flags (Mappings.Flags): pprof's has_* booleans.
const (
	HasFunctions = 1 << iota
	HasFilenames
	HasLineNumbers
	HasInlineFrames
)

// ValueType is a pprof ValueType: two string indices.
type ValueType struct {
	Type, Unit uint32
}

// File holds what is file-wide in a heapdump pprof profile.
type File struct {
	// Gzip is true when the profile was gzip-compressed (the newest ffx).
	Gzip bool

	// SampleTypes are the profile's sample types: [objects/count,
	// allocated/bytes] from ffx. Every sample has one value per type: the
	// first is Snapshot.Count, the second Nodes.SelfSize, the
	// others Snapshot.ExtraValues.
	SampleTypes []ValueType
	// The other Profile fields (ffx sets none of them). String fields are
	// string indices; 0 is "" (unset).
	DefaultSampleType uint32
	DropFrames        uint32
	KeepFrames        uint32
	DocURL            uint32
	Comments          []uint32
	TimeNanos         int64
	DurationNanos     int64
	PeriodType        ValueType
	Period            int64

	Mappings  Mappings
	Functions Functions
	Locations Locations

	// SampleSnapshot, when not empty, gives for every sample in file order
	// the snapshot it belongs to: for profiles whose processes' samples are
	// interleaved. Empty when the samples are the snapshots' nodes in
	// snapshot order (as ffx writes them).
	SampleSnapshot []uint32
}

// Mappings is the mapping table (one entry per executable segment
// with ffx), column by column, in file order.
type Mappings struct {
	ID      []uint64
	Start   []uint64
	Limit   []uint64
	Offset  []uint64 // the ELF p_offset; fake for the kernel collector
	File    []uint32 // string index: the module name
	BuildID []uint32 // string index: the hex build id
	Flags   []uint8  // FuchsiaHas*
}

// Len returns the number of mappings.
func (m *Mappings) Len() int { return len(m.ID) }

// Append adds a mapping of [start, limit) with the next ID and returns
// its ID (1 + its index, as a location refers to it).
func (m *Mappings) Append(start, limit, offset uint64, file, buildID uint32, flags uint8) uint32 {
	m.ID = append(m.ID, uint64(m.Len()+1))
	m.Start = append(m.Start, start)
	m.Limit = append(m.Limit, limit)
	m.Offset = append(m.Offset, offset)
	m.File = append(m.File, file)
	m.BuildID = append(m.BuildID, buildID)
	m.Flags = append(m.Flags, flags)
	return uint32(m.Len())
}

// Holding returns the ID of the mapping from first on that holds pc (0:
// none), the mappings from first on being one process's, sorted by start
// and apart: how a FIDL stream's program address finds its region.
func (m *Mappings) Holding(first int, pc uint64) uint32 {
	starts := m.Start[first:]
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > pc }) - 1
	if i < 0 || pc >= m.Limit[first+i] {
		return 0
	}
	return uint32(first + i + 1)
}

// Functions is the function table (only with ffx --symbolize).
type Functions struct {
	ID         []uint64
	Name       []uint32 // string index
	SystemName []uint32 // string index
	Filename   []uint32 // string index
	StartLine  []int64
}

// Len returns the number of functions.
func (f *Functions) Len() int { return len(f.ID) }

// Locations is the location table: one raw program counter each,
// with its lines (inlined frames, innermost first) when symbolized. Location
// l's lines are [FirstLine[l], FirstLine[l+1]).
type Locations struct {
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
func (l *Locations) Len() int { return len(l.ID) }

// Append adds a location at program address pc in the mapping of ID
// mapping (0: none), not folded, with the next ID, and returns its index.
// Its lines, and FirstLine, are the caller's to add.
func (l *Locations) Append(mapping uint32, pc uint64) uint32 {
	i := uint32(l.Len())
	l.ID = append(l.ID, uint64(i+1))
	l.Mapping = append(l.Mapping, mapping)
	l.Address = append(l.Address, pc)
	l.Folded = append(l.Folded, false)
	return i
}

// Snapshot holds what one process's part of a heapdump profile has
// beyond the common model. Per-node columns have one entry per node unless
// said otherwise.
type Snapshot struct {
	// The process labels of a --multi-process profile. Without them the
	// profile is single-process (and contents files have no koid prefix).
	HasProcessName bool
	HasProcessKoid bool
	ProcessName    uint32 // string index (also Snapshot.Name)
	ProcessKoid    int64

	// Count is value[0]: 1 per block with --with-tags (Allocation.count),
	// the number of blocks merged into a stack-merged sample.
	Count ir.Uints
	// Flags are FlagAddress, FlagBytes, FlagTimestamp and
	// FlagContents.
	Flags []uint8
	// Timestamp is the "timestamp" label (ns of the monotonic clock) where
	// FlagTimestamp is set; empty when no node has one.
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
	// location indices (into File.Locations), leaf first.
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
	// where FlagContents is set. ContentsStart has one entry per node
	// plus one, or none when no block has contents.
	ContentsStart []uint64
	Contents      []byte

	// DerivedEdges is true when the edges were derived by scanning the
	// contents for pointers: heuristic, not part of the profile.
	DerivedEdges bool

	// Stream is set when the snapshot was read from a FIDL element stream:
	// what the stream holds beyond the profile. nil for pprof input.
	Stream *Stream
}

// Record kinds of Stream.Records: the SnapshotElement union
// ordinals of the elements a snapshot holds, and the end of a batch.
const (
	RecordAllocation = 1
	RecordStackTrace = 2
	RecordRegion     = 3
	RecordContents   = 4
	RecordThread     = 5
	RecordEndOfBatch = 0x80
)

// HeaderRecord in Stream.UnknownRecord stands for the
// snapshot's SnapshotHeader (multi-process streams).
const HeaderRecord = math.MaxUint32

// OrphanChunk in Stream.ContentsChunkNode marks a chunk of
// block contents that matches no allocation: the receiver drops it, the
// stream keeps it (OrphanAddress, OrphanContents).
const OrphanChunk = math.MaxUint32

// FIDL table field bits (bit n-1 for field ordinal n) of
// Stream.AllocFields and RegionFields.
const (
	AllocAddress    = 1 << 0
	AllocSize       = 1 << 1
	AllocStackKey   = 1 << 2
	AllocTimestamp  = 1 << 3
	AllocThreadKey  = 1 << 4
	AllocCount      = 1 << 5
	RegionRequired  = 0xf // address, size, file_offset, build_id
	RegionVaddr     = 1 << 4
	RegionName      = 1 << 5
	allocKnownMask  = 0x3f
	regionKnownMask = 0x3f
)

// Stream is what one process's part of a FIDL element stream holds
// beyond the profile: enough to write the same elements again in the same
// order, batches and chunks. The elements are those of the snapshot's data
// batches, Records, between the SnapshotHeader batch (multi-process) and
// the empty batch that ends the snapshot; those, and the stream's last
// empty batch, follow from the snapshots. The element values are the
// snapshot's: node i is the i-th Allocation, thread t the t-th ThreadInfo,
// and so on.
type Stream struct {
	// Records are the snapshot's data records in stream order:
	// FuchsiaRecord* kinds. Every batch holds at least one element and
	// ends with RecordEndOfBatch.
	Records []uint8

	// AllocFields are, per node, the Allocation fields sent
	// (FuchsiaAlloc* bits). Without AllocCount the count is 1.
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
	// (index into File.Mappings; the build id is its hex string, the
	// name its File), the optional fields sent (RegionVaddr,
	// RegionName, plus RegionRequired), and vaddr (0 when
	// not sent). pprof has no vaddr.
	RegionMapping []uint32
	RegionFields  []uint8
	RegionVaddr   []uint64

	// The BlockContents chunks in stream order: the node whose contents
	// they continue, or OrphanChunk, and their size. Orphan chunks
	// take their addresses from OrphanAddress and their bytes from
	// OrphanContents, in order.
	ContentsChunkNode []uint32
	ContentsChunkSize []uint32
	OrphanAddress     []uint64
	OrphanContents    []byte

	// Table fields this reader does not know (a newer collector's), kept
	// as FIDL bindings keep unknown data: the record they belong to (an
	// index into Records, or HeaderRecord), the field ordinal and
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
func (s *Snapshot) Stacks() int { return max(len(s.StackFirst)-1, 0) }

// StackOf returns stack k's location indices, leaf first.
func (s *Snapshot) StackOf(k int) []uint32 {
	return s.StackLocation[s.StackFirst[k]:s.StackFirst[k+1]]
}

// ContentsOf returns node i's contents and whether it has any.
func (s *Snapshot) ContentsOf(i int) ([]byte, bool) {
	if len(s.ContentsStart) == 0 || s.Flags[i]&FlagContents == 0 {
		return nil, false
	}
	return s.Contents[s.ContentsStart[i]:s.ContentsStart[i+1]], true
}

// The Fuchsia formats' names: the pprof profile, and the FIDL
// SnapshotElement stream.
const (
	Format     = "fuchsia"
	FormatFIDL = "fuchsia-fidl"
)

// The Fuchsia sections' names in the IR.
const (
	FileSectionName     = "fuchsia"
	SnapshotSectionName = "fuchsia.snapshot"
)

func init() {
	ir.RegisterSection(FileSectionName, ir.FileScope, 1, func() ir.Section { return new(File) })
	ir.RegisterSection(SnapshotSectionName, ir.SnapshotScope, 1, func() ir.Section { return new(Snapshot) })
}

// The core's hooks the Fuchsia sections implement.
var (
	_ ir.LossReporter = (*File)(nil)
	_ ir.Selecter     = (*File)(nil)
	_ ir.LossReporter = (*Snapshot)(nil)
)

// FileOf returns the Fuchsia section of f, or nil.
func FileOf(f *ir.File) *File {
	m, _ := f.Section(FileSectionName).(*File)
	return m
}

// Of returns the Fuchsia section of s, or nil.
func Of(s *ir.Snapshot) *Snapshot {
	x, _ := s.Section(SnapshotSectionName).(*Snapshot)
	return x
}

// SectionName returns "fuchsia".
func (m *File) SectionName() string { return FileSectionName }

// Bind declares the section: the Profile's scalars as fields, the mapping,
// function, location and line tables and the sample order as columns.
func (m *File) Bind(b *ir.Bindings) {
	b.Bool("gzip", &m.Gzip)
	b.Value("sample_types", func() ir.JSON { return valueTypesJSON(m.SampleTypes...) }, func(j ir.JSON) (err error) {
		m.SampleTypes, err = setValueTypes(j, -1)
		return err
	})
	b.StringIndex("default_sample_type", &m.DefaultSampleType)
	b.StringIndex("drop_frames", &m.DropFrames)
	b.StringIndex("keep_frames", &m.KeepFrames)
	b.StringIndex("doc_url", &m.DocURL)
	b.Value("comments", func() ir.JSON { return indicesJSON(m.Comments) }, func(j ir.JSON) (err error) {
		m.Comments, err = setIndices(j)
		return err
	})
	b.Int("time_nanos", &m.TimeNanos)
	b.Int("duration_nanos", &m.DurationNanos)
	b.Value("period_type", func() ir.JSON { return valueTypesJSON(m.PeriodType).Elems[0] }, func(j ir.JSON) error {
		t, err := setValueTypes(ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{j}}, 1)
		if err == nil {
			m.PeriodType = t[0]
		}
		return err
	})
	b.Int("period", &m.Period)
	const mapping, function, location, line = "fuchsia.mapping", "fuchsia.function", "fuchsia.location", "fuchsia.line"
	mp, fn, lc := &m.Mappings, &m.Functions, &m.Locations
	b.Column("fuchsia.mapping.id", mapping, &mp.ID)
	b.Column("fuchsia.mapping.start", mapping, &mp.Start, ir.Hex())
	b.Column("fuchsia.mapping.limit", mapping, &mp.Limit, ir.Hex())
	b.Column("fuchsia.mapping.offset", mapping, &mp.Offset, ir.Hex())
	b.Column("fuchsia.mapping.file", mapping, &mp.File, ir.Strings())
	b.Column("fuchsia.mapping.build_id", mapping, &mp.BuildID, ir.Strings())
	b.Column("fuchsia.mapping.flags", mapping, &mp.Flags)
	b.Column("fuchsia.function.id", function, &fn.ID)
	b.Column("fuchsia.function.name", function, &fn.Name, ir.Strings())
	b.Column("fuchsia.function.system_name", function, &fn.SystemName, ir.Strings())
	b.Column("fuchsia.function.filename", function, &fn.Filename, ir.Strings())
	b.Column("fuchsia.function.start_line", function, &fn.StartLine)
	b.Column("fuchsia.location.id", location, &lc.ID)
	b.Column("fuchsia.location.mapping", location, &lc.Mapping, ir.IndexPlusOne(mapping))
	b.Column("fuchsia.location.address", location, &lc.Address, ir.Hex())
	b.Column("fuchsia.location.folded", location, &lc.Folded)
	b.Column("fuchsia.location.line_count", location, &lc.FirstLine, ir.Counts(line), ir.Optional())
	b.Column("fuchsia.line.function", line, &lc.Function, ir.IndexPlusOne(function))
	b.Column("fuchsia.line.line", line, &lc.Line)
	b.Column("fuchsia.line.column", line, &lc.Column)
	b.Column("fuchsia.sample.snapshot", "fuchsia.sample", &m.SampleSnapshot)
}

// valueTypesJSON gives pprof ValueTypes as [type, unit] pairs.
func valueTypesJSON(ts ...ValueType) ir.JSON {
	a := ir.JSON{Kind: ir.JSONArray}
	for _, t := range ts {
		a.Elems = append(a.Elems, ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONNum(int64(t.Type)), ir.JSONNum(int64(t.Unit))}})
	}
	return a
}

// setValueTypes reads [type, unit] pairs (exactly n of them when n >= 0).
func setValueTypes(j ir.JSON, n int) ([]ValueType, error) {
	if j.Kind != ir.JSONArray || n >= 0 && len(j.Elems) != n {
		return nil, fmt.Errorf("not a list of [type, unit]")
	}
	var out []ValueType
	for _, e := range j.Elems {
		if e.Kind != ir.JSONArray || len(e.Elems) != 2 {
			return nil, fmt.Errorf("a value type is not [type, unit]")
		}
		idx, err := setIndices(e)
		if err != nil {
			return nil, err
		}
		out = append(out, ValueType{idx[0], idx[1]})
	}
	return out, nil
}

func indicesJSON(l []uint32) ir.JSON {
	a := ir.JSON{Kind: ir.JSONArray}
	for _, v := range l {
		a.Elems = append(a.Elems, ir.JSONNum(int64(v)))
	}
	return a
}

// setIndices reads a list of string indices.
func setIndices(j ir.JSON) ([]uint32, error) {
	if j.Kind != ir.JSONArray {
		return nil, fmt.Errorf("not a list of string indices")
	}
	var out []uint32
	for _, e := range j.Elems {
		v, ok := e.Uint()
		if !ok || v > math.MaxUint32 {
			return nil, fmt.Errorf("%s is not a string index", e.String())
		}
		out = append(out, uint32(v))
	}
	return out, nil
}

// SectionName returns "fuchsia.snapshot".
func (x *Snapshot) SectionName() string { return SnapshotSectionName }

// Bind declares the section: the process labels and whether the snapshot
// has stream details as fields; the node columns, the thread, stack and
// label tables and the contents (each table's first column, or the counts
// that size it, before the rest), then the stream details' columns.
func (x *Snapshot) Bind(b *ir.Bindings) {
	const thread, stack, frame, label, contents = "fuchsia.thread", "fuchsia.stack", "fuchsia.frame", "fuchsia.label", "fuchsia.contents"
	b.Bool("has_process_name", &x.HasProcessName)
	b.StringIndex("process_name", &x.ProcessName)
	b.Bool("has_process_koid", &x.HasProcessKoid)
	b.Int("process_koid", &x.ProcessKoid)
	b.Bool("derived_edges", &x.DerivedEdges)
	b.Value("stream", func() ir.JSON { return ir.JSON{Kind: ir.JSONBool, Bool: x.Stream != nil} }, func(j ir.JSON) error {
		if j.Kind != ir.JSONBool {
			return fmt.Errorf("not a bool")
		}
		x.Stream = nil
		if j.Bool {
			x.Stream = &Stream{}
		}
		return nil
	})
	b.Column("fuchsia.node.count", ir.TableNode, &x.Count)
	b.Column("fuchsia.node.flags", ir.TableNode, &x.Flags)
	b.Column("fuchsia.node.timestamp", ir.TableNode, &x.Timestamp, ir.Optional())
	b.Column("fuchsia.node.thread", ir.TableNode, &x.Thread, ir.IndexPlusOne(thread), ir.Optional())
	b.Column("fuchsia.node.stack", ir.TableNode, &x.Stack, ir.IndexInto(stack))
	b.Column("fuchsia.node.label_count", ir.TableNode, &x.LabelFirst, ir.Counts(label), ir.Optional())
	b.Column("fuchsia.node.contents_size", ir.TableNode, &x.ContentsStart, ir.Counts(contents), ir.Optional())
	b.Column("fuchsia.extra.value", "fuchsia.extra", &x.ExtraValues)
	b.Column("fuchsia.thread.name", thread, &x.ThreadName, ir.Strings())
	b.Column("fuchsia.thread.koid", thread, &x.ThreadKoid)
	b.Column("fuchsia.thread.bare", thread, &x.ThreadBare)
	b.Column("fuchsia.stack.size", stack, &x.StackFirst, ir.Counts(frame), ir.Optional())
	b.Column("fuchsia.stack.location", frame, &x.StackLocation, ir.IndexInto("fuchsia.location"))
	b.Column("fuchsia.label.key", label, &x.LabelKey, ir.Strings())
	b.Column("fuchsia.label.numeric", label, &x.LabelNumeric)
	b.Column("fuchsia.label.str", label, &x.LabelStr, ir.Strings(), ir.Data(LossRedactedLabels, redactedLabels))
	b.Column("fuchsia.label.num", label, &x.LabelNum)
	b.Column("fuchsia.label.unit", label, &x.LabelUnit, ir.Strings())
	b.Bytes("fuchsia.contents", contents, &x.Contents, ir.Data(ir.LossRedactedContents, redactedContents))
	if st := x.Stream; st != nil {
		const chunk, region, cchunk, unknown = "fuchsia.stream.stack_chunk", "fuchsia.stream.region", "fuchsia.stream.contents_chunk", "fuchsia.stream.unknown"
		b.Column("fuchsia.stream.records", "fuchsia.stream.record", &st.Records)
		b.Column("fuchsia.stream.alloc_fields", ir.TableNode, &st.AllocFields)
		b.Column("fuchsia.stream.stack_key", stack, &st.StackKey)
		b.Column("fuchsia.stream.stack_chunk_stack", chunk, &st.StackChunkStack, ir.IndexInto(stack))
		b.Column("fuchsia.stream.stack_chunk_size", chunk, &st.StackChunkSize)
		b.Column("fuchsia.stream.thread_key", thread, &st.ThreadKey)
		b.Column("fuchsia.stream.region_mapping", region, &st.RegionMapping, ir.IndexInto("fuchsia.mapping"))
		b.Column("fuchsia.stream.region_fields", region, &st.RegionFields)
		b.Column("fuchsia.stream.region_vaddr", region, &st.RegionVaddr, ir.Hex())
		b.Column("fuchsia.stream.contents_chunk_node", cchunk, &st.ContentsChunkNode)
		b.Column("fuchsia.stream.contents_chunk_size", cchunk, &st.ContentsChunkSize)
		b.Column("fuchsia.stream.orphan_address", "fuchsia.stream.orphan", &st.OrphanAddress, ir.Hex())
		b.Bytes("fuchsia.stream.orphan_contents", "fuchsia.stream.orphan_contents", &st.OrphanContents,
			ir.Data(ir.LossRedactedContents, redactedContents))
		b.Column("fuchsia.stream.unknown_record", unknown, &st.UnknownRecord)
		b.Column("fuchsia.stream.unknown_ordinal", unknown, &st.UnknownOrdinal)
		b.Column("fuchsia.stream.unknown_size", unknown, &st.UnknownFirst, ir.Counts("fuchsia.stream.unknown_bytes"), ir.Optional())
		b.Bytes("fuchsia.stream.unknown_bytes", "fuchsia.stream.unknown_bytes", &st.UnknownBytes,
			ir.Data(LossRedactedUnknownFields, redactedUnknownFields))
	}
}

// IdentityKind says that a Fuchsia heapdump's blocks are identified by
// their address and, where the profile has them, their allocation time: a
// freed block's address is reused, its time is not. A profile of samples
// that merge blocks has none.
func (x *Snapshot) IdentityKind() string {
	if !slices.ContainsFunc(x.Flags, func(f uint8) bool { return f&FlagAddress != 0 }) {
		return "" // samples of merged blocks
	}
	if len(x.Timestamp) == 0 {
		return "Fuchsia block addresses (no allocation times: a reused address counts as the same block)"
	}
	return "Fuchsia block addresses with their allocation times"
}

// Identity returns node i's address and allocation time; a sample that
// stands for several blocks has none.
func (x *Snapshot) Identity(s *ir.Snapshot, i int) (ir.Identity, bool) {
	if i < len(x.Flags) && x.Flags[i]&FlagAddress == 0 {
		return ir.Identity{}, false // a sample of merged blocks
	}
	id := ir.Identity{ID: s.Nodes.ID.At(i)}
	if i < len(x.Timestamp) {
		id.Qualifier = uint64(x.Timestamp[i])
	}
	return id, true
}

// FormatNodeID writes a node id, a block's address, in hex as addresses
// are written ("0x2d378d3424").
func (x *Snapshot) FormatNodeID(id uint64) string { return "0x" + strconv.FormatUint(id, 16) }

// AllocationStacks returns each block's allocation stack, innermost frame
// first, as the file's locations resolve it (ir.StackSource); nil when the
// snapshot has no stacks. Frames a conversion wrote for a class (Frame.Class)
// are among them, marked. The function it returns caches frames: call it
// from one goroutine.
func (x *Snapshot) AllocationStacks(f *ir.File, s *ir.Snapshot) func(i int) []ir.Frame {
	fm := FileOf(f)
	if fm == nil || x.Stacks() == 0 || len(x.Stack) != s.Nodes.Len() {
		return nil
	}
	byLocation := map[uint32][]ir.Frame{}
	return func(i int) []ir.Frame {
		var out []ir.Frame
		for _, l := range x.StackOf(int(x.Stack[i])) {
			frames, ok := byLocation[l]
			if !ok {
				// Frames lists a location's inlined functions outermost
				// first; a stack goes from the innermost.
				frames = slices.Clone(fm.Frames(f, int(l)))
				slices.Reverse(frames)
				byLocation[l] = frames
			}
			out = append(out, frames...)
		}
		return out
	}
}
