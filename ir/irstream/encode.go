package irstream

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
)

// Magic is the first value of every IR stream, msgpack ["heapir", version]
// without the version byte.
var Magic = []byte{0x92, 0xa6, 'h', 'e', 'a', 'p', 'i', 'r'}

// ZstdMagic starts a zstd frame (the .heapir.zst form).
var ZstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

const (
	// chunkValues is how many column values go in one "col" record, and
	// how many bytes in a chunk of a bytes column.
	chunkValues = 1 << 16
	// chunkStrings is how many strings go in one "strings" record.
	chunkStrings = 1 << 14
	// maxChunkBytes bounds one "col" record's payload (8-byte values).
	maxChunkBytes = 8 * chunkValues
)

// Encode writes f to w as an IR stream (see SPEC.md). It refuses a file
// the decoder would refuse for its sizes (a name longer than the stream
// allows, a value nested too deep), so that what it writes reads back.
func Encode(w io.Writer, f *ir.File) error {
	return encodeWith(w, f, WriterOptions{})
}

func encodeWith(w io.Writer, f *ir.File, opts WriterOptions) error {
	sw, err := NewWriter(w, f, len(f.Snapshots), opts)
	if err != nil {
		return err
	}
	for _, s := range f.Snapshots {
		if err := sw.WriteSnapshot(s); err != nil {
			return err
		}
	}
	return sw.Close()
}

// WriterOptions say how a Writer writes.
type WriterOptions struct {
	// Compress writes a .heapir.zst at Level (ArchiveLevel when Level is
	// not set).
	Compress bool
	Level    zstd.EncoderLevel
}

// A Writer writes an IR stream a snapshot at a time, so that a file too
// large to hold in memory whole — a long series of snapshots — is written
// from one snapshot after another. It keeps the last snapshot written,
// which the next may be stored against (SPEC.md, Snapshots stored against
// a base).
type Writer struct {
	e        *encoder
	bw       *bufio.Writer
	w        io.Writer
	zw       *zstd.Encoder
	out, in  *countWriter
	frames   []seekEntry
	lastOut  int64
	lastIn   int64
	framed   bool
	head     *ir.File
	total, n int
	prev     *ir.Snapshot
	err      error
}

// NewWriter starts writing to w a stream of head's format, tables and
// sections of the file (head's Snapshots are not written) that will hold
// snapshots snapshots, each given to WriteSnapshot in order; Close ends
// it. It refuses what Encode refuses.
func NewWriter(w io.Writer, head *ir.File, snapshots int, opts WriterOptions) (*Writer, error) {
	if err := checkHead(head); err != nil {
		return nil, err
	}
	sw := &Writer{w: w, head: head, total: snapshots}
	var dst io.Writer = w
	if opts.Compress {
		level := opts.Level
		if level == 0 { // not set
			level = ArchiveLevel
		}
		sw.out = &countWriter{w: w}
		zw, err := zstd.NewWriter(sw.out, zstd.WithEncoderLevel(level))
		if err != nil {
			return nil, err
		}
		sw.zw = zw
		sw.in = &countWriter{w: zw}
		dst = sw.in
		// A file with sections of its own is read whole (DecodeSnapshot):
		// its snapshots stay in one frame, where zstd finds what they
		// repeat.
		sw.framed = len(head.Sections) == 0
	}
	sw.bw = bufio.NewWriterSize(dst, 1<<20)
	sw.e = &encoder{enc: msgpack.NewEncoder(sw.bw)}
	sw.e.enc.UseCompactInts(true)
	sw.e.head(head, snapshots)
	return sw, sw.e.err
}

// cut ends a zstd frame, at a boundary of the stream's parts (before each
// snapshot and before the end record), when the stream is framed.
func (sw *Writer) cut(last bool) error {
	if sw.zw == nil || !sw.framed && !last {
		return nil
	}
	if err := sw.bw.Flush(); err != nil {
		return err
	}
	if err := sw.zw.Close(); err != nil {
		return err
	}
	sw.frames = append(sw.frames, seekEntry{compressed: sw.out.n - sw.lastOut, decompressed: sw.in.n - sw.lastIn})
	sw.lastOut, sw.lastIn = sw.out.n, sw.in.n
	if !last {
		sw.zw.Reset(sw.out)
	}
	return nil
}

// WriteSnapshot writes the next snapshot. Its strings and classes are
// the head's.
func (sw *Writer) WriteSnapshot(s *ir.Snapshot) error {
	if sw.err != nil {
		return sw.err
	}
	if sw.n >= sw.total {
		return fmt.Errorf("ir: cannot encode: more snapshots than the %d declared", sw.total)
	}
	if sw.err = checkSnapshot(s, sw.n); sw.err != nil {
		return sw.err
	}
	if sw.err = sw.cut(false); sw.err != nil {
		return sw.err
	}
	sw.e.snapshot(sw.n, s, planBaseOf(sw.prev, s, sw.n))
	sw.prev = s
	sw.n++
	sw.err = sw.e.err
	return sw.err
}

// Close writes the end of the stream (and, compressed, the seek table).
// It does not close the underlying writer.
func (sw *Writer) Close() error {
	if sw.err != nil {
		if sw.zw != nil {
			sw.zw.Close()
		}
		return sw.err
	}
	if sw.n != sw.total {
		return fmt.Errorf("ir: cannot encode: %d snapshots written of the %d declared", sw.n, sw.total)
	}
	if err := sw.cut(false); err != nil {
		return err
	}
	sw.e.end(len(sw.head.Strings), sw.total)
	if sw.e.err != nil {
		return sw.e.err
	}
	if sw.zw == nil {
		return sw.bw.Flush()
	}
	if err := sw.cut(true); err != nil {
		return err
	}
	if !sw.framed {
		return nil
	}
	_, err := sw.w.Write(seekTable(sw.frames))
	return err
}

// ArchiveLevel is the zstd level EncodeZstd writes at. A Node heap's IR
// compresses 30% smaller at it than at the fastest level, for a fifth
// more time in all, and as small as at the best level in half the time
// (docs/performance.md): a .heapir.zst is an archive, written once, kept
// long.
const ArchiveLevel = zstd.SpeedBetterCompression

// EncodeZstd writes f to w as a zstd-compressed IR stream (.heapir.zst),
// at ArchiveLevel.
func EncodeZstd(w io.Writer, f *ir.File) error {
	return EncodeZstdLevel(w, f, ArchiveLevel)
}

// EncodeZstdLevel writes f to w as a zstd-compressed IR stream
// (.heapir.zst) at the given level: zstd.SpeedFastest when the time to
// write matters more than the size, zstd.SpeedBestCompression for the
// smallest file. Every level decodes the same way (Decode).
//
// The stream of a file without sections of the file (a series, a V8 or
// Dart file) is written as one zstd frame for the head (everything before
// the first snapshot record), one for each snapshot and one for the end
// record, followed by the frames' seek table in zstd's seekable format (a
// skippable frame; SPEC.md, Compressed streams), so that DecodeSnapshot
// reads one snapshot without decompressing the others.
func EncodeZstdLevel(w io.Writer, f *ir.File, level zstd.EncoderLevel) error {
	return encodeWith(w, f, WriterOptions{Compress: true, Level: level})
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type encoder struct {
	enc   *msgpack.Encoder
	err   error
	buf   []byte
	vals  []uint64
	diffs []uint64 // a chunk's values, delta-coded
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

// str writes a string: a msgpack str when it is UTF-8, else a bin, so that
// a msgpack library that decodes str as text reads every stream.
func (e *encoder) str(s string) {
	if e.err != nil {
		return
	}
	if utf8.ValidString(s) {
		e.err = e.enc.EncodeString(s)
		return
	}
	// A bin of the string's bytes, without copying them.
	if e.err = e.enc.EncodeBytesLen(len(s)); e.err == nil {
		_, e.err = io.WriteString(e.enc.Writer(), s)
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
func (e *encoder) bin(b []byte) {
	if e.err == nil {
		e.err = e.enc.EncodeBytes(b)
	}
}
func (e *encoder) raw(b []byte) {
	if e.err == nil {
		e.err = e.enc.Encode(msgpack.RawMessage(b))
	}
}

// head writes the stream's header and everything before the first
// snapshot record, for a file of the given number of snapshots.
func (e *encoder) head(f *ir.File, snapshots int) {
	e.arr(2)
	e.str("heapir")
	e.uint(ir.Version)

	core := ir.FileBindings(f)
	e.arr(3)
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
	e.uint(uint64(snapshots))
	e.decls(core)
	sections := e.sections(-1, f.Sections)

	for i := 0; i < len(f.Strings); i += chunkStrings {
		part := f.Strings[i:min(i+chunkStrings, len(f.Strings))]
		e.arr(2)
		e.str("strings")
		e.arr(len(part))
		for _, s := range part {
			e.str(s)
		}
	}
	e.columns(-1, core)
	for _, b := range sections {
		e.columns(-1, b)
	}
}

// end writes the end record.
func (e *encoder) end(strings, snapshots int) {
	e.arr(2)
	e.str("end")
	e.mapLen(2)
	e.str("strings")
	e.uint(uint64(strings))
	e.str("snapshots")
	e.uint(uint64(snapshots))
}

func (e *encoder) snapshot(idx int, s *ir.Snapshot, p *basing) {
	core := ir.SnapshotBindings(s)
	e.arr(3)
	e.str("snapshot")
	if p != nil {
		e.mapLen(12)
		e.str("base")
		e.uint(uint64(p.base))
		e.str("based")
		e.arr(len(p.order))
		for _, name := range p.order {
			e.str(name)
		}
	} else {
		e.mapLen(10)
	}
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
	if s.Root == ir.NoNode {
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
	if p == nil {
		e.decls(core)
		sections := e.sections(idx, s.Sections)
		e.columns(idx, core)
		for _, b := range sections {
			e.columns(idx, b)
		}
		return
	}
	// node.base is declared first: the node table's first column, which
	// every based value of the table needs before it.
	nb := &ir.Bindings{}
	nb.Column(nodeBaseColumn, ir.TableNode, &p.nodeBase)
	e.declList(append([]*ir.Column{&nb.Columns()[0]}, present(core)...))
	sections := e.sections(idx, s.Sections)
	cols := append([]*ir.Column{&nb.Columns()[0]}, present(core)...)
	for _, b := range sections {
		cols = append(cols, present(b)...)
	}
	first := make(map[string]bool) // the tables whose first column has been seen
	firstCol := make(map[*ir.Column]bool)
	for _, c := range cols {
		if !first[c.Decl.Table] {
			first[c.Decl.Table], firstCol[c] = true, true
		}
	}
	for _, c := range basedOrder(cols) {
		if p.based[c.Decl.Name] {
			e.residualColumn(idx, c, p, p.zeros[c.Decl.Name] && !firstCol[c])
		} else {
			e.column(idx, c)
		}
	}
}

// zeros writes n zero values of a column as zeros records.
func (e *encoder) zeros(scope int, name string, n int) {
	for i := 0; i < n; i += chunkValues {
		e.arr(4)
		e.str("zeros")
		e.int(int64(scope))
		e.str(name)
		e.uint(uint64(min(chunkValues, n-i)))
	}
}

// residualColumn writes a based column's stored numbers (its differences
// from the base), as zeros records when they are all 0 and the column may
// be (zeros).
func (e *encoder) residualColumn(scope int, c *ir.Column, p *basing, zeros bool) {
	name, n := c.Decl.Name, c.Len()
	if zeros {
		e.zeros(scope, name, n)
		return
	}
	if cap(e.vals) < chunkValues {
		e.vals = make([]uint64, chunkValues)
	}
	resid := make([]uint64, chunkValues)
	r := p.residuals(c)
	var prev uint64
	for i := 0; i < n; i += chunkValues {
		part := e.vals[:min(chunkValues, n-i)]
		c.Values(part, i)
		prev = e.packed(scope, name, r.next(resid[:len(part)], part), prev)
	}
}

// sections writes the section records of a scope and returns their
// declarations, whose columns follow the core's.
func (e *encoder) sections(scope int, l []ir.Section) []*ir.Bindings {
	out := make([]*ir.Bindings, len(l))
	for i, x := range l {
		b := ir.SectionBindings(x)
		out[i] = b
		e.arr(6)
		e.str("section")
		e.int(int64(scope))
		e.str(x.SectionName())
		e.uint(uint64(b.Version))
		e.mapLen(len(b.Fields()) + len(b.Sizes()))
		for fi := range b.Fields() {
			fl := &b.Fields()[fi]
			e.str(fl.Name)
			e.field(fl)
		}
		for _, ts := range b.Sizes() {
			e.str(ts.Field)
			e.uint(uint64(b.TableLen(ts.Table)))
		}
		e.decls(b)
	}
	return out
}

func (e *encoder) field(fl *ir.Field) {
	switch fl.Kind {
	case ir.FieldUint:
		e.uint(fl.Uint())
	case ir.FieldInt:
		e.int(fl.Int())
	case ir.FieldBool:
		e.bool(fl.Bool())
	case ir.FieldString:
		e.str(fl.Str())
	case ir.FieldStringIndex:
		e.uint(uint64(fl.Index()))
	case ir.FieldJSON:
		j := fl.JSON()
		e.json(&j)
	case ir.FieldRaw:
		e.raw(fl.Raw())
	}
}

// decls writes the declarations of the columns present.
func (e *encoder) decls(b *ir.Bindings) { e.declList(present(b)) }

// present returns the columns of b that are present.
func present(b *ir.Bindings) []*ir.Column {
	var out []*ir.Column
	for ci := range b.Columns() {
		if c := &b.Columns()[ci]; c.Present() {
			out = append(out, c)
		}
	}
	return out
}

// declList writes the declarations of columns, in order.
func (e *encoder) declList(cols []*ir.Column) {
	e.arr(len(cols))
	for _, c := range cols {
		e.arr(4)
		e.str(c.Decl.Name)
		e.str(string(c.Decl.Type))
		e.str(c.Decl.Table)
		e.str(c.Decl.Of)
	}
}

// json writes a JSON value as the natural msgpack value; objects become maps
// whose keys keep their order in the stream.
func (e *encoder) json(j *ir.JSON) {
	switch j.Kind {
	case ir.JSONNull:
		if e.err == nil {
			e.err = e.enc.EncodeNil()
		}
	case ir.JSONBool:
		e.bool(j.Bool)
	case ir.JSONInt:
		e.int(j.Int)
	case ir.JSONFloat:
		if e.err == nil {
			e.err = e.enc.EncodeFloat64(j.Float)
		}
	case ir.JSONString:
		e.str(j.Str)
	case ir.JSONArray:
		e.arr(len(j.Elems))
		for i := range j.Elems {
			e.json(&j.Elems[i])
		}
	case ir.JSONObject:
		e.mapLen(len(j.Fields))
		for i := range j.Fields {
			e.str(j.Fields[i].Key)
			e.json(&j.Fields[i].Value)
		}
	}
}

// columns writes the chunks of a scope's columns that are present.
func (e *encoder) columns(scope int, b *ir.Bindings) {
	for ci := range b.Columns() {
		c := &b.Columns()[ci]
		if c.Present() {
			e.column(scope, c)
		}
	}
}

func (e *encoder) colHeader(scope int, name string, width int) {
	e.arr(5)
	e.colStart(scope, name, width)
}

func (e *encoder) colStart(scope int, name string, width int) {
	e.str("col")
	e.int(int64(scope))
	e.str(name)
	e.uint(uint64(width))
}

// column writes a column in chunks: 8- and 32-bit columns in their width,
// a Uints column in its storage width (all zeros as zeros records where
// they are allowed), bytes 64 KiB a chunk, other columns each chunk in the
// narrowest width its largest value fits.
func (e *encoder) column(scope int, c *ir.Column) {
	name := c.Decl.Name
	switch d := c.Storage().(type) {
	case []byte:
		e.u8chunks(scope, name, d)
		return
	case []uint32:
		e.u32chunks(scope, name, d)
		return
	case []uint64:
		var prev uint64
		for i := 0; i < len(d); i += chunkValues {
			prev = e.packed(scope, name, d[i:min(i+chunkValues, len(d))], prev)
		}
		return
	case *ir.Uints:
		if u, ok := d.U8(); ok {
			e.u8chunks(scope, name, u)
			return
		}
		if u, ok := d.U32(); ok {
			e.u32chunks(scope, name, u)
			return
		}
		if d.Width() == 0 && (c.Decl.Table == ir.TableNode || c.Decl.Table == ir.TableEdge) {
			e.zeros(scope, name, d.Len())
			return
		}
	}
	n := c.Len()
	if cap(e.vals) < chunkValues {
		e.vals = make([]uint64, chunkValues)
	}
	var prev uint64
	for i := 0; i < n; i += chunkValues {
		part := e.vals[:min(chunkValues, n-i)]
		c.Values(part, i)
		prev = e.packed(scope, name, part, prev)
	}
}

// packed writes one chunk of values, delta-coded where deltaSmaller says
// so, in the narrowest width its largest stored value fits, split into
// byte planes when that is more than a byte; prev is the
// column's value before the chunk (0 before its first), and it returns the
// chunk's last value.
func (e *encoder) packed(scope int, name string, part []uint64, prev uint64) uint64 {
	last := part[len(part)-1]
	enc := 0
	if deltaSmaller(part, prev) {
		enc = EncodingDelta
		e.diffs = appendDeltas(e.diffs[:0], part, prev)
		part = e.diffs
	}
	var m uint64
	for _, x := range part {
		m |= x
	}
	w := widthOf(m)
	e.buf = slices.Grow(e.buf[:0], w*len(part))[:w*len(part)]
	b := e.buf
	if w == 1 {
		for j, x := range part {
			b[j] = byte(x)
		}
	} else {
		// Wider values are always split into planes: zstd then finds
		// runs of equal high bytes instead of bytes interleaved with the
		// changing low ones.
		enc |= EncodingSplit
		split(b, part, w)
	}
	if enc == 0 {
		e.colHeader(scope, name, w)
		e.bin(b)
		return last
	}
	e.arr(6)
	e.colStart(scope, name, w)
	e.uint(uint64(enc))
	e.bin(b)
	return last
}

// The encodings of a "col" chunk (schema 7), bits of its fifth element;
// SPEC.md, Columns, defines them.
const (
	// EncodingDelta: the chunk stores each value's difference from the
	// one before it in the column (0 before the first), zigzag-coded.
	EncodingDelta = 1
	// EncodingSplit: the chunk's bytes are stored plane by plane: the
	// first byte of every value, then the second, and so on.
	EncodingSplit = 2
)

// deltaSmaller reports whether a chunk is stored delta-coded: whether the
// differences take fewer significant bytes in all than the values (ids
// that step by 2, element indices, sorted indices), prev being the
// column's value before the chunk. The choice costs a pass over the chunk;
// the stream's size is what it saves (docs/performance.md).
func deltaSmaller(part []uint64, prev uint64) bool {
	c := byteCount{prev: prev}
	c.add(part)
	return c.delta < c.plain
}

// split writes values of width w (2, 4 or 8) into b plane by plane
// (EncodingSplit).
func split(b []byte, vals []uint64, w int) {
	n := len(vals)
	p0, p1 := b[:n], b[n:2*n]
	switch w {
	case 2:
		for i, x := range vals {
			p0[i], p1[i] = byte(x), byte(x>>8)
		}
	case 4:
		p2, p3 := b[2*n:3*n], b[3*n:4*n]
		for i, x := range vals {
			p0[i], p1[i], p2[i], p3[i] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
		}
	default:
		p2, p3, p4, p5, p6, p7 := b[2*n:3*n], b[3*n:4*n], b[4*n:5*n], b[5*n:6*n], b[6*n:7*n], b[7*n:8*n]
		for i, x := range vals {
			p0[i], p1[i], p2[i], p3[i] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
			p4[i], p5[i], p6[i], p7[i] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
		}
	}
}

// significantBytes is the number of bytes of v up to its highest
// non-zero one.
func significantBytes(v uint64) int { return (bits.Len64(v) + 7) / 8 }

// zigzag maps a difference, taken as signed, to an unsigned number that
// is small when the difference is near 0 either way.
func zigzag(d uint64) uint64 { return d<<1 ^ uint64(int64(d)>>63) }

// appendDeltas appends the zigzag-coded differences of v (EncodingDelta)
// to out, prev being the value before v's first.
func appendDeltas(out, v []uint64, prev uint64) []uint64 {
	for _, x := range v {
		out, prev = append(out, zigzag(x-prev)), x
	}
	return out
}

func (e *encoder) u8chunks(scope int, name string, v []uint8) {
	for i := 0; i < len(v); i += chunkValues {
		e.colHeader(scope, name, 1)
		e.bin(v[i:min(i+chunkValues, len(v))])
	}
}

func (e *encoder) u32chunks(scope int, name string, v []uint32) {
	if cap(e.vals) < chunkValues {
		e.vals = make([]uint64, chunkValues)
	}
	var prev uint64
	for i := 0; i < len(v); i += chunkValues {
		part := e.vals[:min(chunkValues, len(v)-i)]
		for j, x := range v[i : i+len(part)] {
			part[j] = uint64(x)
		}
		prev = e.packed(scope, name, part, prev)
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

// checkLimits checks f against the decoder's limits on what the stream
// declares in its records (the columns' values have none but the tables').
// checkHead checks a file's head (its names and sections of the file)
// against the decoder's limits, so that what is written reads back.
func checkHead(f *ir.File) error {
	if len(f.Format) > 64 || len(f.FormatVersion) > 4096 || len(f.Producer) > 4096 {
		return failf("the format's name (at most 64 bytes), version or producer (at most 4096) is too long")
	}
	if err := checkSections(f.Sections); err != nil {
		return err
	}
	return nil
}

// checkSnapshot checks snapshot i against the decoder's limits.
func checkSnapshot(s *ir.Snapshot, i int) error {
	if len(s.NodeKinds) > 256 || len(s.EdgeKinds) > 256 || len(s.Totals) > maxTableLen {
		return failf("snapshot %d: at most 256 node and edge kinds and %d totals", i, maxTableLen)
	}
	for _, k := range s.NodeKinds {
		if len(k) > 1024 {
			return failf("snapshot %d: node kind %.64q longer than 1024 bytes", i, k)
		}
	}
	for _, k := range s.EdgeKinds {
		if len(k.Name) > 1024 {
			return failf("snapshot %d: edge kind %.64q longer than 1024 bytes", i, k.Name)
		}
	}
	for _, t := range s.Totals {
		if len(t.Name) > 256 {
			return failf("snapshot %d: total %.64q has a name longer than 256 bytes", i, t.Name)
		}
	}
	if err := checkSections(s.Sections); err != nil {
		return fmt.Errorf("snapshot %d: %w", i, err)
	}
	return nil
}

// checkSections checks sections against the decoder's limits.
func checkSections(l []ir.Section) error {
	for _, x := range l {
		b := ir.SectionBindings(x)
		if name := x.SectionName(); name == "" || len(name) > 256 || len(b.Fields()) > maxTableLen || len(b.Columns()) > maxTableLen {
			return failf("section %.64q: a name of 1 to 256 bytes, at most %d fields and columns", name, maxTableLen)
		}
		for k := range b.Fields() {
			fl := &b.Fields()[k]
			if len(fl.Name) > 256 {
				return failf("section %s: field name %.64q longer than 256 bytes", x.SectionName(), fl.Name)
			}
			if fl.Kind == ir.FieldJSON {
				if j := fl.JSON(); !jsonFits(&j, 0) {
					return failf("section %s: field %s nests deeper than %d or has a list of more than %d entries", x.SectionName(), fl.Name, maxJSONDepth, maxJSONElems)
				}
			}
		}
		for k := range b.Columns() {
			d := b.Columns()[k].Decl
			if err := d.Check(); err != nil {
				return failf("section %s: %v", x.SectionName(), err)
			}
			if len(d.Name) > maxNameLen || len(d.Table) > maxNameLen || len(d.Of) > maxNameLen {
				return failf("section %s: column %.64q: names of at most %d bytes", x.SectionName(), d.Name, maxNameLen)
			}
		}
	}
	return nil
}

// jsonFits reports whether the decoder takes j: nested at most
// maxJSONDepth deep, no list or object of more than maxJSONElems entries.
func jsonFits(j *ir.JSON, depth int) bool {
	if depth > maxJSONDepth || len(j.Elems) > maxJSONElems || len(j.Fields) > maxJSONElems {
		return false
	}
	for i := range j.Elems {
		if !jsonFits(&j.Elems[i], depth+1) {
			return false
		}
	}
	for i := range j.Fields {
		if !jsonFits(&j.Fields[i].Value, depth+1) {
			return false
		}
	}
	return true
}

// failf is an error of a file the encoder refuses.
func failf(format string, args ...any) error {
	return fmt.Errorf("ir: cannot encode: "+format, args...)
}
