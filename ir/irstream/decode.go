package irstream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/heapconv/heapconv/ir"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Decoding limits. msgpack lets a 5-byte input declare a 4 GiB string or
// array; the decoder never allocates on a declared length alone. Strings are
// read in steps as their bytes arrive; arrays that hold small tables are
// capped; column data arrives in bounded chunks.
const (
	maxTableLen  = 1 << 16 // kinds, totals, keys, declarations, fields
	maxJSONDepth = 64
	maxJSONElems = 1 << 20 // elements of one JSON array/object in a section
	stringStep   = 1 << 16
	maxNameLen   = 1100 // column and table names
)

// Decode reads an IR stream, plain or zstd-compressed (detected by content),
// validates it and returns the file. Sections no package registered are
// kept as RawSection.
func Decode(r io.Reader) (*ir.File, error) { return DecodeWith(r, DecodeOptions{}) }

// DecodeOptions tune Decode.
type DecodeOptions struct {
	// Size is the stream's size in bytes (compressed, if it is), or 0 when
	// unknown. Knowing it, the decoder allocates the string table and the
	// columns of the core's tables whole, at the sizes the stream
	// declares, where it would otherwise grow them by doubling: a file of
	// gigabytes then needs its size in memory rather than up to twice
	// that. What it allocates so, in all, is bounded by reserveRatio times
	// Size.
	Size int64
}

// reserveRatio bounds what the decoder allocates up front for declared
// sizes, over the whole stream, in bytes per input byte: the IR of a real
// snapshot is about 6 times its .heapir.zst, so this leaves room for the
// widest columns, and a hostile declaration gets no more than this times
// its own size.
const reserveRatio = 32

// compressedReserveRatio is reserveRatio for a .heapir.zst, whose size
// says less of the stream's: its column encodings (schema 7) leave zstd
// runs that compress 50 to 100 times. A hostile file's decompressed
// stream can be as much larger anyway, at the cost of decompressing it.
const compressedReserveRatio = 256

// reserve reports whether n entries of up to width bytes may be allocated
// up front, and counts them against what the input justifies.
func (d *decoder) reserve(n int64, width int64) bool {
	if n <= 0 || n > d.budget/width {
		return false
	}
	d.budget -= n * width
	return true
}

// DecodeWith is Decode with options.
func DecodeWith(r io.Reader, opts DecodeOptions) (*ir.File, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4)
	if bytes.Equal(head, ZstdMagic) {
		zr, err := newZstdReader(br)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		f, err := decodePlain(zr, max(opts.Size, 0)*compressedReserveRatio)
		var fe *ir.FormatError
		if errors.As(err, &fe) && fe.Offset >= 0 && fe.Within == "" {
			// The decoder counts the bytes of the stream, not of the file.
			fe.Within = ir.Decompressed
		}
		return f, err
	}
	return decodePlain(br, max(opts.Size, 0)*reserveRatio)
}

// maxWindow is the largest zstd window the reader of a .heapir.zst allows
// (SPEC.md, The stream).
const maxWindow = 64 << 20

// newZstdReader returns a reader of the zstd frames r holds.
func newZstdReader(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
}

// decodePlain decodes an uncompressed stream, allocating up to budget
// bytes up front for what it declares (reserve).
func decodePlain(r io.Reader, budget int64) (*ir.File, error) {
	cr := &countingReader{r: bufioReader(r)}
	d := &decoder{cr: cr, dec: msgpack.NewDecoder(cr), budget: budget}
	f, err := d.stream()
	if err != nil {
		return nil, d.fail(err)
	}
	if err := f.Validate(); err != nil {
		return nil, ir.Errorf(ir.FormatIR, -1, "invalid: %v", err)
	}
	return f, nil
}

// fail turns an error of the decoder into an *ir.FormatError at the
// offset of the record it was reading.
func (d *decoder) fail(err error) error {
	var fe *ir.FormatError
	if errors.As(err, &fe) {
		return fe
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ir.Truncated(ir.FormatIR, d.cr.off, "unexpected EOF: the stream ends inside the record that starts at offset %d", d.recordStart)
	}
	return ir.Errorf(ir.FormatIR, d.recordStart, "%v", err)
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 1<<20) }

// countingReader counts the bytes consumed, so errors can name offsets. It
// is an io.ByteScanner, so the msgpack decoder does no buffering of its own.
type countingReader struct {
	r   *bufio.Reader
	off int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.off += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.off++
	}
	return b, err
}

func (c *countingReader) UnreadByte() error {
	err := c.r.UnreadByte()
	if err == nil {
		c.off--
	}
	return err
}

type decoder struct {
	cr          *countingReader
	dec         *msgpack.Decoder
	version     int
	recordStart int64
	f           *ir.File
	buf         []byte
	vals        []uint64
	// at and baseVals are a based chunk's base positions and values
	// (unbase).
	at       []uint64
	baseVals []uint64
	// prev is the type of the previous record.
	prev   string
	budget int64   // bytes still to be allocated up front (see reserve)
	slab   ir.Slab // the bytes of short strings (readString)
	// declared counts, checked when the stream ends
	nStrings, nSnapshots, nClasses uint64
	file                           *scope   // the file's columns
	snap                           *scope   // the current snapshot's; nil before the first
	snaps                          []*scope // every snapshot's
}

// scope is what the decoder knows of the columns of the file or of one
// snapshot: each declared column, and the tables they belong to.
type scope struct {
	index  int // -1 for the file
	parent *scope
	cols   map[string]*colState
	order  []*colState
	tables map[string]*table
	// sealed is set by the first column record of a snapshot: its
	// sections come before its columns.
	sealed bool
	// A snapshot stored against a base (base.go): the base's index (-1:
	// none), the columns stored so, node.base, and its inverse (per base
	// node, 0 or 1 + the index of its node here) once needed.
	base            int
	based           map[string]bool
	nodeBase        []uint32
	nodeBaseChecked bool
	inv             []uint32
}

// table is one table of a scope: its length is the declared size when
// it has one (the core's node, edge, root, value and class tables), else
// the length of its first column; a count column (sizer) may give it.
type table struct {
	name  string
	size  int64 // -1: none declared
	first *colState
	sizer *colState
}

type colState struct {
	c   *ir.Column
	tab *table
	// mode is 'z' for a column that arrived as zeros records, 'v' as
	// values; a column is one or the other.
	mode byte
	sum  uint64 // a count column's values so far (saturating)
	last uint64 // the column's last value so far, which a delta-coded chunk continues from
	// expected is set once the column has been offered its table's size
	// (Column.Expect), so that it is charged to the budget once.
	expected bool
	// A based column: from its first chunk on (locating), the base's
	// column of the name (nil: none) and where its entries' base values
	// are.
	based    bool
	locating bool
	baseCol  *ir.Column
	loc      baseLocator
}

func newScope(index int, parent *scope) *scope {
	return &scope{index: index, parent: parent, cols: map[string]*colState{}, tables: map[string]*table{}, base: -1}
}

// table returns the table of the name: the scope's, else the file's when a
// file column belongs to it, else a new one of the scope. (A table the
// file names only as what its columns count or index has no entries, and
// a snapshot's table of the name is its own.)
func (sc *scope) table(name string) *table {
	if t := sc.tables[name]; t != nil {
		return t
	}
	if sc.parent != nil {
		if t := sc.parent.tables[name]; t != nil && t.first != nil {
			return t
		}
	}
	t := &table{name: name, size: -1}
	sc.tables[name] = t
	return t
}

// declare adds a column to the scope.
func (sc *scope) declare(c *ir.Column) error {
	d := c.Decl
	if err := d.Check(); err != nil {
		return err
	}
	if sc.cols[d.Name] != nil || sc.parent != nil && sc.parent.cols[d.Name] != nil {
		return fmt.Errorf("column %s declared twice", d.Name)
	}
	if sc.parent == nil && (ir.IsSnapshotTable(d.Table) || ir.IsSnapshotTable(d.Of)) {
		return fmt.Errorf("column %s of the file: table %q, refers to %q: a snapshot's table", d.Name, d.Table, d.Of)
	}
	cs := &colState{c: c, tab: sc.table(d.Table), based: sc.based[d.Name]}
	if d.Type == ir.TypeCount {
		child := sc.table(d.Of)
		switch {
		case child == cs.tab:
			return fmt.Errorf("column %s counts its own table", d.Name)
		case sc.tables[d.Of] != child:
			return fmt.Errorf("column %s counts the file's table %s", d.Name, d.Of)
		case child.sizer != nil:
			return fmt.Errorf("column %s: table %s is already counted by %s", d.Name, d.Of, child.sizer.c.Decl.Name)
		}
		child.sizer = cs
	}
	if cs.tab.first == nil {
		cs.tab.first = cs
	}
	sc.cols[d.Name] = cs
	sc.order = append(sc.order, cs)
	return nil
}

// limit returns how many values a column may hold so far: its table's
// declared size, or the sum of the counts that size it, for the table's
// first column; the first column's length for the others. -1: unbounded.
func (cs *colState) limit() int64 {
	t := cs.tab
	switch {
	case cs != t.first:
		return int64(t.first.c.Len())
	case t.size >= 0:
		return t.size
	case t.sizer != nil:
		return int64(min(t.sizer.sum, math.MaxInt64))
	}
	return -1
}

// length is the table's length once the stream has ended.
func (t *table) length() int64 {
	switch {
	case t.size >= 0:
		return t.size
	case t.first != nil:
		return int64(t.first.c.Len())
	}
	return 0
}

func (d *decoder) errorf(format string, args ...any) error {
	return ir.Errorf(ir.FormatIR, d.recordStart, format, args...)
}

func (d *decoder) stream() (*ir.File, error) {
	if err := d.header(); err != nil {
		return nil, err
	}
	for {
		d.recordStart = d.cr.off
		kind, done, err := d.record()
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		d.prev = kind
	}
	if _, err := d.cr.ReadByte(); err != io.EOF {
		return nil, ir.Errorf(ir.FormatIR, d.cr.off-1, "data after the end record")
	}
	return d.f, nil
}

// header reads the stream's header, ["heapir", version].
func (d *decoder) header() error {
	n, err := d.dec.DecodeArrayLen()
	if err != nil || n != 2 {
		return d.errorf("not a heapconv IR stream (missing [\"heapir\", version] header)")
	}
	magic, err := d.shortString(16)
	if err != nil || magic != "heapir" {
		return d.errorf("not a heapconv IR stream (magic %q)", magic)
	}
	v, err := d.int()
	if err != nil {
		return d.errorf("bad version: %v", err)
	}
	if v > ir.Version {
		e := ir.Errorf(ir.FormatIR, d.recordStart, "IR schema version %d is newer than this heapconv reads (up to %d): upgrade heapconv", v, ir.Version)
		e.Err = ir.ErrNewerVersion
		return e
	}
	if v < 1 {
		return d.errorf("IR schema version %d does not exist", v)
	}
	d.version = int(v)
	d.f = &ir.File{}
	d.file = newScope(-1, nil)
	return nil
}

// records reads the records of one part of a stream cut into frames
// (DecodeSnapshot), to its end; head says it is the first, which starts
// with the header. The end record belongs to no part read so.
func (d *decoder) records(head bool) error {
	if head {
		if err := d.header(); err != nil {
			return d.fail(err)
		}
	}
	for {
		d.recordStart = d.cr.off
		if _, err := d.cr.ReadByte(); err == io.EOF {
			return nil
		} else if err != nil {
			return d.fail(err)
		}
		if err := d.cr.UnreadByte(); err != nil {
			return err
		}
		kind, done, err := d.record()
		if err != nil {
			return d.fail(err)
		}
		if done {
			return d.fail(d.errorf("an end record within a part of the stream"))
		}
		d.prev = kind
	}
}

// record reads one record and returns its type; done is true after the end
// record.
func (d *decoder) record() (kind string, done bool, err error) {
	n, err := d.dec.DecodeArrayLen()
	if err != nil {
		return "", false, err
	}
	if n < 2 {
		return "", false, d.errorf("record of %d elements", n)
	}
	kind, err = d.shortString(16)
	if err != nil {
		return "", false, err
	}
	if d.prev == "" && kind != "file" {
		return "", false, d.errorf("the first record is %q: a stream starts with the file record", kind)
	}
	if d.version < 6 {
		return kind, kind == "end", d.oldRecord(kind, n)
	}
	switch kind {
	case "file":
		return kind, false, d.fileRecord(n)
	case "strings":
		return kind, false, d.stringsRecord(n)
	case "section":
		return kind, false, d.sectionRecord(n)
	case "snapshot":
		return kind, false, d.snapshotRecord(n)
	case "col", "zeros":
		return kind, false, d.colRecord(n, kind == "zeros")
	case "end":
		return kind, true, d.endRecord(n)
	}
	return kind, false, d.errorf("unknown record %q", kind)
}

// shortString reads a msgpack string of at most max bytes.
func (d *decoder) shortString(max int) (string, error) {
	n, err := d.dec.DecodeBytesLen()
	if err != nil {
		return "", err
	}
	if n > max {
		return "", d.errorf("string of %d bytes where at most %d are allowed", n, max)
	}
	return d.readString(n)
}

// str reads a msgpack string of any length, growing its buffer as the bytes
// actually arrive.
func (d *decoder) str() (string, error) {
	n, err := d.dec.DecodeBytesLen()
	if err != nil {
		return "", err
	}
	return d.readString(n)
}

func (d *decoder) readString(n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if n <= ir.SlabMax {
		room := d.slab.Room(n)
		if err := d.dec.ReadFull(room); err != nil {
			return "", err
		}
		return ir.SlabString(room), nil
	}
	var sb strings.Builder
	for n > 0 {
		step := min(n, stringStep)
		if cap(d.buf) < step {
			d.buf = make([]byte, stringStep)
		}
		if err := d.dec.ReadFull(d.buf[:step]); err != nil {
			return "", err
		}
		sb.Write(d.buf[:step])
		n -= step
	}
	return sb.String(), nil
}

func (d *decoder) uint() (uint64, error) { return d.dec.DecodeUint64() }

// int reads a signed number: an unsigned one above 2^63-1 is an error, not
// a negative number.
func (d *decoder) int() (int64, error) {
	c, err := d.dec.PeekCode()
	if err != nil {
		return 0, err
	}
	if c == msgpcode.Uint64 {
		u, err := d.dec.DecodeUint64()
		if err == nil && u > math.MaxInt64 {
			err = d.errorf("integer %d is beyond the signed 64-bit range", u)
		}
		return int64(u), err
	}
	return d.dec.DecodeInt64()
}

// u32 reads an unsigned number below 2^32 (a string index, say).
func (d *decoder) u32(what string) (uint32, error) {
	v, err := d.uint()
	if err == nil && v > math.MaxUint32 {
		err = d.errorf("%s %d does not fit in 32 bits", what, v)
	}
	return uint32(v), err
}

func (d *decoder) arrayLen(max int, what string) (int, error) {
	n, err := d.dec.DecodeArrayLen()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > max {
		return 0, d.errorf("%s: %d entries where at most %d are allowed", what, n, max)
	}
	return n, nil
}

// pair reads the header of an array that must have two entries.
func (d *decoder) pair(what string) error {
	n, err := d.dec.DecodeArrayLen()
	if err != nil {
		return err
	}
	if n != 2 {
		return d.errorf("%s: %d entries where 2 are required", what, n)
	}
	return nil
}

// mapFields reads a map header and calls fn for each string key.
func (d *decoder) mapFields(what string, fn func(key string) error) error {
	n, err := d.dec.DecodeMapLen()
	if err != nil {
		return err
	}
	if n < 0 || n > maxTableLen {
		return d.errorf("%s: map of %d entries", what, n)
	}
	for i := 0; i < n; i++ {
		k, err := d.shortString(256)
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			var fe *ir.FormatError
			if errors.As(err, &fe) {
				return err
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return ir.Truncated(ir.FormatIR, d.cr.off, "unexpected EOF in %s.%s", what, k)
			}
			return d.errorf("%s.%s: %v", what, k, err)
		}
	}
	return nil
}

// fileFields reads the file record's map.
func (d *decoder) fileFields() error {
	if d.prev != "" {
		return d.errorf("second file record, or a file record after other records")
	}
	f := d.f
	err := d.mapFields("file", func(k string) (err error) {
		switch k {
		case "format":
			f.Format, err = d.shortString(64)
		case "format_version":
			f.FormatVersion, err = d.shortString(4096)
		case "producer":
			f.Producer, err = d.shortString(4096)
		case "strings":
			d.nStrings, err = d.uint()
			if err == nil && d.nStrings > math.MaxUint32 {
				err = d.errorf("%d strings is more than 2^32-1", d.nStrings)
			}
		case "snapshots":
			d.nSnapshots, err = d.uint()
		case "classes":
			d.nClasses, err = d.uint()
		default:
			err = d.skip()
		}
		return err
	})
	d.file.table(ir.TableClass).size = int64(min(d.nClasses, math.MaxInt64))
	return err
}

func (d *decoder) fileRecord(n int) error {
	if n != 3 {
		return d.errorf("file record of %d elements", n)
	}
	if err := d.fileFields(); err != nil {
		return err
	}
	decls, err := d.decls()
	if err != nil {
		return err
	}
	return d.bindDecls(d.file, "file", ir.FileBindings(d.f), decls)
}

func (d *decoder) stringsRecord(n int) error {
	if n != 2 {
		return d.errorf("strings record of %d elements", n)
	}
	k, err := d.arrayLen(chunkStrings, "strings")
	if err != nil {
		return err
	}
	if uint64(len(d.f.Strings)+k) > d.nStrings {
		return d.errorf("more strings than the %d declared", d.nStrings)
	}
	if d.f.Strings == nil && d.nStrings <= math.MaxInt32 && d.reserve(int64(d.nStrings), 16) {
		// Grown by append, the table of a big file would be copied over
		// and over, leaving several times its size behind.
		d.f.Strings = make([]string, 0, d.nStrings)
	}
	for i := 0; i < k; i++ {
		s, err := d.str()
		if err != nil {
			return err
		}
		d.f.Strings = append(d.f.Strings, s)
	}
	return nil
}

// snapshotFields reads a snapshot record's map into a new snapshot and its
// scope, with the node, edge, value and root tables of the declared sizes.
// other is called for keys the record does not know.
func (d *decoder) snapshotFields(other func(key string) error) (*ir.Snapshot, error) {
	if uint64(len(d.f.Snapshots)) >= d.nSnapshots {
		return nil, d.errorf("more snapshots than the %d declared", d.nSnapshots)
	}
	s := &ir.Snapshot{Root: ir.NoNode}
	var nodes, edges, values, roots uint64
	err := d.mapFields("snapshot", func(k string) (err error) {
		switch k {
		case "name":
			s.Name, err = d.u32("name index")
		case "capture_time":
			s.CaptureTime, err = d.int()
		case "totals":
			var m int
			if m, err = d.arrayLen(maxTableLen, "totals"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var t ir.Total
				if err = d.pair("total"); err != nil {
					return err
				}
				if t.Name, err = d.shortString(256); err != nil {
					return err
				}
				t.Value, err = d.uint()
				s.Totals = append(s.Totals, t)
			}
		case "node_kinds":
			var m int
			if m, err = d.arrayLen(256, "node kinds"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var k string
				k, err = d.shortString(1024)
				s.NodeKinds = append(s.NodeKinds, k)
			}
		case "edge_kinds":
			var m int
			if m, err = d.arrayLen(256, "edge kinds"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var k ir.EdgeKind
				if err = d.pair("edge kind"); err != nil {
					return err
				}
				if k.Name, err = d.shortString(1024); err != nil {
					return err
				}
				k.Indexed, err = d.dec.DecodeBool()
				s.EdgeKinds = append(s.EdgeKinds, k)
			}
		case "root":
			var v int64
			v, err = d.int()
			switch {
			case err != nil:
			case v == -1:
				s.Root = ir.NoNode
			case v < 0 || v >= math.MaxUint32:
				err = d.errorf("root %d", v)
			default:
				s.Root = uint32(v)
			}
		case "nodes":
			nodes, err = d.uint()
		case "edges":
			edges, err = d.uint()
		case "values":
			values, err = d.uint()
		case "roots":
			roots, err = d.uint()
		default:
			err = other(k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if nodes > math.MaxUint32-1 || edges > math.MaxUint32 {
		return nil, d.errorf("snapshot declares %d nodes and %d edges; at most 2^32-2 and 2^32-1 are supported", nodes, edges)
	}
	sc := newScope(len(d.f.Snapshots), d.file)
	for _, t := range []struct {
		name string
		size uint64
	}{{ir.TableNode, nodes}, {ir.TableEdge, edges}, {ir.TableValue, values}, {ir.TableRoot, roots}} {
		sc.table(t.name).size = int64(min(t.size, math.MaxInt64))
	}
	d.f.Snapshots = append(d.f.Snapshots, s)
	d.snap = sc
	d.snaps = append(d.snaps, sc)
	return s, nil
}

func (d *decoder) snapshotRecord(n int) error {
	if n != 3 {
		return d.errorf("snapshot record of %d elements", n)
	}
	if err := d.closeSnapshot(d.snap); err != nil {
		return err
	}
	bf := baseFields{base: -1}
	s, err := d.snapshotFields(func(k string) error { return bf.read(d, k) })
	if err != nil {
		return err
	}
	sc := d.snap
	if err := d.setBase(sc, &bf); err != nil {
		return err
	}
	decls, err := d.decls()
	if err != nil {
		return err
	}
	if err := d.checkOrigin(decls); err != nil {
		return err
	}
	core := ir.SnapshotBindings(s)
	if d.version >= 8 {
		core.Column(nodeBaseColumn, ir.TableNode, &sc.nodeBase, ir.Optional())
	}
	if err := d.bindDecls(sc, "snapshot", core, decls); err != nil {
		return err
	}
	if (sc.cols[nodeBaseColumn] != nil) != (sc.base >= 0) {
		return d.errorf("snapshot %d: node.base is declared exactly when the snapshot has a base", sc.index)
	}
	return nil
}

// baseFields are a snapshot record's keys base (-1 when absent) and based
// (schema 8 on): the snapshot stored against an earlier one.
type baseFields struct {
	base              int64
	based             []string
	sawBase, sawBased bool
}

// read reads the record's key k when it is one of them, and skips any
// other.
func (bf *baseFields) read(d *decoder, k string) (err error) {
	switch {
	case d.version < 8 || k != "base" && k != "based":
		return d.skip()
	case k == "base" && bf.sawBase || k == "based" && bf.sawBased:
		// A reader of one snapshot finds its base from the first key
		// (DecodeSnapshot): a second could say otherwise.
		return d.errorf("snapshot: key %s twice", k)
	case k == "base":
		bf.sawBase = true
		bf.base, err = d.int()
		return err
	}
	bf.sawBased = true
	m, err := d.arrayLen(maxTableLen, "based columns")
	for i := 0; i < m && err == nil; i++ {
		var name string
		name, err = d.shortString(maxNameLen)
		bf.based = append(bf.based, name)
	}
	return err
}

// setBase gives the snapshot the base and based columns its record names,
// after checking them.
func (d *decoder) setBase(sc *scope, bf *baseFields) error {
	base := bf.base
	switch {
	case base < -1 || base >= int64(sc.index):
		return d.errorf("snapshot %d: base %d is not an earlier snapshot", sc.index, base)
	case base == -1 && len(bf.based) > 0:
		return d.errorf("snapshot %d: based columns without a base", sc.index)
	case base >= 0 && d.snaps[base] == nil:
		return d.errorf("snapshot %d: its base, snapshot %d, was not read", sc.index, base)
	}
	sc.base = int(base)
	for _, name := range bf.based {
		if sc.based[name] {
			return d.errorf("snapshot %d: column %s is named twice as based", sc.index, name)
		}
		if sc.based == nil {
			sc.based = make(map[string]bool)
		}
		sc.based[name] = true
	}
	return nil
}

// checkOrigin checks a snapshot record's declarations of the origin
// columns: from schema 8 on, and both or neither (SPEC.md, The core's
// columns): one alone would give the snapshot an origin whose other table
// is taken for empty.
func (d *decoder) checkOrigin(decls []ir.ColumnDecl) error {
	var declared []string
	for _, dc := range decls {
		if dc.Table == ir.TableOriginString || dc.Table == ir.TableOriginClass {
			if d.version < 8 {
				return d.errorf("snapshot: column %s in a stream of version %d (series came with version 8)", dc.Name, d.version)
			}
		}
		if dc.Name == "origin.string" || dc.Name == "origin.class" {
			declared = append(declared, dc.Name)
		}
	}
	if len(declared) == 1 {
		return d.errorf("snapshot: column %s declared without the other origin column (a snapshot of a series declares origin.string and origin.class)", declared[0])
	}
	return nil
}

// decls reads a list of column declarations: [name, type, table, of].
func (d *decoder) decls() ([]ir.ColumnDecl, error) {
	n, err := d.arrayLen(maxTableLen, "column declarations")
	if err != nil {
		return nil, err
	}
	var out []ir.ColumnDecl
	for i := 0; i < n; i++ {
		k, err := d.arrayLen(4, "column declaration")
		if err != nil {
			return nil, err
		}
		if k != 4 {
			return nil, d.errorf("column declaration of %d elements", k)
		}
		var parts [4]string
		for j := range parts {
			if parts[j], err = d.shortString(maxNameLen); err != nil {
				return nil, err
			}
		}
		out = append(out, ir.ColumnDecl{Name: parts[0], Type: ir.ColumnType(parts[1]), Table: parts[2], Of: parts[3]})
	}
	return out, nil
}

// bindDecls declares in sc the columns of b the stream declares: each must
// be one of b's, declared as b declares it, and every column of b that is
// not optional must be declared. They are declared in the stream's order,
// which makes a table's first column the first declared.
func (d *decoder) bindDecls(sc *scope, what string, b *ir.Bindings, decls []ir.ColumnDecl) error {
	declared := make(map[string]bool, len(decls))
	for _, dc := range decls {
		c := b.ColumnNamed(dc.Name)
		if c == nil {
			return d.errorf("%s: unknown column %s", what, dc.Name)
		}
		if c.Decl != dc {
			return d.errorf("%s: column declared as %v, but it is %v", what, dc, c.Decl)
		}
		if declared[dc.Name] {
			return d.errorf("%s: column %s declared twice", what, dc.Name)
		}
		declared[dc.Name] = true
	}
	for ci := range b.Columns() {
		if c := &b.Columns()[ci]; !c.Optional && !declared[c.Decl.Name] {
			return d.errorf("%s: column %s is not declared", what, c.Decl.Name)
		}
	}
	for _, dc := range decls {
		if err := sc.declare(b.ColumnNamed(dc.Name)); err != nil {
			return d.errorf("%s: %v", what, err)
		}
	}
	return nil
}

// sectionRecord reads ["section", scope, name, version, {fields}, [declarations]].
func (d *decoder) sectionRecord(n int) error {
	if n != 6 {
		return d.errorf("section record of %d elements", n)
	}
	idx, err := d.int()
	if err != nil {
		return err
	}
	name, err := d.shortString(256)
	if err != nil {
		return err
	}
	version, err := d.int()
	if err != nil {
		return err
	}
	if name == "" {
		return d.errorf("a section without a name")
	}
	if version < 1 || version > math.MaxInt32 {
		return d.errorf("section %s: version %d", name, version)
	}
	x, sc, err := d.openSection(idx, name, int(version))
	if err != nil {
		return err
	}
	sizes, err := d.sectionFields(x, int(version))
	if err != nil {
		return err
	}
	decls, err := d.decls()
	if err != nil {
		return err
	}
	return d.closeSection(sc, x, int(version), decls, sizes)
}

// openSection makes the section a record of scope idx announces, after
// checking it may come here: a file's sections before the first snapshot,
// a snapshot's after its record and before its columns, each once.
func (d *decoder) openSection(idx int64, name string, version int) (ir.Section, *scope, error) {
	var sc *scope
	var have ir.Section
	kind := ir.FileScope
	switch {
	case idx == -1:
		if d.snap != nil {
			return nil, nil, d.errorf("file section %s after a snapshot record", name)
		}
		sc, have = d.file, d.f.Section(name)
	case d.snap == nil || idx != int64(d.snap.index):
		return nil, nil, d.errorf("section %s of snapshot %d, but the current snapshot is %d", name, idx, len(d.f.Snapshots)-1)
	case d.snap.sealed:
		return nil, nil, d.errorf("section %s of snapshot %d after the snapshot's columns", name, idx)
	default:
		sc, have, kind = d.snap, d.f.Snapshots[idx].Section(name), ir.SnapshotScope
	}
	if have != nil {
		return nil, nil, d.errorf("section %s twice", name)
	}
	return ir.NewSection(name, kind, version), sc, nil
}

// sectionFields reads a section record's fields into x, refusing a key the
// section does not declare (a RawSection keeps every key). It returns the
// sizes the record declares for the section's tables (Bindings.DeclareSize),
// a missing one 0, by table.
func (d *decoder) sectionFields(x ir.Section, version int) (map[string]uint64, error) {
	what := "section " + x.SectionName()
	if r, ok := x.(*ir.RawSection); ok {
		return nil, d.mapFields(what, func(k string) error {
			v, err := d.capture()
			r.Fields = append(r.Fields, ir.RawField{Key: k, Value: v})
			return err
		})
	}
	b := &ir.Bindings{Version: version}
	x.Bind(b)
	var sizes map[string]uint64
	if len(b.Sizes()) > 0 {
		sizes = make(map[string]uint64, len(b.Sizes()))
		for _, ts := range b.Sizes() {
			sizes[ts.Table] = 0
		}
	}
	err := d.mapFields(what, func(k string) error {
		if fl := b.FieldNamed(k); fl != nil {
			return d.fieldValue(fl)
		}
		if ts := b.Size(k); ts != nil {
			n, err := d.uint()
			sizes[ts.Table] = n
			return err
		}
		return d.errorf("%s version %d has no field %q", what, version, k)
	})
	return sizes, err
}

func (d *decoder) fieldValue(fl *ir.Field) (err error) {
	switch fl.Kind {
	case ir.FieldUint:
		var v uint64
		v, err = d.uint()
		fl.SetUint(v)
	case ir.FieldInt:
		var v int64
		v, err = d.int()
		fl.SetInt(v)
	case ir.FieldBool:
		var v bool
		v, err = d.dec.DecodeBool()
		fl.SetBool(v)
	case ir.FieldString:
		var v string
		v, err = d.str()
		fl.SetStr(v)
	case ir.FieldStringIndex:
		var v uint32
		v, err = d.u32("string index")
		fl.SetIndex(v)
	case ir.FieldJSON:
		var v ir.JSON
		if v, err = d.json(0); err == nil {
			err = fl.SetJSON(v)
		}
	}
	return err
}

// closeSection declares a section's columns and adds it to its scope's
// sections.
func (d *decoder) closeSection(sc *scope, x ir.Section, version int, decls []ir.ColumnDecl, sizes map[string]uint64) error {
	if r, ok := x.(*ir.RawSection); ok {
		for _, dc := range decls {
			r.Columns = append(r.Columns, ir.RawColumn{Decl: dc})
		}
	}
	b := &ir.Bindings{Version: version}
	x.Bind(b)
	if err := d.bindDecls(sc, "section "+x.SectionName(), b, decls); err != nil {
		return err
	}
	for _, ts := range b.Sizes() {
		t := sc.table(ts.Table)
		if sc.tables[ts.Table] != t || t.size >= 0 {
			return d.errorf("section %s declares the size of table %s, which is the file's or has one", x.SectionName(), ts.Table)
		}
		t.size = int64(min(sizes[ts.Table], math.MaxInt64))
	}
	if sc == d.file {
		d.f.Sections = append(d.f.Sections, x)
	} else {
		s := d.f.Snapshots[sc.index]
		s.Sections = append(s.Sections, x)
	}
	return nil
}

// colRecord reads one chunk of a column: ["col", scope, name, width, bin],
// from schema 7 on also ["col", scope, name, width, bin, encoding], or
// ["zeros", scope, name, count].
func (d *decoder) colRecord(n int, zeros bool) error {
	encoded := !zeros && n == 6 && d.version >= 7
	if (zeros && n != 4) || (!zeros && n != 5 && !encoded) {
		return d.errorf("column record of %d elements", n)
	}
	idx, err := d.int()
	if err != nil {
		return err
	}
	name, err := d.shortString(maxNameLen)
	if err != nil {
		return err
	}
	sc := d.file
	if idx != -1 {
		if d.snap == nil || idx != int64(d.snap.index) {
			return d.errorf("column %s for snapshot %d, but the current snapshot is %d", name, idx, len(d.f.Snapshots)-1)
		}
		sc = d.snap
		if !sc.sealed {
			// The snapshot's columns are all declared: the columns named
			// as based must be among them, of the node or edge table.
			if err := d.checkBased(sc); err != nil {
				return err
			}
		}
		sc.sealed = true
	}
	cs := sc.cols[name]
	if cs == nil {
		return d.errorf("column %s is not declared (in the %s's records)", name, map[bool]string{true: "file", false: "snapshot"}[idx == -1])
	}
	var count int
	if zeros {
		c, err := d.uint()
		if err != nil {
			return err
		}
		if c > chunkValues {
			return d.errorf("zeros record of %d values (at most %d)", c, chunkValues)
		}
		// Only columns of the node and edge tables may arrive as zeros,
		// and not their first columns, which are then backed by bytes
		// of the stream, a byte an entry at least: so are the tables'
		// declared sizes, and every value of every other table.
		if t := cs.tab.name; t != ir.TableNode && t != ir.TableEdge || cs == cs.tab.first || cs.c.Decl.Type == ir.TypeBytes {
			return d.errorf("column %s cannot be stored as zeros", name)
		}
		count = int(c)
	} else {
		w, err := d.uint()
		if err != nil {
			return err
		}
		if w != 1 && w != 2 && w != 4 && w != 8 {
			return d.errorf("column %s: width %d", name, w)
		}
		var enc uint64
		if encoded {
			if enc, err = d.uint(); err != nil {
				return err
			}
			if enc > EncodingDelta|EncodingSplit || cs.c.Decl.Type == ir.TypeBytes && enc != 0 {
				return d.errorf("column %s: chunk encoding %d", name, enc)
			}
		}
		bl, err := d.dec.DecodeBytesLen()
		if err != nil {
			return err
		}
		if cs.c.Decl.Type == ir.TypeBytes {
			return d.bytesChunk(cs, int(w), bl)
		}
		if bl < 0 || bl > maxChunkBytes || bl%int(w) != 0 {
			return d.errorf("column %s: chunk of %d bytes (width %d, at most %d bytes)", name, bl, w, maxChunkBytes)
		}
		count = bl / int(w)
		if err := d.readValues(int(w), bl, int(enc), cs.last); err != nil {
			return err
		}
		if count > 0 {
			cs.last = d.vals[count-1]
		}
	}
	lim := cs.limit()
	if lim >= 0 && int64(cs.c.Len())+int64(count) > lim {
		return d.errorf("column %s: more values than its table has entries (%d)", name, lim)
	}
	// A column of a table of declared size is allocated at that size in
	// one go, as long as the input justifies it (reserve). Other tables'
	// lengths are not final while the stream goes on, so those columns
	// grow by doubling.
	if !cs.expected && cs.tab.size >= 0 && d.reserve(cs.tab.size, 8) {
		cs.c.Expect(int(min(cs.tab.size, math.MaxInt32)))
	}
	cs.expected = true
	mode := byte('v')
	if zeros {
		mode = 'z'
	}
	if cs.mode != 0 && cs.mode != mode {
		// A zeros record after values, or values after zeros, would let a
		// few bytes of stream materialize a whole column.
		return d.errorf("column %s mixes zeros records and value chunks", name)
	}
	cs.mode = mode
	if cs.based && count > 0 {
		if zeros {
			if len(d.vals) < count {
				d.vals = make([]uint64, max(count, chunkValues))
			}
			clear(d.vals[:count])
		}
		if err := d.unbase(sc, cs, d.vals[:count]); err != nil {
			return err
		}
	} else if zeros {
		cs.c.AppendZeros(count)
		return nil
	}
	vals := d.vals[:count]
	if err := cs.c.Append(vals); err != nil {
		return d.errorf("%v", err)
	}
	if cs.c.Decl.Type == ir.TypeCount {
		for _, v := range vals {
			if cs.sum += v; cs.sum < v {
				cs.sum = math.MaxUint64
			}
		}
	}
	return nil
}

// readValues reads a chunk of bl bytes of values of width w, stored in
// the encoding enc (EncodingSplit, EncodingDelta; prev is the column's
// value before the chunk), into d.vals.
func (d *decoder) readValues(w, bl, enc int, prev uint64) error {
	if cap(d.buf) < bl {
		d.buf = make([]byte, max(bl, stringStep))
	}
	if err := d.dec.ReadFull(d.buf[:bl]); err != nil {
		return err
	}
	n := bl / w // up to maxChunkBytes values, for width 1
	if cap(d.vals) < n {
		d.vals = make([]uint64, max(n, chunkValues))
	}
	vals, b := d.vals[:n], d.buf[:bl]
	switch {
	case w == 1:
		for i := range vals {
			vals[i] = uint64(b[i])
		}
	case enc&EncodingSplit != 0:
		unsplit(vals, b, w)
	case w == 2:
		for i := range vals {
			vals[i] = uint64(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case w == 4:
		for i := range vals {
			vals[i] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case w == 8:
		for i := range vals {
			vals[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	if enc&EncodingDelta != 0 {
		for i, z := range vals {
			prev += z>>1 ^ -(z & 1) // the zigzag undone, wrapping as it was made
			vals[i] = prev
		}
	}
	return nil
}

// unsplit reads values of width w (2, 4 or 8) from b, whose bytes are
// stored plane by plane (EncodingSplit).
func unsplit(vals []uint64, b []byte, w int) {
	n := len(vals)
	p0, p1 := b[:n], b[n:2*n]
	switch w {
	case 2:
		for i := range vals {
			vals[i] = uint64(p0[i]) | uint64(p1[i])<<8
		}
	case 4:
		p2, p3 := b[2*n:3*n], b[3*n:4*n]
		for i := range vals {
			vals[i] = uint64(p0[i]) | uint64(p1[i])<<8 | uint64(p2[i])<<16 | uint64(p3[i])<<24
		}
	default:
		p2, p3, p4, p5, p6, p7 := b[2*n:3*n], b[3*n:4*n], b[4*n:5*n], b[5*n:6*n], b[6*n:7*n], b[7*n:8*n]
		for i := range vals {
			vals[i] = uint64(p0[i]) | uint64(p1[i])<<8 | uint64(p2[i])<<16 | uint64(p3[i])<<24 |
				uint64(p4[i])<<32 | uint64(p5[i])<<40 | uint64(p6[i])<<48 | uint64(p7[i])<<56
		}
	}
}

// bytesChunk reads a chunk of a bytes column (the bin of a col record of
// width 1, at most 64 KiB) straight into its slice: no more than its table
// has entries so far.
func (d *decoder) bytesChunk(cs *colState, w, bl int) error {
	name := cs.c.Decl.Name
	if w != 1 || bl < 0 || bl > chunkValues {
		return d.errorf("column %s: chunk of %d bytes of width %d (bytes, at most %d a chunk)", name, bl, w, chunkValues)
	}
	if lim := cs.limit(); lim >= 0 && int64(cs.c.Len())+int64(bl) > lim {
		return d.errorf("column %s: more bytes than its table has entries (%d)", name, lim)
	}
	if cs.mode == 0 {
		cs.mode = 'v'
	}
	return d.dec.ReadFull(cs.c.GrowBytes(bl))
}

func (d *decoder) endRecord(n int) error {
	if n != 2 {
		return d.errorf("end record of %d elements", n)
	}
	var strs, snaps uint64
	err := d.mapFields("end", func(k string) (err error) {
		switch k {
		case "strings":
			strs, err = d.uint()
		case "snapshots":
			snaps, err = d.uint()
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	if strs != uint64(len(d.f.Strings)) || strs != d.nStrings {
		return d.errorf("stream holds %d strings; the header declared %d and the end record %d", len(d.f.Strings), d.nStrings, strs)
	}
	if snaps != uint64(len(d.f.Snapshots)) || snaps != d.nSnapshots {
		return d.errorf("stream holds %d snapshots; the header declared %d and the end record %d", len(d.f.Snapshots), d.nSnapshots, snaps)
	}
	if err := d.closeSnapshot(d.snap); err != nil {
		return err
	}
	for _, sc := range append([]*scope{d.file}, d.snaps...) {
		if err := d.finish(sc); err != nil {
			return err
		}
	}
	return nil
}

// finish checks that every column of a scope holds one value per entry of
// its table and that counts add up to the tables they count, then turns
// counts into offsets.
func (d *decoder) finish(sc *scope) error {
	where := "file"
	if sc.index >= 0 {
		where = fmt.Sprintf("snapshot %d", sc.index)
	}
	if err := d.checkBased(sc); err != nil {
		return err
	}
	if sc.base >= 0 {
		if err := d.checkNodeBase(sc); err != nil {
			return err
		}
	}
	for _, cs := range sc.order {
		if got, want := int64(cs.c.Len()), cs.tab.length(); got != want {
			return d.errorf("%s: column %s holds %d values for the %d entries of table %s", where, cs.c.Decl.Name, got, want, cs.tab.name)
		}
		if cs.c.Decl.Type == ir.TypeCount {
			if child := sc.table(cs.c.Decl.Of); uint64(child.length()) != cs.sum {
				return d.errorf("%s: column %s counts %d entries of table %s, which has %d", where, cs.c.Decl.Name, cs.sum, child.name, child.length())
			}
		}
		cs.c.Finish()
	}
	return nil
}

// json reads a msgpack value as a JSON value.
func (d *decoder) json(depth int) (ir.JSON, error) {
	if depth > maxJSONDepth {
		return ir.JSON{}, d.errorf("JSON nested deeper than %d", maxJSONDepth)
	}
	c, err := d.dec.PeekCode()
	if err != nil {
		return ir.JSON{}, err
	}
	switch {
	case c == msgpcode.Nil:
		return ir.JSON{}, d.dec.DecodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		b, err := d.dec.DecodeBool()
		return ir.JSON{Kind: ir.JSONBool, Bool: b}, err
	case c == msgpcode.Float || c == msgpcode.Double:
		f, err := d.dec.DecodeFloat64()
		return ir.JSON{Kind: ir.JSONFloat, Float: f}, err
	case msgpcode.IsString(c) || msgpcode.IsBin(c):
		s, err := d.str()
		return ir.JSON{Kind: ir.JSONString, Str: s}, err
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.arrayLen(maxJSONElems, "JSON array")
		if err != nil {
			return ir.JSON{}, err
		}
		j := ir.JSON{Kind: ir.JSONArray, Elems: make([]ir.JSON, 0, min(n, 64))}
		for i := 0; i < n; i++ {
			e, err := d.json(depth + 1)
			if err != nil {
				return ir.JSON{}, err
			}
			j.Elems = append(j.Elems, e)
		}
		return j, nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := d.dec.DecodeMapLen()
		if err != nil {
			return ir.JSON{}, err
		}
		if n < 0 || n > maxJSONElems {
			return ir.JSON{}, d.errorf("JSON object of %d keys", n)
		}
		j := ir.JSON{Kind: ir.JSONObject, Fields: make([]ir.JSONField, 0, min(n, 64))}
		for i := 0; i < n; i++ {
			if err := d.expectString("map key"); err != nil {
				return ir.JSON{}, err
			}
			k, err := d.str()
			if err != nil {
				return ir.JSON{}, err
			}
			v, err := d.json(depth + 1)
			if err != nil {
				return ir.JSON{}, err
			}
			j.Fields = append(j.Fields, ir.JSONField{Key: k, Value: v})
		}
		return j, nil
	case c == msgpcode.Uint64:
		u, err := d.dec.DecodeUint64()
		if err != nil {
			return ir.JSON{}, err
		}
		if u > math.MaxInt64 {
			return ir.JSON{Kind: ir.JSONFloat, Float: float64(u)}, nil
		}
		return ir.JSON{Kind: ir.JSONInt, Int: int64(u)}, nil
	}
	i, err := d.dec.DecodeInt64()
	return ir.JSON{Kind: ir.JSONInt, Int: i}, err
}

// capture reads one msgpack value of any type and returns it encoded
// again (integers in their shortest form): a field of a section this
// program does not know. Like json, it allocates only as the bytes arrive
// and refuses values nested deeper than JSON's limit.
func (d *decoder) capture() ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	err := d.copyValue(enc, 0)
	return buf.Bytes(), err
}

func (d *decoder) copyValue(e *msgpack.Encoder, depth int) error {
	if depth > maxJSONDepth {
		return d.errorf("value nested deeper than %d", maxJSONDepth)
	}
	c, err := d.dec.PeekCode()
	if err != nil {
		return err
	}
	switch {
	case msgpcode.IsString(c) || msgpcode.IsBin(c):
		s, err := d.str()
		if err != nil {
			return err
		}
		if msgpcode.IsBin(c) {
			return e.EncodeBytes([]byte(s))
		}
		return e.EncodeString(s)
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.arrayLen(maxJSONElems, "array")
		if err == nil {
			err = e.EncodeArrayLen(n)
		}
		for i := 0; i < n && err == nil; i++ {
			err = d.copyValue(e, depth+1)
		}
		return err
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := d.dec.DecodeMapLen()
		if err == nil && (n < 0 || n > maxJSONElems) {
			err = d.errorf("map of %d keys", n)
		}
		if err == nil {
			err = e.EncodeMapLen(n)
		}
		for i := 0; i < n && err == nil; i++ {
			if err = d.expectString("map key"); err == nil {
				err = d.copyValue(e, depth+1)
			}
			if err == nil {
				err = d.copyValue(e, depth+1)
			}
		}
		return err
	case c == msgpcode.Nil:
		if err := d.dec.DecodeNil(); err != nil {
			return err
		}
		return e.EncodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		b, err := d.dec.DecodeBool()
		if err != nil {
			return err
		}
		return e.EncodeBool(b)
	case c == msgpcode.Float:
		f, err := d.dec.DecodeFloat32()
		if err != nil {
			return err
		}
		return e.EncodeFloat32(f)
	case c == msgpcode.Double:
		f, err := d.dec.DecodeFloat64()
		if err != nil {
			return err
		}
		return e.EncodeFloat64(f)
	case c == msgpcode.Uint64:
		u, err := d.dec.DecodeUint64()
		if err != nil {
			return err
		}
		return e.EncodeUint(u)
	case msgpcode.IsFixedNum(c) || c >= msgpcode.Uint8 && c <= msgpcode.Int64:
		i, err := d.dec.DecodeInt64()
		if err != nil {
			return err
		}
		return e.EncodeInt(i)
	}
	return d.errorf("msgpack type %#x is not used in an IR stream", c)
}

// expectString fails unless the next value is a str or a bin.
func (d *decoder) expectString(what string) error {
	c, err := d.dec.PeekCode()
	if err == nil && !msgpcode.IsString(c) && !msgpcode.IsBin(c) {
		err = d.errorf("%s of msgpack type %#x where a string is required", what, c)
	}
	return err
}

// skip reads past one msgpack value: an unknown key's.
func (d *decoder) skip() error {
	return d.copyValue(msgpack.NewEncoder(io.Discard), 0)
}
