package ir

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
)

// Version is the IR schema version this package writes. The decoder reads
// every version up to it and refuses newer ones.
const Version = 5

// Magic is the first value of every IR stream, msgpack ["heapir", version]
// without the version byte.
var Magic = []byte{0x92, 0xa6, 'h', 'e', 'a', 'p', 'i', 'r'}

// ZstdMagic starts a zstd frame (the .heapir.zst form).
var ZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

const (
	// chunkValues is how many column values go in one "col" record.
	chunkValues = 1 << 16
	// chunkStrings is how many strings go in one "strings" record.
	chunkStrings = 1 << 14
	// maxChunkBytes bounds one "col" record's payload (8-byte values).
	maxChunkBytes = 8 * chunkValues
)

// Encode writes f to w as an IR stream (see SPEC.md).
func Encode(w io.Writer, f *File) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{enc: msgpack.NewEncoder(bw)}
	e.enc.UseCompactInts(true)
	e.file(f)
	if e.err == nil {
		e.err = bw.Flush()
	}
	return e.err
}

// EncodeZstd writes f to w as a zstd-compressed IR stream (.heapir.zst).
func EncodeZstd(w io.Writer, f *File) error {
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return err
	}
	if err := Encode(zw, f); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}

type encoder struct {
	enc *msgpack.Encoder
	err error
	buf []byte
}

// Each helper records the first error and turns later calls into no-ops, so
// the record layout reads top to bottom without error plumbing.
func (e *encoder) arr(n int) {
	if e.err == nil {
		e.err = e.enc.EncodeArrayLen(n)
	}
}
func (e *encoder) mapLen(n int) {
	if e.err == nil {
		e.err = e.enc.EncodeMapLen(n)
	}
}
func (e *encoder) str(s string) {
	if e.err == nil {
		e.err = e.enc.EncodeString(s)
	}
}
func (e *encoder) uint(v uint64) {
	if e.err == nil {
		e.err = e.enc.EncodeUint(v)
	}
}
func (e *encoder) int(v int64) {
	if e.err == nil {
		e.err = e.enc.EncodeInt(v)
	}
}
func (e *encoder) bool(v bool) {
	if e.err == nil {
		e.err = e.enc.EncodeBool(v)
	}
}
func (e *encoder) nil() {
	if e.err == nil {
		e.err = e.enc.EncodeNil()
	}
}
func (e *encoder) float(v float64) {
	if e.err == nil {
		e.err = e.enc.EncodeFloat64(v)
	}
}
func (e *encoder) bin(b []byte) {
	if e.err == nil {
		e.err = e.enc.EncodeBytes(b)
	}
}

func (e *encoder) file(f *File) {
	e.arr(2)
	e.str("heapir")
	e.uint(Version)

	e.arr(2)
	e.str("file")
	e.mapLen(6)
	e.str("format")
	e.str(f.Format)
	e.str("format_version")
	e.str(f.FormatVersion)
	e.str("producer")
	e.str(f.Producer)
	e.str("strings")
	e.uint(uint64(len(f.Strings)))
	e.str("classes")
	e.uint(uint64(f.Classes.Len()))
	e.str("snapshots")
	e.uint(uint64(len(f.Snapshots)))
	if f.MoarVM != nil {
		e.moarvm(f.MoarVM)
	}
	if f.Fuchsia != nil {
		e.fuchsia(f.Fuchsia)
	}

	for i := 0; i < len(f.Strings); i += chunkStrings {
		part := f.Strings[i:min(i+chunkStrings, len(f.Strings))]
		e.arr(2)
		e.str("strings")
		e.arr(len(part))
		for _, s := range part {
			e.str(s)
		}
	}
	c := &f.Classes
	e.u32col(-1, "class.name", c.Name)
	e.u32col(-1, "class.library", c.Library)
	e.u32col(-1, "class.field_count", counts(c.FirstField))
	e.u32col(-1, "class.field_name", c.FieldName)
	if m := f.MoarVM; m != nil {
		e.u32col(-1, "moarvm.frame.name", m.FrameName)
		e.u32col(-1, "moarvm.frame.cuid", m.FrameCUID)
		e.u32col(-1, "moarvm.frame.line", m.FrameLine)
		e.u32col(-1, "moarvm.frame.file", m.FrameFile)
	}
	if m := f.Fuchsia; m != nil {
		e.fuchsiaColumns(m)
	}

	for i, s := range f.Snapshots {
		e.snapshot(i, s)
	}
	e.arr(2)
	e.str("end")
	e.mapLen(2)
	e.str("strings")
	e.uint(uint64(len(f.Strings)))
	e.str("snapshots")
	e.uint(uint64(len(f.Snapshots)))
}

// counts turns CSR offsets into per-entry counts, the form the stream stores
// (smaller, and it cannot be inconsistent).
func counts(off []uint32) []uint32 {
	if len(off) == 0 {
		return nil
	}
	c := make([]uint32, len(off)-1)
	for i := range c {
		c[i] = off[i+1] - off[i]
	}
	return c
}

func (e *encoder) snapshot(idx int, s *Snapshot) {
	e.arr(2)
	e.str("snapshot")
	e.mapLen(11)
	e.str("name")
	e.uint(uint64(s.Name))
	e.str("capture_time")
	e.int(s.CaptureTime)
	e.str("totals")
	e.arr(len(s.Totals))
	for _, t := range s.Totals {
		e.arr(2)
		e.str(t.Name)
		e.uint(t.Value)
	}
	e.str("node_kinds")
	e.arr(len(s.NodeKinds))
	for _, k := range s.NodeKinds {
		e.str(k)
	}
	e.str("edge_kinds")
	e.arr(len(s.EdgeKinds))
	for _, k := range s.EdgeKinds {
		e.arr(2)
		e.str(k.Name)
		e.bool(k.Indexed)
	}
	e.str("root")
	if s.Root == NoNode {
		e.int(-1)
	} else {
		e.uint(uint64(s.Root))
	}
	e.str("nodes")
	e.uint(uint64(s.Nodes.Len()))
	e.str("edges")
	e.uint(uint64(s.Edges.Len()))
	e.str("values")
	e.uint(uint64(s.Values.Len()))
	e.str("roots")
	e.uint(uint64(len(s.Roots)))
	e.str("columns")
	// Optional columns present in this snapshot, so that an empty optional
	// column and an absent one stay apart.
	var opt []string
	if len(s.Nodes.Class) > 0 {
		opt = append(opt, "node.class")
	}
	if s.Nodes.ExternalSize.Len() > 0 {
		opt = append(opt, "node.external_size")
	}
	e.arr(len(opt))
	for _, o := range opt {
		e.str(o)
	}

	if s.V8 != nil {
		e.v8(s.V8)
	}
	if s.Dart != nil {
		e.dart(s.Dart)
	}
	if s.MoarVM != nil {
		e.moarvmSnapshot(s.MoarVM)
	}
	if s.Fuchsia != nil {
		e.fuchsiaSnapshot(s.Fuchsia)
	}

	// node.kind and edge.kind come first and are always stored byte by byte:
	// they fix the node and edge counts that bound every "zeros" record.
	e.u8col(idx, "node.kind", s.Nodes.Kind)
	e.u8col(idx, "edge.kind", s.Edges.Kind)
	e.u32col(idx, "node.name", s.Nodes.Name)
	if len(s.Nodes.Class) > 0 {
		e.u32col(idx, "node.class", s.Nodes.Class)
	}
	e.uintsCol(idx, "node.id", &s.Nodes.ID)
	e.uintsCol(idx, "node.self_size", &s.Nodes.SelfSize)
	if s.Nodes.ExternalSize.Len() > 0 {
		e.uintsCol(idx, "node.external_size", &s.Nodes.ExternalSize)
	}
	e.u32col(idx, "node.edge_count", counts(s.Nodes.FirstEdge))
	e.u32col(idx, "edge.name", s.Edges.Name)
	e.u32col(idx, "edge.target", s.Edges.Target)

	rn := make([]uint32, len(s.Roots))
	rc := make([]uint32, len(s.Roots))
	for i, r := range s.Roots {
		rn[i], rc[i] = r.Node, r.Category
	}
	e.u32col(idx, "root.node", rn)
	e.u32col(idx, "root.category", rc)

	v := &s.Values
	e.u32col(idx, "value.node", v.Node)
	kinds := make([]uint8, len(v.Kind))
	for i, k := range v.Kind {
		kinds[i] = uint8(k)
	}
	e.u8col(idx, "value.kind", kinds)
	e.u64col(idx, "value.bits", v.Bits)
	e.u64col(idx, "value.aux", v.Aux)

	if s.V8 != nil {
		for _, c := range s.V8.NodeExtra {
			e.uintsCol(idx, "v8.node."+c.Name, &c.Values)
		}
		for _, c := range s.V8.EdgeExtra {
			e.uintsCol(idx, "v8.edge."+c.Name, &c.Values)
		}
		e.uintsCol(idx, "v8.trace_function_infos", &s.V8.TraceFunctionInfos)
		e.uintsCol(idx, "v8.trace_tree", &s.V8.TraceTree)
		e.uintsCol(idx, "v8.samples", &s.V8.Samples)
		e.uintsCol(idx, "v8.locations", &s.V8.Locations)
	}
	if d := s.Dart; d != nil {
		e.uintsCol(idx, "dart.class.flags", &d.ClassFlags)
		e.u32col(idx, "dart.class.uri", d.ClassURI)
		e.u32col(idx, "dart.class.reserved", d.ClassReserved)
		e.uintsCol(idx, "dart.field.flags", &d.FieldFlags)
		e.uintsCol(idx, "dart.field.index", &d.FieldIndex)
		e.u32col(idx, "dart.field.reserved", d.FieldReserved)
		e.u32col(idx, "dart.zero_ref.node", d.ZeroRefNode)
		e.u32col(idx, "dart.zero_ref.slot", d.ZeroRefSlot)
		e.u32col(idx, "dart.external.node", d.ExternalNode)
		e.uintsCol(idx, "dart.external.size", &d.ExternalSize)
		e.u32col(idx, "dart.external.name", d.ExternalName)
	}
	if m := s.MoarVM; m != nil {
		e.uintsCol(idx, "moarvm.node.tofi", &m.TOFI)
		e.uintsCol(idx, "moarvm.node.ref_start", &m.RefStart)
		e.u64col(idx, "moarvm.top.ids", m.TopIDs)
		e.u64col(idx, "moarvm.top.scores", m.TopScores)
	}
	if x := s.Fuchsia; x != nil {
		e.fuchsiaSnapshotColumns(idx, x)
	}
}

// moarvm writes the file-level MoarVM record; the frame columns follow the
// class columns.
func (e *encoder) moarvm(m *MoarVMFile) {
	e.arr(2)
	e.str("moarvm")
	e.mapLen(11)
	e.str("version")
	e.int(int64(m.Version))
	e.str("has_meta")
	e.bool(m.HasMeta)
	e.str("subversion")
	e.uint(m.Subversion)
	e.str("start_time")
	e.uint(m.StartTime)
	e.str("pid")
	e.uint(m.PID)
	e.str("has_pid")
	e.bool(m.HasPID)
	e.str("entry_count")
	e.uint(m.EntryCount)
	e.str("data_order")
	e.arr(len(m.DataOrder))
	for _, name := range m.DataOrder {
		e.str(name)
	}
	e.str("string_count")
	e.uint(uint64(m.StringCount))
	e.str("tocs")
	e.arr(len(m.TOCs))
	for _, t := range m.TOCs {
		e.arr(4)
		e.uint(uint64(t.NewStrings))
		e.uint(uint64(t.NewTypes))
		e.uint(uint64(t.NewFrames))
		e.arr(len(t.Blocks))
		for _, b := range t.Blocks {
			e.str(b)
		}
	}
	e.str("recovery")
	if r := m.Recovery; r == nil {
		e.nil()
	} else {
		e.mapLen(3)
		e.str("damage_at")
		e.int(r.DamageAt)
		e.str("reason")
		e.str(r.Reason)
		e.str("lost")
		e.int(int64(r.Lost))
	}
}

// moarvmSnapshot writes a snapshot's MoarVM record. highscores says whether
// the boards exist, so that a snapshot without them (nil) and one with
// empty boards stay apart.
func (e *encoder) moarvmSnapshot(m *MoarVMSnapshot) {
	e.arr(2)
	e.str("moarvm.snapshot")
	e.mapLen(4)
	e.str("has_meta")
	e.bool(m.HasMeta)
	e.str("snap_time")
	e.uint(m.SnapTime)
	e.str("gc_seq_num")
	e.uint(m.GCSeqNum)
	e.str("highscores")
	e.bool(m.TopIDs != nil || m.TopScores != nil)
}

func (e *encoder) dart(d *DartSnapshot) {
	e.arr(2)
	e.str("dart")
	e.mapLen(4)
	e.str("flags")
	e.uint(d.Flags)
	e.str("reference_count")
	e.uint(d.ReferenceCount)
	e.str("identity_hashes")
	e.bool(d.IdentityHashes)
	e.str("padding")
	e.uint(d.Padding)
}

func (e *encoder) v8(v *V8Snapshot) {
	e.arr(2)
	e.str("v8")
	e.mapLen(6)
	e.str("header")
	e.json(&v.Header)
	e.str("keys")
	e.arr(len(v.Keys))
	for _, k := range v.Keys {
		e.arr(2)
		e.str(k.Name)
		if k.Value == nil {
			e.nil()
		} else {
			e.json(k.Value)
		}
	}
	e.str("layout")
	e.str(v.Layout.String())
	e.str("escape")
	e.str(v.Escape.String())
	e.str("node_extra")
	e.arr(len(v.NodeExtra))
	for _, c := range v.NodeExtra {
		e.str(c.Name)
	}
	e.str("edge_extra")
	e.arr(len(v.EdgeExtra))
	for _, c := range v.EdgeExtra {
		e.str(c.Name)
	}
}

// json writes a JSON value as the natural msgpack value; objects become maps
// whose keys keep their order in the stream.
func (e *encoder) json(j *JSON) {
	switch j.Kind {
	case JSONNull:
		e.nil()
	case JSONBool:
		e.bool(j.Bool)
	case JSONInt:
		e.int(j.Int)
	case JSONFloat:
		e.float(j.Float)
	case JSONString:
		e.str(j.Str)
	case JSONArray:
		e.arr(len(j.Elems))
		for i := range j.Elems {
			e.json(&j.Elems[i])
		}
	case JSONObject:
		e.mapLen(len(j.Fields))
		for i := range j.Fields {
			e.str(j.Fields[i].Key)
			e.json(&j.Fields[i].Value)
		}
	}
}

func (e *encoder) colHeader(snap int, name string, width int) {
	e.arr(5)
	e.str("col")
	e.int(int64(snap))
	e.str(name)
	e.uint(uint64(width))
}

func (e *encoder) zeros(snap int, name string, n int) {
	for i := 0; i < n; i += chunkValues {
		e.arr(4)
		e.str("zeros")
		e.int(int64(snap))
		e.str(name)
		e.uint(uint64(min(chunkValues, n-i)))
	}
}

func (e *encoder) u8col(snap int, name string, v []uint8) {
	for i := 0; i < len(v); i += chunkValues {
		e.colHeader(snap, name, 1)
		e.bin(v[i:min(i+chunkValues, len(v))])
	}
}

func (e *encoder) u32col(snap int, name string, v []uint32) {
	for i := 0; i < len(v); i += chunkValues {
		part := v[i:min(i+chunkValues, len(v))]
		e.buf = e.buf[:0]
		for _, x := range part {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, x)
		}
		e.colHeader(snap, name, 4)
		e.bin(e.buf)
	}
}

func (e *encoder) u64col(snap int, name string, v []uint64) {
	for i := 0; i < len(v); i += chunkValues {
		part := v[i:min(i+chunkValues, len(v))]
		e.buf = e.buf[:0]
		for _, x := range part {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, x)
		}
		e.colHeader(snap, name, 8)
		e.bin(e.buf)
	}
}

func (e *encoder) uintsCol(snap int, name string, c *Uints) {
	switch {
	case c.u64 != nil:
		e.u64col(snap, name, c.u64)
	case c.u32 != nil:
		e.u32col(snap, name, c.u32)
	case c.u8 != nil:
		e.u8col(snap, name, c.u8)
	case tiedColumn(name):
		e.zeros(snap, name, c.n)
	default:
		// Only node and edge columns may use zeros records (SPEC.md).
		e.u8col(snap, name, make([]uint8, c.n))
	}
}

// tiedColumn reports whether a column has one value per node or per edge.
func tiedColumn(name string) bool {
	return strings.HasPrefix(name, "node.") || strings.HasPrefix(name, "edge.") ||
		strings.HasPrefix(name, "v8.node.") || strings.HasPrefix(name, "v8.edge.") ||
		strings.HasPrefix(name, "moarvm.node.") || strings.HasPrefix(name, "fuchsia.node.") ||
		name == fxAllocFields
}

// The Fuchsia optional columns: a record lists those present, so that an
// absent offset table and one of no entries stay apart.
const (
	fxLineCount    = "fuchsia.location.line_count"
	fxTimestamp    = "fuchsia.node.timestamp"
	fxThread       = "fuchsia.node.thread"
	fxLabelCount   = "fuchsia.node.label_count"
	fxContentsSize = "fuchsia.node.contents_size"
	fxStackSize    = "fuchsia.stack.size"
	fxContents     = "fuchsia.contents"
	fxExtraValue   = "fuchsia.extra.value"
)

// The FuchsiaStream columns (version 5), present when the fuchsia.snapshot
// record's "stream" is true. fxUnknownSize is optional, listed in the
// record's columns when UnknownFirst is not empty; fxOrphanContents and
// fxUnknownBytes are byte columns, like fxContents.
const (
	fxRecords           = "fuchsia.stream.records"
	fxAllocFields       = "fuchsia.stream.alloc_fields"
	fxStackKey          = "fuchsia.stream.stack_key"
	fxStackChunkStack   = "fuchsia.stream.stack_chunk_stack"
	fxStackChunkSize    = "fuchsia.stream.stack_chunk_size"
	fxThreadKey         = "fuchsia.stream.thread_key"
	fxRegionMapping     = "fuchsia.stream.region_mapping"
	fxRegionFields      = "fuchsia.stream.region_fields"
	fxRegionVaddr       = "fuchsia.stream.region_vaddr"
	fxContentsChunkNode = "fuchsia.stream.contents_chunk_node"
	fxContentsChunkSize = "fuchsia.stream.contents_chunk_size"
	fxOrphanAddress     = "fuchsia.stream.orphan_address"
	fxOrphanContents    = "fuchsia.stream.orphan_contents"
	fxUnknownRecord     = "fuchsia.stream.unknown_record"
	fxUnknownOrdinal    = "fuchsia.stream.unknown_ordinal"
	fxUnknownSize       = "fuchsia.stream.unknown_size"
	fxUnknownBytes      = "fuchsia.stream.unknown_bytes"
)

// fuchsia writes the file-level Fuchsia record; its columns follow the
// class (and MoarVM frame) columns.
func (e *encoder) fuchsia(m *FuchsiaFile) {
	if len(m.SampleTypes) > maxTableLen || len(m.Comments) > maxTableLen {
		if e.err == nil {
			e.err = fmt.Errorf("ir: the Fuchsia section has %d sample types and %d comments; the IR holds at most %d of each",
				len(m.SampleTypes), len(m.Comments), maxTableLen)
		}
		return
	}
	e.arr(2)
	e.str("fuchsia")
	e.mapLen(12)
	e.str("gzip")
	e.bool(m.Gzip)
	e.str("sample_types")
	e.arr(len(m.SampleTypes))
	for _, t := range m.SampleTypes {
		e.valueType(t)
	}
	e.str("default_sample_type")
	e.uint(uint64(m.DefaultSampleType))
	e.str("drop_frames")
	e.uint(uint64(m.DropFrames))
	e.str("keep_frames")
	e.uint(uint64(m.KeepFrames))
	e.str("doc_url")
	e.uint(uint64(m.DocURL))
	e.str("comments")
	e.arr(len(m.Comments))
	for _, c := range m.Comments {
		e.uint(uint64(c))
	}
	e.str("time_nanos")
	e.int(m.TimeNanos)
	e.str("duration_nanos")
	e.int(m.DurationNanos)
	e.str("period_type")
	e.valueType(m.PeriodType)
	e.str("period")
	e.int(m.Period)
	e.str("columns")
	if len(m.Locations.FirstLine) > 0 {
		e.arr(1)
		e.str(fxLineCount)
	} else {
		e.arr(0)
	}
}

func (e *encoder) valueType(t FuchsiaValueType) {
	e.arr(2)
	e.uint(uint64(t.Type))
	e.uint(uint64(t.Unit))
}

// fuchsiaColumns writes the file-level Fuchsia columns: each table's id
// column first (it fixes the table's length).
func (e *encoder) fuchsiaColumns(m *FuchsiaFile) {
	mp := &m.Mappings
	e.packedCol(-1, "fuchsia.mapping.id", mp.ID)
	e.packedCol(-1, "fuchsia.mapping.start", mp.Start)
	e.packedCol(-1, "fuchsia.mapping.limit", mp.Limit)
	e.packedCol(-1, "fuchsia.mapping.offset", mp.Offset)
	e.u32col(-1, "fuchsia.mapping.file", mp.File)
	e.u32col(-1, "fuchsia.mapping.build_id", mp.BuildID)
	e.u8col(-1, "fuchsia.mapping.flags", mp.Flags)
	fn := &m.Functions
	e.packedCol(-1, "fuchsia.function.id", fn.ID)
	e.u32col(-1, "fuchsia.function.name", fn.Name)
	e.u32col(-1, "fuchsia.function.system_name", fn.SystemName)
	e.u32col(-1, "fuchsia.function.filename", fn.Filename)
	e.zigzagCol(-1, "fuchsia.function.start_line", fn.StartLine)
	lc := &m.Locations
	e.packedCol(-1, "fuchsia.location.id", lc.ID)
	e.u32col(-1, "fuchsia.location.mapping", lc.Mapping)
	e.packedCol(-1, "fuchsia.location.address", lc.Address)
	e.boolCol(-1, "fuchsia.location.folded", lc.Folded)
	e.u32col(-1, fxLineCount, counts(lc.FirstLine))
	e.u32col(-1, "fuchsia.line.function", lc.Function)
	e.zigzagCol(-1, "fuchsia.line.line", lc.Line)
	e.zigzagCol(-1, "fuchsia.line.column", lc.Column)
	e.u32col(-1, "fuchsia.sample.snapshot", m.SampleSnapshot)
}

// fuchsiaSnapshot writes a snapshot's Fuchsia record.
func (e *encoder) fuchsiaSnapshot(x *FuchsiaSnapshot) {
	e.arr(2)
	e.str("fuchsia.snapshot")
	e.mapLen(7)
	e.str("has_process_name")
	e.bool(x.HasProcessName)
	e.str("process_name")
	e.uint(uint64(x.ProcessName))
	e.str("has_process_koid")
	e.bool(x.HasProcessKoid)
	e.str("process_koid")
	e.int(x.ProcessKoid)
	e.str("derived_edges")
	e.bool(x.DerivedEdges)
	e.str("stream")
	e.bool(x.Stream != nil)
	e.str("columns")
	var opt []string
	for _, c := range []struct {
		name    string
		present bool
	}{
		{fxTimestamp, len(x.Timestamp) > 0},
		{fxThread, len(x.Thread) > 0},
		{fxLabelCount, len(x.LabelFirst) > 0},
		{fxContentsSize, len(x.ContentsStart) > 0},
		{fxStackSize, len(x.StackFirst) > 0},
		{fxUnknownSize, x.Stream != nil && len(x.Stream.UnknownFirst) > 0},
	} {
		if c.present {
			opt = append(opt, c.name)
		}
	}
	e.arr(len(opt))
	for _, o := range opt {
		e.str(o)
	}
}

// fuchsiaSnapshotColumns writes a snapshot's Fuchsia columns: the node
// columns, the thread, stack and label tables (each first column fixing
// its table's length), the contents bytes, which the contents sizes bound,
// and last the stream details.
func (e *encoder) fuchsiaSnapshotColumns(idx int, x *FuchsiaSnapshot) {
	e.uintsCol(idx, "fuchsia.node.count", &x.Count)
	e.u8col(idx, "fuchsia.node.flags", x.Flags)
	e.zigzagCol(idx, fxTimestamp, x.Timestamp)
	e.u32col(idx, fxThread, x.Thread)
	e.u32col(idx, "fuchsia.node.stack", x.Stack)
	e.u32col(idx, fxLabelCount, counts(x.LabelFirst))
	if len(x.ContentsStart) > 0 {
		sizes := make([]uint64, len(x.ContentsStart)-1)
		for i := range sizes {
			sizes[i] = x.ContentsStart[i+1] - x.ContentsStart[i]
		}
		e.packedCol(idx, fxContentsSize, sizes)
	}
	e.zigzagCol(idx, fxExtraValue, x.ExtraValues)
	e.u32col(idx, "fuchsia.thread.name", x.ThreadName)
	e.packedCol(idx, "fuchsia.thread.koid", x.ThreadKoid)
	e.boolCol(idx, "fuchsia.thread.bare", x.ThreadBare)
	e.u32col(idx, fxStackSize, counts(x.StackFirst))
	e.u32col(idx, "fuchsia.stack.location", x.StackLocation)
	e.u32col(idx, "fuchsia.label.key", x.LabelKey)
	e.boolCol(idx, "fuchsia.label.numeric", x.LabelNumeric)
	e.u32col(idx, "fuchsia.label.str", x.LabelStr)
	e.zigzagCol(idx, "fuchsia.label.num", x.LabelNum)
	e.u32col(idx, "fuchsia.label.unit", x.LabelUnit)
	// Byte chunks: col records of width 1, at most 64 KiB each.
	e.u8col(idx, fxContents, x.Contents)
	if st := x.Stream; st != nil {
		e.fuchsiaStreamColumns(idx, st)
	}
}

// fuchsiaStreamColumns writes a snapshot's FuchsiaStream: each table's
// first column fixes its length, the chunk sizes come before the orphan
// bytes and the unknown field sizes before their bytes, which they bound.
func (e *encoder) fuchsiaStreamColumns(idx int, st *FuchsiaStream) {
	e.u8col(idx, fxRecords, st.Records)
	e.u8col(idx, fxAllocFields, st.AllocFields)
	e.packedCol(idx, fxStackKey, st.StackKey)
	e.u32col(idx, fxStackChunkStack, st.StackChunkStack)
	e.u32col(idx, fxStackChunkSize, st.StackChunkSize)
	e.packedCol(idx, fxThreadKey, st.ThreadKey)
	e.u32col(idx, fxRegionMapping, st.RegionMapping)
	e.u8col(idx, fxRegionFields, st.RegionFields)
	e.packedCol(idx, fxRegionVaddr, st.RegionVaddr)
	e.u32col(idx, fxContentsChunkNode, st.ContentsChunkNode)
	e.u32col(idx, fxContentsChunkSize, st.ContentsChunkSize)
	e.packedCol(idx, fxOrphanAddress, st.OrphanAddress)
	e.u8col(idx, fxOrphanContents, st.OrphanContents)
	e.u32col(idx, fxUnknownRecord, st.UnknownRecord)
	e.packedCol(idx, fxUnknownOrdinal, st.UnknownOrdinal)
	e.u32col(idx, fxUnknownSize, counts(st.UnknownFirst))
	e.u8col(idx, fxUnknownBytes, st.UnknownBytes)
}

// packedCol writes 64-bit values in chunks of the narrowest width that
// holds each chunk's largest value.
func (e *encoder) packedCol(snap int, name string, v []uint64) {
	for i := 0; i < len(v); i += chunkValues {
		part := v[i:min(i+chunkValues, len(v))]
		var m uint64
		for _, x := range part {
			m |= x
		}
		w := widthOf(m)
		e.buf = e.buf[:0]
		for _, x := range part {
			switch w {
			case 1:
				e.buf = append(e.buf, byte(x))
			case 2:
				e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(x))
			case 4:
				e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(x))
			default:
				e.buf = binary.LittleEndian.AppendUint64(e.buf, x)
			}
		}
		e.colHeader(snap, name, w)
		e.bin(e.buf)
	}
}

// widthOf returns the narrowest column width (1, 2, 4 or 8 bytes) that
// holds v.
func widthOf(v uint64) int {
	switch {
	case v <= 0xff:
		return 1
	case v <= 0xffff:
		return 2
	case v <= 0xffffffff:
		return 4
	}
	return 8
}

// zigzag maps a signed value to an unsigned one, small magnitudes to small
// values: 0, -1, 1, -2, 2, ... become 0, 1, 2, 3, 4, ...
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// unzigzag inverts zigzag.
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// zigzagCol writes signed values zigzag-encoded, as packedCol does.
func (e *encoder) zigzagCol(snap int, name string, v []int64) {
	for i := 0; i < len(v); i += chunkValues {
		part := v[i:min(i+chunkValues, len(v))]
		u := make([]uint64, len(part))
		for j, x := range part {
			u[j] = zigzag(x)
		}
		e.packedCol(snap, name, u)
	}
}

// boolCol writes booleans as a column of 0 and 1 bytes.
func (e *encoder) boolCol(snap int, name string, v []bool) {
	for i := 0; i < len(v); i += chunkValues {
		part := v[i:min(i+chunkValues, len(v))]
		b := make([]uint8, len(part))
		for j, x := range part {
			if x {
				b[j] = 1
			}
		}
		e.u8col(snap, name, b)
	}
}
