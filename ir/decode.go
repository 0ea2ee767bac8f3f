package ir

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Decoding limits. msgpack lets a 5-byte input declare a 4 GiB string or
// array; the decoder never allocates on a declared length alone. Strings are
// read in steps as their bytes arrive; arrays that hold small tables are
// capped; column data arrives in bounded chunks.
const (
	maxTableLen  = 1 << 16 // kinds, totals, keys, extra-column names
	maxJSONDepth = 64
	maxJSONElems = 1 << 20 // elements of one JSON array/object in a section
	stringStep   = 1 << 16
)

// Decode reads an IR stream, plain or zstd-compressed (detected by content),
// validates it and returns the file.
func Decode(r io.Reader) (*File, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4)
	if bytes.Equal(head, ZstdMagic) {
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return decodePlain(zr)
	}
	return decodePlain(br)
}

func decodePlain(r io.Reader) (*File, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 1<<20)}
	d := &decoder{cr: cr, dec: msgpack.NewDecoder(cr)}
	f, err := d.file()
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, fe
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, Truncated(FormatIR, d.cr.off, "unexpected EOF: the stream ends inside the record that starts at offset %d", d.recordStart)
		}
		return nil, Errorf(FormatIR, d.recordStart, "%v", err)
	}
	if err := f.Validate(); err != nil {
		return nil, Errorf(FormatIR, -1, "invalid: %v", err)
	}
	return f, nil
}

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
	f           *File
	buf         []byte
	// prev is the type of the previous record: the file-level moarvm
	// record must come right after the file record, and so on.
	prev string
	// declared counts, checked when the stream ends
	nStrings, nSnapshots, nClasses uint64
	pending                        map[*Snapshot]*snapDecl
	// colMode says how each column (keyed by a pointer to its
	// destination) has been stored: 'z' zeros records, 'v' value chunks.
	colMode map[any]byte
	// fxLines is true when the fuchsia record lists the location line
	// counts; fxLineCounts collects them.
	fxLines      bool
	fxLineCounts []uint32
}

// snapDecl is what a snapshot record declared, checked when the stream ends.
type snapDecl struct {
	nodes, edges, values, roots uint64
	class, external             bool
	edgeCounts                  []uint32
	rootNode, rootCat           []uint32
	valueKind                   []uint8
	fx                          fxDecl
}

// fxDecl is what a fuchsia.snapshot record declared (its optional columns)
// and the columns the stream stores as counts, turned into offsets when
// the stream ends.
type fxDecl struct {
	timestamp, thread, labels, contents, stacks bool
	labelCounts, stackSizes                     []uint32
	contentsSizes                               []uint64
	// contentsSum is the sum of the contents sizes so far (saturating):
	// the contents bytes may not go beyond it.
	contentsSum uint64
	// unknownSizes is true when the record lists the stream's unknown
	// field sizes (version 5); unknownCounts collects them.
	unknownSizes  bool
	unknownCounts []uint32
	// orphanSum and unknownSum bound the stream's byte columns as
	// contentsSum bounds the contents: the sizes of the orphan contents
	// chunks and of the unknown fields so far (saturating).
	orphanSum, unknownSum uint64
}

// addSaturating adds v to *sum, stopping at 2^64-1.
func addSaturating(sum *uint64, v uint64) {
	if *sum += v; *sum < v {
		*sum = math.MaxUint64
	}
}

func (d *decoder) errorf(format string, args ...any) error {
	return Errorf(FormatIR, d.recordStart, format, args...)
}

func (d *decoder) file() (*File, error) {
	n, err := d.dec.DecodeArrayLen()
	if err != nil || n != 2 {
		return nil, d.errorf("not a heapconv IR stream (missing [\"heapir\", version] header)")
	}
	magic, err := d.shortString(16)
	if err != nil || magic != "heapir" {
		return nil, d.errorf("not a heapconv IR stream (magic %q)", magic)
	}
	v, err := d.dec.DecodeInt64()
	if err != nil {
		return nil, d.errorf("bad version: %v", err)
	}
	if v > Version {
		e := Errorf(FormatIR, d.recordStart, "IR schema version %d is newer than this heapconv reads (up to %d): upgrade heapconv", v, Version)
		e.Err = ErrNewerVersion
		return nil, e
	}
	if v < 1 {
		return nil, d.errorf("IR schema version %d does not exist", v)
	}
	d.version = int(v)
	d.f = &File{}
	d.pending = map[*Snapshot]*snapDecl{}
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
		return nil, Errorf(FormatIR, d.cr.off-1, "data after the end record")
	}
	return d.f, nil
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
		return "", false, d.errorf("the first record is %q: a stream starts with the file record, and file sections come right after the file record", kind)
	}
	switch kind {
	case "file":
		return kind, false, d.fileRecord(n)
	case "strings":
		return kind, false, d.stringsRecord(n)
	case "snapshot":
		return kind, false, d.snapshotRecord(n)
	case "v8":
		return kind, false, d.v8Record(n)
	case "dart":
		if d.version < 2 {
			return kind, false, d.errorf("dart record in a version %d stream (dart sections arrived in version 2)", d.version)
		}
		return kind, false, d.dartRecord(n)
	case "moarvm", "moarvm.snapshot":
		if d.version < 3 {
			return kind, false, d.errorf("%s record in a version %d stream (moarvm sections arrived in version 3)", kind, d.version)
		}
		if kind == "moarvm" {
			return kind, false, d.moarvmRecord(n)
		}
		return kind, false, d.moarvmSnapshotRecord(n)
	case "fuchsia", "fuchsia.snapshot":
		if d.version < 4 {
			return kind, false, d.errorf("%s record in a version %d stream (fuchsia sections arrived in version 4)", kind, d.version)
		}
		if kind == "fuchsia" {
			return kind, false, d.fuchsiaRecord(n)
		}
		return kind, false, d.fuchsiaSnapshotRecord(n)
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
			var fe *FormatError
			if errors.As(err, &fe) {
				return err
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return Truncated(FormatIR, d.cr.off, "unexpected EOF in %s.%s", what, k)
			}
			return d.errorf("%s.%s: %v", what, k, err)
		}
	}
	return nil
}

func (d *decoder) fileRecord(n int) error {
	if n != 2 {
		return d.errorf("file record of %d elements", n)
	}
	if d.prev != "" {
		return d.errorf("second file record, or a file record after other records")
	}
	f := d.f
	return d.mapFields("file", func(k string) (err error) {
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
				err = d.errorf("%d strings is more than 2^32", d.nStrings)
			}
		case "snapshots":
			d.nSnapshots, err = d.uint()
		case "classes":
			d.nClasses, err = d.uint()
		default:
			err = d.dec.Skip()
		}
		return err
	})
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
	for i := 0; i < k; i++ {
		s, err := d.str()
		if err != nil {
			return err
		}
		d.f.Strings = append(d.f.Strings, s)
	}
	return nil
}

func (d *decoder) snapshotRecord(n int) error {
	if n != 2 {
		return d.errorf("snapshot record of %d elements", n)
	}
	if uint64(len(d.f.Snapshots)) >= d.nSnapshots {
		return d.errorf("more snapshots than the %d declared", d.nSnapshots)
	}
	s := &Snapshot{Root: NoNode}
	decl := &snapDecl{}
	err := d.mapFields("snapshot", func(k string) (err error) {
		switch k {
		case "name":
			var v uint64
			v, err = d.uint()
			s.Name = uint32(v)
			if v > math.MaxUint32 {
				err = d.errorf("name index %d", v)
			}
		case "capture_time":
			s.CaptureTime, err = d.dec.DecodeInt64()
		case "totals":
			var m int
			if m, err = d.arrayLen(maxTableLen, "totals"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var t Total
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
				var k EdgeKind
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
			v, err = d.dec.DecodeInt64()
			switch {
			case err != nil:
			case v == -1:
				s.Root = NoNode
			case v < 0 || v >= math.MaxUint32:
				err = d.errorf("root %d", v)
			default:
				s.Root = uint32(v)
			}
		case "nodes":
			decl.nodes, err = d.uint()
		case "edges":
			decl.edges, err = d.uint()
		case "values":
			decl.values, err = d.uint()
		case "roots":
			decl.roots, err = d.uint()
		case "columns":
			var m int
			if m, err = d.arrayLen(maxTableLen, "columns"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var c string
				c, err = d.shortString(256)
				switch c {
				case "node.class":
					decl.class = true
				case "node.external_size":
					decl.external = true
				}
			}
		default:
			err = d.dec.Skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	if decl.nodes > math.MaxUint32-1 || decl.edges > math.MaxUint32 {
		return d.errorf("snapshot declares %d nodes and %d edges; at most 2^32-2 and 2^32 are supported", decl.nodes, decl.edges)
	}
	d.f.Snapshots = append(d.f.Snapshots, s)
	d.pending[s] = decl
	return nil
}

func (d *decoder) v8Record(n int) error {
	if n != 2 || len(d.f.Snapshots) == 0 {
		return d.errorf("v8 record without a snapshot")
	}
	s := d.f.Snapshots[len(d.f.Snapshots)-1]
	if s.V8 != nil || s.Nodes.Len() > 0 {
		return d.errorf("v8 record must follow its snapshot record, once")
	}
	v := &V8Snapshot{}
	err := d.mapFields("v8", func(k string) (err error) {
		switch k {
		case "header":
			v.Header, err = d.json(0)
		case "keys":
			var m int
			if m, err = d.arrayLen(maxTableLen, "keys"); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var key V8Key
				if err = d.pair("key"); err != nil {
					return err
				}
				if key.Name, err = d.str(); err != nil {
					return err
				}
				var c byte
				if c, err = d.dec.PeekCode(); err != nil {
					return err
				}
				if c == msgpcode.Nil {
					err = d.dec.DecodeNil()
				} else {
					var j JSON
					j, err = d.json(0)
					key.Value = &j
				}
				v.Keys = append(v.Keys, key)
			}
		case "layout":
			var l string
			if l, err = d.shortString(64); err != nil {
				return err
			}
			v.Layout = V8Layout(indexOf(v8LayoutNames[:], l))
			if v.Layout == 255 {
				err = d.errorf("unknown v8 layout %q", l)
			}
		case "escape":
			var l string
			if l, err = d.shortString(64); err != nil {
				return err
			}
			v.Escape = V8Escape(indexOf(v8EscapeNames[:], l))
			if v.Escape == 255 {
				err = d.errorf("unknown v8 escape style %q", l)
			}
		case "node_extra", "edge_extra":
			var m int
			if m, err = d.arrayLen(256, k); err != nil {
				return err
			}
			for i := 0; i < m && err == nil; i++ {
				var c Column
				c.Name, err = d.shortString(1024)
				if k == "node_extra" {
					v.NodeExtra = append(v.NodeExtra, c)
				} else {
					v.EdgeExtra = append(v.EdgeExtra, c)
				}
			}
		default:
			err = d.dec.Skip()
		}
		return err
	})
	s.V8 = v
	return err
}

func (d *decoder) dartRecord(n int) error {
	if n != 2 || len(d.f.Snapshots) == 0 {
		return d.errorf("dart record without a snapshot")
	}
	s := d.f.Snapshots[len(d.f.Snapshots)-1]
	if s.Dart != nil || s.Nodes.Len() > 0 {
		return d.errorf("dart record must follow its snapshot record, once")
	}
	v := &DartSnapshot{}
	err := d.mapFields("dart", func(k string) (err error) {
		switch k {
		case "flags":
			v.Flags, err = d.uint()
		case "reference_count":
			v.ReferenceCount, err = d.uint()
		case "identity_hashes":
			v.IdentityHashes, err = d.dec.DecodeBool()
		case "padding":
			v.Padding, err = d.uint()
		default:
			err = d.dec.Skip()
		}
		return err
	})
	s.Dart = v
	return err
}

// moarvmRecord reads the file-level MoarVM record. Its lists are appended to
// as their entries arrive, so a declared length costs nothing until the
// stream holds the entries; the TOC list is also capped by the snapshot
// count the file record declared (one TOC per snapshot and a final one).
func (d *decoder) moarvmRecord(n int) error {
	if n != 2 {
		return d.errorf("moarvm record of %d elements", n)
	}
	if d.prev != "file" {
		return d.errorf("moarvm record must come right after the file record")
	}
	m := &MoarVMFile{}
	err := d.mapFields("moarvm", func(k string) (err error) {
		switch k {
		case "version":
			var v int64
			v, err = d.dec.DecodeInt64()
			if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
				err = d.errorf("moarvm format version %d", v)
			}
			m.Version = int(v)
		case "has_meta":
			m.HasMeta, err = d.dec.DecodeBool()
		case "subversion":
			m.Subversion, err = d.uint()
		case "start_time":
			m.StartTime, err = d.uint()
		case "pid":
			m.PID, err = d.uint()
		case "has_pid":
			m.HasPID, err = d.dec.DecodeBool()
		case "entry_count":
			m.EntryCount, err = d.uint()
		case "data_order":
			m.DataOrder, err = d.stringList(maxTableLen, "data order")
		case "string_count":
			var v uint64
			v, err = d.uint()
			if err == nil && v > d.nStrings {
				err = d.errorf("string heap of %d strings, but the file declares %d", v, d.nStrings)
			}
			m.StringCount = int(v)
		case "tocs":
			var c int
			if c, err = d.arrayLen(int(min(d.nSnapshots, math.MaxInt32-1)+1), "moarvm TOCs"); err != nil {
				return err
			}
			for i := 0; i < c; i++ {
				var t MoarVMTOC
				if t, err = d.moarvmTOC(); err != nil {
					return err
				}
				m.TOCs = append(m.TOCs, t)
			}
		case "recovery":
			m.Recovery, err = d.moarvmRecovery()
		default:
			err = d.dec.Skip()
		}
		return err
	})
	d.f.MoarVM = m
	return err
}

// moarvmTOC reads one inner TOC: [new_strings, new_types, new_frames, [block names]].
func (d *decoder) moarvmTOC() (MoarVMTOC, error) {
	var t MoarVMTOC
	if k, err := d.arrayLen(4, "moarvm TOC"); err != nil {
		return t, err
	} else if k != 4 {
		return t, d.errorf("moarvm TOC of %d elements", k)
	}
	for _, dst := range []*uint32{&t.NewStrings, &t.NewTypes, &t.NewFrames} {
		v, err := d.uint()
		if err != nil {
			return t, err
		}
		if v > math.MaxUint32 {
			return t, d.errorf("moarvm TOC adds %d entries to a table", v)
		}
		*dst = uint32(v)
	}
	var err error
	t.Blocks, err = d.stringList(maxTableLen, "moarvm TOC blocks")
	return t, err
}

// moarvmRecovery reads nil or {damage_at, reason, lost}.
func (d *decoder) moarvmRecovery() (*MoarVMRecovery, error) {
	c, err := d.dec.PeekCode()
	if err != nil {
		return nil, err
	}
	if c == msgpcode.Nil {
		return nil, d.dec.DecodeNil()
	}
	r := &MoarVMRecovery{}
	err = d.mapFields("moarvm recovery", func(k string) (err error) {
		switch k {
		case "damage_at":
			r.DamageAt, err = d.dec.DecodeInt64()
		case "reason":
			r.Reason, err = d.str()
		case "lost":
			var v int64
			v, err = d.dec.DecodeInt64()
			if err == nil && (v < 0 || v > math.MaxInt32) {
				err = d.errorf("%d lost snapshots", v)
			}
			r.Lost = int(v)
		default:
			err = d.dec.Skip()
		}
		return err
	})
	return r, err
}

// stringList reads an array of at most max strings, appending each as it
// arrives. A nil result stands for the empty list.
func (d *decoder) stringList(max int, what string) ([]string, error) {
	c, err := d.arrayLen(max, what)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < c; i++ {
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// moarvmSnapshotRecord reads a snapshot's MoarVM record.
func (d *decoder) moarvmSnapshotRecord(n int) error {
	if n != 2 || len(d.f.Snapshots) == 0 {
		return d.errorf("moarvm.snapshot record without a snapshot")
	}
	s := d.f.Snapshots[len(d.f.Snapshots)-1]
	if s.MoarVM != nil || s.Nodes.Len() > 0 {
		return d.errorf("moarvm.snapshot record must follow its snapshot record, once")
	}
	m := &MoarVMSnapshot{}
	err := d.mapFields("moarvm.snapshot", func(k string) (err error) {
		switch k {
		case "has_meta":
			m.HasMeta, err = d.dec.DecodeBool()
		case "snap_time":
			m.SnapTime, err = d.uint()
		case "gc_seq_num":
			m.GCSeqNum, err = d.uint()
		case "highscores":
			var h bool
			h, err = d.dec.DecodeBool()
			if h {
				// Present boards, even empty ones, are non-nil.
				m.TopIDs, m.TopScores = []uint64{}, []uint64{}
			} else {
				m.TopIDs, m.TopScores = nil, nil
			}
		default:
			err = d.dec.Skip()
		}
		return err
	})
	s.MoarVM = m
	return err
}

func indexOf(names []string, s string) uint8 {
	for i, n := range names {
		if n == s {
			return uint8(i)
		}
	}
	return 255
}

// json reads a msgpack value as a JSON value.
func (d *decoder) json(depth int) (JSON, error) {
	if depth > maxJSONDepth {
		return JSON{}, d.errorf("JSON nested deeper than %d", maxJSONDepth)
	}
	c, err := d.dec.PeekCode()
	if err != nil {
		return JSON{}, err
	}
	switch {
	case c == msgpcode.Nil:
		return JSON{}, d.dec.DecodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		b, err := d.dec.DecodeBool()
		return JSON{Kind: JSONBool, Bool: b}, err
	case c == msgpcode.Float || c == msgpcode.Double:
		f, err := d.dec.DecodeFloat64()
		return JSON{Kind: JSONFloat, Float: f}, err
	case msgpcode.IsString(c):
		s, err := d.str()
		return JSON{Kind: JSONString, Str: s}, err
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := d.arrayLen(maxJSONElems, "JSON array")
		if err != nil {
			return JSON{}, err
		}
		j := JSON{Kind: JSONArray, Elems: make([]JSON, 0, min(n, 64))}
		for i := 0; i < n; i++ {
			e, err := d.json(depth + 1)
			if err != nil {
				return JSON{}, err
			}
			j.Elems = append(j.Elems, e)
		}
		return j, nil
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := d.dec.DecodeMapLen()
		if err != nil {
			return JSON{}, err
		}
		if n < 0 || n > maxJSONElems {
			return JSON{}, d.errorf("JSON object of %d keys", n)
		}
		j := JSON{Kind: JSONObject, Fields: make([]JSONField, 0, min(n, 64))}
		for i := 0; i < n; i++ {
			k, err := d.str()
			if err != nil {
				return JSON{}, err
			}
			v, err := d.json(depth + 1)
			if err != nil {
				return JSON{}, err
			}
			j.Fields = append(j.Fields, JSONField{k, v})
		}
		return j, nil
	default:
		if c == msgpcode.Uint64 {
			u, err := d.dec.DecodeUint64()
			if err != nil {
				return JSON{}, err
			}
			if u > math.MaxInt64 {
				return JSON{Kind: JSONFloat, Float: float64(u)}, nil
			}
			return JSON{Kind: JSONInt, Int: int64(u)}, nil
		}
		i, err := d.dec.DecodeInt64()
		return JSON{Kind: JSONInt, Int: i}, err
	}
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
			err = d.dec.Skip()
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
	if uint64(len(d.f.Classes.Name)) != d.nClasses {
		return d.errorf("stream holds %d classes; the file record declared %d", len(d.f.Classes.Name), d.nClasses)
	}
	if len(d.f.Classes.Name) > 0 || d.f.Classes.FirstField != nil {
		fc := d.f.Classes.FirstField
		if len(fc) != len(d.f.Classes.Name) {
			return d.errorf("class table: %d field counts for %d classes", len(fc), len(d.f.Classes.Name))
		}
		off, err := offsetsFrom(fc)
		if err != nil {
			return d.errorf("class table: %v", err)
		}
		d.f.Classes.FirstField = off
	}
	if err := d.finishFuchsiaFile(); err != nil {
		return err
	}
	for _, s := range d.f.Snapshots {
		if err := d.finishSnapshot(s, d.pending[s]); err != nil {
			return err
		}
	}
	return nil
}

// offsetsFrom turns per-entry counts into CSR offsets.
func offsetsFrom(counts []uint32) ([]uint32, error) {
	off := make([]uint32, len(counts)+1)
	var sum uint64
	for i, c := range counts {
		sum += uint64(c)
		if sum > math.MaxUint32 {
			return nil, fmt.Errorf("more than 2^32 entries")
		}
		off[i+1] = uint32(sum)
	}
	return off, nil
}

func (d *decoder) finishSnapshot(s *Snapshot, decl *snapDecl) error {
	n := s.Nodes.Len()
	if uint64(n) != decl.nodes || uint64(s.Edges.Len()) != decl.edges {
		return d.errorf("snapshot holds %d nodes and %d edges, declared %d and %d", n, s.Edges.Len(), decl.nodes, decl.edges)
	}
	if len(decl.edgeCounts) != n {
		return d.errorf("snapshot has %d edge counts for %d nodes", len(decl.edgeCounts), n)
	}
	off, err := offsetsFrom(decl.edgeCounts)
	if err != nil {
		return d.errorf("%v", err)
	}
	s.Nodes.FirstEdge = off
	if decl.class && len(s.Nodes.Class) != n {
		return d.errorf("class column has %d entries for %d nodes", len(s.Nodes.Class), n)
	}
	if decl.external && s.Nodes.ExternalSize.Len() != n {
		return d.errorf("external size column has %d entries for %d nodes", s.Nodes.ExternalSize.Len(), n)
	}
	if len(decl.rootNode) != len(decl.rootCat) || uint64(len(decl.rootNode)) != decl.roots {
		return d.errorf("root columns do not hold the %d roots declared", decl.roots)
	}
	for i := range decl.rootNode {
		s.Roots = append(s.Roots, RootRef{decl.rootNode[i], decl.rootCat[i]})
	}
	v := &s.Values
	if uint64(len(v.Node)) != decl.values || len(decl.valueKind) != len(v.Node) {
		return d.errorf("value columns do not hold the %d values declared", decl.values)
	}
	v.Kind = make([]ValueKind, len(decl.valueKind))
	for i, k := range decl.valueKind {
		v.Kind[i] = ValueKind(k)
	}
	if s.Fuchsia != nil {
		return d.finishFuchsiaSnapshot(s, &decl.fx)
	}
	return nil
}

// colRecord reads one chunk of a column: ["col", snap, name, width, bin] or
// ["zeros", snap, name, count].
func (d *decoder) colRecord(n int, zeros bool) error {
	if (zeros && n != 4) || (!zeros && n != 5) {
		return d.errorf("column record of %d elements", n)
	}
	snap, err := d.dec.DecodeInt64()
	if err != nil {
		return err
	}
	name, err := d.shortString(1100)
	if err != nil {
		return err
	}
	var vals []uint64
	var count int
	width := 0
	if zeros {
		c, err := d.uint()
		if err != nil {
			return err
		}
		if c > chunkValues {
			return d.errorf("zeros record of %d values (at most %d)", c, chunkValues)
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
		width = int(w)
		bl, err := d.dec.DecodeBytesLen()
		if err != nil {
			return err
		}
		if name == fxContents || name == fxOrphanContents || name == fxUnknownBytes {
			return d.fuchsiaBytes(snap, name, width, bl)
		}
		if bl < 0 || bl > maxChunkBytes || bl%width != 0 {
			return d.errorf("column %s: chunk of %d bytes (width %d, at most %d bytes)", name, bl, width, maxChunkBytes)
		}
		if cap(d.buf) < bl {
			d.buf = make([]byte, max(bl, stringStep))
		}
		if err := d.dec.ReadFull(d.buf[:bl]); err != nil {
			return err
		}
		count = bl / width
		vals = make([]uint64, count)
		for i := range vals {
			b := d.buf[i*width:]
			switch width {
			case 1:
				vals[i] = uint64(b[0])
			case 2:
				vals[i] = uint64(binary.LittleEndian.Uint16(b))
			case 4:
				vals[i] = uint64(binary.LittleEndian.Uint32(b))
			case 8:
				vals[i] = binary.LittleEndian.Uint64(b)
			}
		}
	}
	return d.store(snap, name, vals, count)
}

// store appends count values (vals, or zeros when vals is nil) to the named
// column.
func (d *decoder) store(snap int64, name string, vals []uint64, count int) error {
	at := func(i int) uint64 {
		if vals == nil {
			return 0
		}
		return vals[i]
	}
	// Only columns tied to the node or edge count, which node.kind and
	// edge.kind fixed byte by byte, may arrive as zeros records: every other
	// value must be backed by bytes of the stream.
	tied := false
	u32 := func(dst *[]uint32, limit int) error {
		if vals == nil && !tied {
			return d.errorf("column %s cannot be stored as zeros", name)
		}
		if err := d.colModeOf(dst, name, vals == nil); err != nil {
			return err
		}
		if limit >= 0 && len(*dst)+count > limit {
			return d.errorf("column %s: more values than its table has entries (%d)", name, limit)
		}
		if *dst == nil {
			*dst = make([]uint32, 0, count)
		}
		for i := 0; i < count; i++ {
			v := at(i)
			if v > math.MaxUint32 {
				return d.errorf("column %s: value %d does not fit in 32 bits", name, v)
			}
			*dst = append(*dst, uint32(v))
		}
		return nil
	}
	u8 := func(dst *[]uint8, limit int) error {
		if vals == nil {
			return d.errorf("column %s must be stored as bytes", name)
		}
		if limit >= 0 && len(*dst)+count > limit {
			return d.errorf("column %s: more values than declared (%d)", name, limit)
		}
		for i := 0; i < count; i++ {
			if vals[i] > math.MaxUint8 {
				return d.errorf("column %s: value %d does not fit in 8 bits", name, vals[i])
			}
			*dst = append(*dst, uint8(vals[i]))
		}
		return nil
	}
	uints := func(dst *Uints, limit int) error {
		if limit >= 0 && dst.Len()+count > limit {
			return d.errorf("column %s: more values than its table has entries (%d)", name, limit)
		}
		// A column is all zeros records or all value chunks (SPEC.md): a
		// zeros record after values, or values after zeros, would let a few
		// bytes of stream materialize a whole column.
		if err := d.colModeOf(dst, name, vals == nil); err != nil {
			return err
		}
		if vals == nil {
			if !tied {
				return d.errorf("column %s cannot be stored as zeros", name)
			}
			dst.AppendZeros(count)
			return nil
		}
		for _, v := range vals {
			dst.Append(v)
		}
		return nil
	}
	u64 := func(dst *[]uint64, limit int) error {
		if vals == nil {
			return d.errorf("column %s must be stored as values", name)
		}
		if limit >= 0 && len(*dst)+count > limit {
			return d.errorf("column %s: more values than declared (%d)", name, limit)
		}
		*dst = append(*dst, vals...)
		return nil
	}

	f := d.f
	if snap == -1 {
		nc := len(f.Classes.Name)
		switch name {
		case "class.name":
			return u32(&f.Classes.Name, -1)
		case "class.library":
			return u32(&f.Classes.Library, nc)
		case "class.field_count":
			return u32(&f.Classes.FirstField, nc)
		case "class.field_name":
			return u32(&f.Classes.FieldName, -1)
		}
		if m := f.MoarVM; m != nil {
			nf := len(m.FrameName)
			switch name {
			case "moarvm.frame.name":
				return u32(&m.FrameName, -1)
			case "moarvm.frame.cuid":
				return u32(&m.FrameCUID, nf)
			case "moarvm.frame.line":
				return u32(&m.FrameLine, nf)
			case "moarvm.frame.file":
				return u32(&m.FrameFile, nf)
			}
		}
		if m := f.Fuchsia; m != nil && strings.HasPrefix(name, "fuchsia.") {
			return d.storeFuchsiaFile(m, name, vals, count)
		}
		return d.errorf("unknown file column %q", name)
	}
	if snap < 0 || snap != int64(len(f.Snapshots)-1) {
		return d.errorf("column %s for snapshot %d, but the current snapshot is %d", name, snap, len(f.Snapshots)-1)
	}
	s := f.Snapshots[snap]
	decl := d.pending[s]
	nn, ne := s.Nodes.Len(), s.Edges.Len()
	tied = tiedColumn(name)
	switch name {
	case "node.kind":
		return u8(&s.Nodes.Kind, int(decl.nodes))
	case "edge.kind":
		return u8(&s.Edges.Kind, int(decl.edges))
	case "node.name":
		return u32(&s.Nodes.Name, nn)
	case "node.class":
		if !decl.class {
			return d.errorf("node.class column not declared")
		}
		return u32(&s.Nodes.Class, nn)
	case "node.id":
		return uints(&s.Nodes.ID, nn)
	case "node.self_size":
		return uints(&s.Nodes.SelfSize, nn)
	case "node.external_size":
		if !decl.external {
			return d.errorf("node.external_size column not declared")
		}
		return uints(&s.Nodes.ExternalSize, nn)
	case "node.edge_count":
		return u32(&decl.edgeCounts, nn)
	case "edge.name":
		return u32(&s.Edges.Name, ne)
	case "edge.target":
		return u32(&s.Edges.Target, ne)
	case "root.node":
		return u32(&decl.rootNode, int(min(decl.roots, math.MaxInt32)))
	case "root.category":
		return u32(&decl.rootCat, int(min(decl.roots, math.MaxInt32)))
	case "value.node":
		return u32(&s.Values.Node, int(min(decl.values, uint64(nn))))
	case "value.kind":
		return u8(&decl.valueKind, len(s.Values.Node))
	case "value.bits":
		return u64(&s.Values.Bits, len(s.Values.Node))
	case "value.aux":
		return u64(&s.Values.Aux, len(s.Values.Node))
	}
	if v := s.V8; v != nil {
		switch name {
		case "v8.trace_function_infos":
			return uints(&v.TraceFunctionInfos, -1)
		case "v8.trace_tree":
			return uints(&v.TraceTree, -1)
		case "v8.samples":
			return uints(&v.Samples, -1)
		case "v8.locations":
			return uints(&v.Locations, -1)
		}
		if f, ok := strings.CutPrefix(name, "v8.node."); ok {
			for i := range v.NodeExtra {
				if v.NodeExtra[i].Name == f {
					return uints(&v.NodeExtra[i].Values, nn)
				}
			}
		}
		if f, ok := strings.CutPrefix(name, "v8.edge."); ok {
			for i := range v.EdgeExtra {
				if v.EdgeExtra[i].Name == f {
					return uints(&v.EdgeExtra[i].Values, ne)
				}
			}
		}
	}
	if v := s.Dart; v != nil {
		nc, nf := len(f.Classes.Name), len(f.Classes.FieldName)
		switch name {
		case "dart.class.flags":
			return uints(&v.ClassFlags, nc)
		case "dart.class.uri":
			return u32(&v.ClassURI, nc)
		case "dart.class.reserved":
			return u32(&v.ClassReserved, nc)
		case "dart.field.flags":
			return uints(&v.FieldFlags, nf)
		case "dart.field.index":
			return uints(&v.FieldIndex, nf)
		case "dart.field.reserved":
			return u32(&v.FieldReserved, nf)
		case "dart.zero_ref.node":
			return u32(&v.ZeroRefNode, -1)
		case "dart.zero_ref.slot":
			return u32(&v.ZeroRefSlot, len(v.ZeroRefNode))
		case "dart.external.node":
			return u32(&v.ExternalNode, -1)
		case "dart.external.size":
			return uints(&v.ExternalSize, len(v.ExternalNode))
		case "dart.external.name":
			return u32(&v.ExternalName, len(v.ExternalNode))
		}
	}
	if m := s.MoarVM; m != nil {
		switch name {
		case "moarvm.node.tofi":
			return uints(&m.TOFI, nn)
		case "moarvm.node.ref_start":
			return uints(&m.RefStart, nn)
		case "moarvm.top.ids", "moarvm.top.scores":
			if m.TopIDs == nil {
				return d.errorf("column %s without highscores declared", name)
			}
			if name == "moarvm.top.ids" {
				return u64(&m.TopIDs, -1)
			}
			return u64(&m.TopScores, len(m.TopIDs))
		}
	}
	if x := s.Fuchsia; x != nil && strings.HasPrefix(name, "fuchsia.") {
		return d.storeFuchsia(s, x, decl, name, vals, count, tied)
	}
	return d.errorf("unknown column %q", name)
}

// colModeOf records whether a column arrives as zeros records or as value
// chunks, and refuses a column that mixes them (SPEC.md): a zeros record
// after values, or values after zeros, would let a few bytes of stream
// materialize a whole column.
func (d *decoder) colModeOf(dst any, name string, zeros bool) error {
	want := byte('v')
	if zeros {
		want = 'z'
	}
	if mode := d.colMode[dst]; mode != 0 && mode != want {
		return d.errorf("column %s mixes zeros records and value chunks", name)
	}
	if d.colMode == nil {
		d.colMode = map[any]byte{}
	}
	d.colMode[dst] = want
	return nil
}

// u32Index reads a string index (or another 32-bit number).
func (d *decoder) u32Index(what string) (uint32, error) {
	v, err := d.uint()
	if err == nil && v > math.MaxUint32 {
		err = d.errorf("%s %d does not fit in 32 bits", what, v)
	}
	return uint32(v), err
}

// valueType reads a pprof ValueType: [type, unit].
func (d *decoder) valueType() (FuchsiaValueType, error) {
	var t FuchsiaValueType
	k, err := d.arrayLen(2, "fuchsia value type")
	if err != nil {
		return t, err
	}
	if k != 2 {
		return t, d.errorf("fuchsia value type of %d elements", k)
	}
	if t.Type, err = d.u32Index("value type"); err != nil {
		return t, err
	}
	t.Unit, err = d.u32Index("value unit")
	return t, err
}

// fuchsiaRecord reads the file-level Fuchsia record: right after the file
// record, or after the moarvm record.
func (d *decoder) fuchsiaRecord(n int) error {
	if n != 2 {
		return d.errorf("fuchsia record of %d elements", n)
	}
	if d.prev != "file" && d.prev != "moarvm" {
		return d.errorf("fuchsia record must come right after the file record (or the moarvm record)")
	}
	m := &FuchsiaFile{}
	d.f.Fuchsia = m
	return d.mapFields("fuchsia", func(k string) (err error) {
		switch k {
		case "gzip":
			m.Gzip, err = d.dec.DecodeBool()
		case "sample_types":
			var c int
			if c, err = d.arrayLen(maxTableLen, "fuchsia sample types"); err != nil {
				return err
			}
			m.SampleTypes = nil
			for i := 0; i < c; i++ {
				var t FuchsiaValueType
				if t, err = d.valueType(); err != nil {
					return err
				}
				m.SampleTypes = append(m.SampleTypes, t)
			}
		case "default_sample_type":
			m.DefaultSampleType, err = d.u32Index(k)
		case "drop_frames":
			m.DropFrames, err = d.u32Index(k)
		case "keep_frames":
			m.KeepFrames, err = d.u32Index(k)
		case "doc_url":
			m.DocURL, err = d.u32Index(k)
		case "comments":
			var c int
			if c, err = d.arrayLen(maxTableLen, "fuchsia comments"); err != nil {
				return err
			}
			m.Comments = nil
			for i := 0; i < c; i++ {
				var v uint32
				if v, err = d.u32Index("comment"); err != nil {
					return err
				}
				m.Comments = append(m.Comments, v)
			}
		case "time_nanos":
			m.TimeNanos, err = d.dec.DecodeInt64()
		case "duration_nanos":
			m.DurationNanos, err = d.dec.DecodeInt64()
		case "period_type":
			m.PeriodType, err = d.valueType()
		case "period":
			m.Period, err = d.dec.DecodeInt64()
		case "columns":
			var names []string
			if names, err = d.shortStringList(maxTableLen, "fuchsia columns"); err != nil {
				return err
			}
			d.fxLines = false
			for _, c := range names {
				if c == fxLineCount {
					d.fxLines = true
				}
			}
		default:
			err = d.dec.Skip()
		}
		return err
	})
}

// shortStringList reads an array of at most max names of at most 256 bytes.
func (d *decoder) shortStringList(max int, what string) ([]string, error) {
	c, err := d.arrayLen(max, what)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < c; i++ {
		s, err := d.shortString(256)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// fuchsiaSnapshotRecord reads a snapshot's Fuchsia record: right after its
// snapshot record (or the snapshot's other section records).
func (d *decoder) fuchsiaSnapshotRecord(n int) error {
	if n != 2 || len(d.f.Snapshots) == 0 {
		return d.errorf("fuchsia.snapshot record without a snapshot")
	}
	s := d.f.Snapshots[len(d.f.Snapshots)-1]
	switch d.prev {
	case "snapshot", "v8", "dart", "moarvm.snapshot":
	default:
		return d.errorf("fuchsia.snapshot record must follow its snapshot record, once")
	}
	if s.Fuchsia != nil || s.Nodes.Len() > 0 {
		return d.errorf("fuchsia.snapshot record must follow its snapshot record, once")
	}
	x := &FuchsiaSnapshot{}
	s.Fuchsia = x
	fx := &d.pending[s].fx
	return d.mapFields("fuchsia.snapshot", func(k string) (err error) {
		switch k {
		case "has_process_name":
			x.HasProcessName, err = d.dec.DecodeBool()
		case "process_name":
			x.ProcessName, err = d.u32Index("process name")
		case "has_process_koid":
			x.HasProcessKoid, err = d.dec.DecodeBool()
		case "process_koid":
			x.ProcessKoid, err = d.dec.DecodeInt64()
		case "derived_edges":
			x.DerivedEdges, err = d.dec.DecodeBool()
		case "stream":
			var b bool
			if b, err = d.dec.DecodeBool(); err != nil {
				return err
			}
			if b && d.version < 5 {
				return d.errorf("fuchsia.snapshot stream details in a version %d stream (they arrived in version 5)", d.version)
			}
			x.Stream = nil
			if b {
				x.Stream = &FuchsiaStream{}
			}
		case "columns":
			var names []string
			if names, err = d.shortStringList(maxTableLen, "fuchsia.snapshot columns"); err != nil {
				return err
			}
			fx.timestamp, fx.thread, fx.labels, fx.contents, fx.stacks = false, false, false, false, false
			fx.unknownSizes = false
			for _, c := range names {
				switch c {
				case fxUnknownSize:
					if d.version < 5 {
						return d.errorf("column %s listed in a version %d stream (stream details arrived in version 5)", c, d.version)
					}
					fx.unknownSizes = true
				case fxTimestamp:
					fx.timestamp = true
				case fxThread:
					fx.thread = true
				case fxLabelCount:
					fx.labels = true
				case fxContentsSize:
					fx.contents = true
				case fxStackSize:
					fx.stacks = true
				}
			}
		default:
			err = d.dec.Skip()
		}
		return err
	})
}

// fxAppend appends a chunk (vals, or count zeros when vals is nil) to a
// Fuchsia column, converting each value with conv (false: out of range).
// Only columns tied to the node count may arrive as zeros records, and a
// column is all zeros records or all value chunks. limit < 0: unbounded.
func fxAppend[T any](d *decoder, dst *[]T, name string, vals []uint64, count, limit int, tied bool, conv func(uint64) (T, bool)) error {
	if vals == nil && !tied {
		return d.errorf("column %s cannot be stored as zeros", name)
	}
	if limit >= 0 && len(*dst)+count > limit {
		return d.errorf("column %s: more values than its table has entries (%d)", name, limit)
	}
	if err := d.colModeOf(dst, name, vals == nil); err != nil {
		return err
	}
	if *dst == nil {
		*dst = make([]T, 0, count)
	}
	var zero T
	if vals == nil {
		for i := 0; i < count; i++ {
			*dst = append(*dst, zero)
		}
		return nil
	}
	for _, v := range vals {
		x, ok := conv(v)
		if !ok {
			return d.errorf("column %s: value %d out of range", name, v)
		}
		*dst = append(*dst, x)
	}
	return nil
}

func fxU64(v uint64) (uint64, bool) { return v, true }
func fxU32(v uint64) (uint32, bool) { return uint32(v), v <= math.MaxUint32 }
func fxU8(v uint64) (uint8, bool)   { return uint8(v), v <= math.MaxUint8 }
func fxBool(v uint64) (bool, bool)  { return v == 1, v <= 1 }
func fxI64(v uint64) (int64, bool)  { return unzigzag(v), true }

// storeFuchsiaFile stores a chunk of a file-level Fuchsia column. Each
// table's id column (the function's line column for the lines) fixes its
// length; the table's other columns may not outgrow it.
func (d *decoder) storeFuchsiaFile(m *FuchsiaFile, name string, vals []uint64, count int) error {
	mp, fn, lc := &m.Mappings, &m.Functions, &m.Locations
	nm, nf, nl, nline := mp.Len(), fn.Len(), lc.Len(), len(lc.Function)
	switch name {
	case "fuchsia.mapping.id":
		return fxAppend(d, &mp.ID, name, vals, count, -1, false, fxU64)
	case "fuchsia.mapping.start":
		return fxAppend(d, &mp.Start, name, vals, count, nm, false, fxU64)
	case "fuchsia.mapping.limit":
		return fxAppend(d, &mp.Limit, name, vals, count, nm, false, fxU64)
	case "fuchsia.mapping.offset":
		return fxAppend(d, &mp.Offset, name, vals, count, nm, false, fxU64)
	case "fuchsia.mapping.file":
		return fxAppend(d, &mp.File, name, vals, count, nm, false, fxU32)
	case "fuchsia.mapping.build_id":
		return fxAppend(d, &mp.BuildID, name, vals, count, nm, false, fxU32)
	case "fuchsia.mapping.flags":
		return fxAppend(d, &mp.Flags, name, vals, count, nm, false, fxU8)
	case "fuchsia.function.id":
		return fxAppend(d, &fn.ID, name, vals, count, -1, false, fxU64)
	case "fuchsia.function.name":
		return fxAppend(d, &fn.Name, name, vals, count, nf, false, fxU32)
	case "fuchsia.function.system_name":
		return fxAppend(d, &fn.SystemName, name, vals, count, nf, false, fxU32)
	case "fuchsia.function.filename":
		return fxAppend(d, &fn.Filename, name, vals, count, nf, false, fxU32)
	case "fuchsia.function.start_line":
		return fxAppend(d, &fn.StartLine, name, vals, count, nf, false, fxI64)
	case "fuchsia.location.id":
		return fxAppend(d, &lc.ID, name, vals, count, -1, false, fxU64)
	case "fuchsia.location.mapping":
		return fxAppend(d, &lc.Mapping, name, vals, count, nl, false, fxU32)
	case "fuchsia.location.address":
		return fxAppend(d, &lc.Address, name, vals, count, nl, false, fxU64)
	case "fuchsia.location.folded":
		return fxAppend(d, &lc.Folded, name, vals, count, nl, false, fxBool)
	case fxLineCount:
		if !d.fxLines {
			return d.errorf("column %s not declared in the fuchsia record", name)
		}
		return fxAppend(d, &d.fxLineCounts, name, vals, count, nl, false, fxU32)
	case "fuchsia.line.function":
		return fxAppend(d, &lc.Function, name, vals, count, -1, false, fxU32)
	case "fuchsia.line.line":
		return fxAppend(d, &lc.Line, name, vals, count, nline, false, fxI64)
	case "fuchsia.line.column":
		return fxAppend(d, &lc.Column, name, vals, count, nline, false, fxI64)
	case "fuchsia.sample.snapshot":
		return fxAppend(d, &m.SampleSnapshot, name, vals, count, -1, false, fxU32)
	}
	return d.errorf("unknown file column %q", name)
}

// storeFuchsia stores a chunk of a snapshot's Fuchsia column. The node
// columns are bounded by the node count (node.kind came first), the extra
// values by the node count times the extra sample types, each table's
// other columns by its first.
func (d *decoder) storeFuchsia(s *Snapshot, x *FuchsiaSnapshot, decl *snapDecl, name string, vals []uint64, count int, tied bool) error {
	fx := &decl.fx
	nn := s.Nodes.Len()
	nt, nlab := len(x.ThreadName), len(x.LabelKey)
	undeclared := func() error { return d.errorf("column %s not declared in the fuchsia.snapshot record", name) }
	switch name {
	case "fuchsia.node.count":
		return d.uintsFuchsia(&x.Count, name, vals, count, nn)
	case "fuchsia.node.flags":
		return fxAppend(d, &x.Flags, name, vals, count, nn, tied, fxU8)
	case fxTimestamp:
		if !fx.timestamp {
			return undeclared()
		}
		return fxAppend(d, &x.Timestamp, name, vals, count, nn, tied, fxI64)
	case fxThread:
		if !fx.thread {
			return undeclared()
		}
		return fxAppend(d, &x.Thread, name, vals, count, nn, tied, fxU32)
	case "fuchsia.node.stack":
		return fxAppend(d, &x.Stack, name, vals, count, nn, tied, fxU32)
	case fxLabelCount:
		if !fx.labels {
			return undeclared()
		}
		return fxAppend(d, &fx.labelCounts, name, vals, count, nn, tied, fxU32)
	case fxContentsSize:
		if !fx.contents {
			return undeclared()
		}
		if err := fxAppend(d, &fx.contentsSizes, name, vals, count, nn, tied, fxU64); err != nil {
			return err
		}
		for _, v := range vals {
			addSaturating(&fx.contentsSum, v)
		}
		return nil
	case fxExtraValue:
		extra := 0
		if m := d.f.Fuchsia; m != nil && len(m.SampleTypes) > 2 {
			extra = len(m.SampleTypes) - 2
		}
		return fxAppend(d, &x.ExtraValues, name, vals, count, extra*nn, false, fxI64)
	case "fuchsia.thread.name":
		return fxAppend(d, &x.ThreadName, name, vals, count, -1, false, fxU32)
	case "fuchsia.thread.koid":
		return fxAppend(d, &x.ThreadKoid, name, vals, count, nt, false, fxU64)
	case "fuchsia.thread.bare":
		return fxAppend(d, &x.ThreadBare, name, vals, count, nt, false, fxBool)
	case fxStackSize:
		if !fx.stacks {
			return undeclared()
		}
		return fxAppend(d, &fx.stackSizes, name, vals, count, -1, false, fxU32)
	case "fuchsia.stack.location":
		if !fx.stacks {
			return d.errorf("column %s without %s declared", name, fxStackSize)
		}
		return fxAppend(d, &x.StackLocation, name, vals, count, -1, false, fxU32)
	case "fuchsia.label.key":
		return fxAppend(d, &x.LabelKey, name, vals, count, -1, false, fxU32)
	case "fuchsia.label.numeric":
		return fxAppend(d, &x.LabelNumeric, name, vals, count, nlab, false, fxBool)
	case "fuchsia.label.str":
		return fxAppend(d, &x.LabelStr, name, vals, count, nlab, false, fxU32)
	case "fuchsia.label.num":
		return fxAppend(d, &x.LabelNum, name, vals, count, nlab, false, fxI64)
	case "fuchsia.label.unit":
		return fxAppend(d, &x.LabelUnit, name, vals, count, nlab, false, fxU32)
	case fxContents:
		return d.errorf("column %s must be stored as bytes", name)
	}
	if strings.HasPrefix(name, "fuchsia.stream.") {
		return d.storeFuchsiaStream(s, x, fx, name, vals, count, tied)
	}
	return d.errorf("unknown column %q", name)
}

// streamDeclared checks that a stream column may be read: the stream is of
// version 5 or later and the fuchsia.snapshot record declared the stream
// details.
func (d *decoder) streamDeclared(x *FuchsiaSnapshot, name string) error {
	if d.version < 5 {
		return d.errorf("column %s in a version %d stream (stream details arrived in version 5)", name, d.version)
	}
	if x.Stream == nil {
		return d.errorf("column %s without stream details declared in the fuchsia.snapshot record", name)
	}
	return nil
}

// storeFuchsiaStream stores a chunk of a snapshot's FuchsiaStream column.
// The allocation fields are bounded by the node count, the stack keys by
// the stack sizes, the thread keys by the thread names, each other
// table's columns by its first.
func (d *decoder) storeFuchsiaStream(s *Snapshot, x *FuchsiaSnapshot, fx *fxDecl, name string, vals []uint64, count int, tied bool) error {
	if err := d.streamDeclared(x, name); err != nil {
		return err
	}
	st := x.Stream
	switch name {
	case fxRecords:
		return fxAppend(d, &st.Records, name, vals, count, -1, false, fxU8)
	case fxAllocFields:
		return fxAppend(d, &st.AllocFields, name, vals, count, s.Nodes.Len(), tied, fxU8)
	case fxStackKey:
		return fxAppend(d, &st.StackKey, name, vals, count, len(fx.stackSizes), false, fxU64)
	case fxStackChunkStack:
		return fxAppend(d, &st.StackChunkStack, name, vals, count, -1, false, fxU32)
	case fxStackChunkSize:
		return fxAppend(d, &st.StackChunkSize, name, vals, count, len(st.StackChunkStack), false, fxU32)
	case fxThreadKey:
		return fxAppend(d, &st.ThreadKey, name, vals, count, len(x.ThreadName), false, fxU64)
	case fxRegionMapping:
		return fxAppend(d, &st.RegionMapping, name, vals, count, -1, false, fxU32)
	case fxRegionFields:
		return fxAppend(d, &st.RegionFields, name, vals, count, len(st.RegionMapping), false, fxU8)
	case fxRegionVaddr:
		return fxAppend(d, &st.RegionVaddr, name, vals, count, len(st.RegionMapping), false, fxU64)
	case fxContentsChunkNode:
		return fxAppend(d, &st.ContentsChunkNode, name, vals, count, -1, false, fxU32)
	case fxContentsChunkSize:
		at := len(st.ContentsChunkSize)
		if err := fxAppend(d, &st.ContentsChunkSize, name, vals, count, len(st.ContentsChunkNode), false, fxU32); err != nil {
			return err
		}
		for j, v := range vals {
			if st.ContentsChunkNode[at+j] == FuchsiaOrphanChunk {
				addSaturating(&fx.orphanSum, v)
			}
		}
		return nil
	case fxOrphanAddress:
		return fxAppend(d, &st.OrphanAddress, name, vals, count, -1, false, fxU64)
	case fxUnknownRecord:
		return fxAppend(d, &st.UnknownRecord, name, vals, count, -1, false, fxU32)
	case fxUnknownOrdinal:
		return fxAppend(d, &st.UnknownOrdinal, name, vals, count, len(st.UnknownRecord), false, fxU64)
	case fxUnknownSize:
		if !fx.unknownSizes {
			return d.errorf("column %s not declared in the fuchsia.snapshot record", name)
		}
		if err := fxAppend(d, &fx.unknownCounts, name, vals, count, len(st.UnknownRecord), false, fxU32); err != nil {
			return err
		}
		for _, v := range vals {
			addSaturating(&fx.unknownSum, v)
		}
		return nil
	case fxOrphanContents, fxUnknownBytes:
		return d.errorf("column %s must be stored as bytes", name)
	}
	return d.errorf("unknown column %q", name)
}

// uintsFuchsia appends a chunk to a Uints node column (zeros records
// allowed: the node count bounds it).
func (d *decoder) uintsFuchsia(dst *Uints, name string, vals []uint64, count, limit int) error {
	if dst.Len()+count > limit {
		return d.errorf("column %s: more values than its table has entries (%d)", name, limit)
	}
	if err := d.colModeOf(dst, name, vals == nil); err != nil {
		return err
	}
	if vals == nil {
		dst.AppendZeros(count)
		return nil
	}
	for _, v := range vals {
		dst.Append(v)
	}
	return nil
}

// fuchsiaBytes reads a chunk of one of a snapshot's byte columns (the bin
// of a col record of width 1, at most 64 KiB) straight into its slice: no
// more than the sizes so far announce (the contents sizes for the
// contents, the orphan chunks' sizes for the orphan contents, the unknown
// field sizes for their bytes).
func (d *decoder) fuchsiaBytes(snap int64, name string, width, bl int) error {
	f := d.f
	if snap < 0 || snap != int64(len(f.Snapshots)-1) {
		return d.errorf("column %s for snapshot %d, but the current snapshot is %d", name, snap, len(f.Snapshots)-1)
	}
	s := f.Snapshots[snap]
	x := s.Fuchsia
	if x == nil {
		return d.errorf("unknown column %q", name)
	}
	fx := &d.pending[s].fx
	var dst *[]byte
	var bound uint64
	var sizes string
	switch name {
	case fxContents:
		if !fx.contents {
			return d.errorf("column %s without %s declared", name, fxContentsSize)
		}
		dst, bound, sizes = &x.Contents, fx.contentsSum, "contents sizes"
	case fxOrphanContents:
		if err := d.streamDeclared(x, name); err != nil {
			return err
		}
		dst, bound, sizes = &x.Stream.OrphanContents, fx.orphanSum, "orphan chunk sizes"
	default:
		if err := d.streamDeclared(x, name); err != nil {
			return err
		}
		if !fx.unknownSizes {
			return d.errorf("column %s without %s declared", name, fxUnknownSize)
		}
		dst, bound, sizes = &x.Stream.UnknownBytes, fx.unknownSum, "unknown field sizes"
	}
	if width != 1 || bl < 0 || bl > chunkValues {
		return d.errorf("column %s: chunk of %d bytes of width %d (bytes, at most %d a chunk)", name, bl, width, chunkValues)
	}
	if uint64(len(*dst))+uint64(bl) > bound {
		return d.errorf("column %s: more bytes than the %s so far (%d)", name, sizes, bound)
	}
	at := len(*dst)
	*dst = slices.Grow(*dst, bl)[:at+bl]
	return d.dec.ReadFull((*dst)[at:])
}

// finishFuchsiaFile turns the location line counts into offsets.
func (d *decoder) finishFuchsiaFile() error {
	m := d.f.Fuchsia
	if m == nil || !d.fxLines {
		return nil
	}
	if len(d.fxLineCounts) != m.Locations.Len() {
		return d.errorf("fuchsia: %d line counts for %d locations", len(d.fxLineCounts), m.Locations.Len())
	}
	off, err := offsetsFrom(d.fxLineCounts)
	if err != nil {
		return d.errorf("fuchsia location lines: %v", err)
	}
	m.Locations.FirstLine = off
	return nil
}

// finishFuchsiaSnapshot checks that the declared optional node columns
// have one entry per node and turns counts and sizes into offsets.
func (d *decoder) finishFuchsiaSnapshot(s *Snapshot, fx *fxDecl) error {
	x := s.Fuchsia
	n := s.Nodes.Len()
	for _, c := range []struct {
		name     string
		declared bool
		have     int
	}{
		{fxTimestamp, fx.timestamp, len(x.Timestamp)},
		{fxThread, fx.thread, len(x.Thread)},
		{fxLabelCount, fx.labels, len(fx.labelCounts)},
		{fxContentsSize, fx.contents, len(fx.contentsSizes)},
	} {
		if c.declared && c.have != n {
			return d.errorf("fuchsia: column %s has %d entries for %d nodes", c.name, c.have, n)
		}
	}
	if fx.labels {
		off, err := offsetsFrom(fx.labelCounts)
		if err != nil {
			return d.errorf("fuchsia labels: %v", err)
		}
		x.LabelFirst = off
	}
	if fx.stacks {
		off, err := offsetsFrom(fx.stackSizes)
		if err != nil {
			return d.errorf("fuchsia stacks: %v", err)
		}
		x.StackFirst = off
	}
	if fx.contents {
		off := make([]uint64, n+1)
		for i, c := range fx.contentsSizes {
			off[i+1] = off[i] + c
			if off[i+1] < off[i] || off[i+1] > uint64(len(x.Contents)) {
				return d.errorf("fuchsia: contents sizes exceed the %d contents bytes", len(x.Contents))
			}
		}
		x.ContentsStart = off
	}
	st := x.Stream
	if st == nil {
		if fx.unknownSizes {
			return d.errorf("fuchsia: column %s declared without stream details", fxUnknownSize)
		}
		return nil
	}
	if len(st.AllocFields) != n {
		return d.errorf("fuchsia: column %s has %d entries for %d nodes", fxAllocFields, len(st.AllocFields), n)
	}
	if fx.unknownSizes {
		if len(fx.unknownCounts) != len(st.UnknownRecord) {
			return d.errorf("fuchsia: column %s has %d entries for %d unknown fields", fxUnknownSize, len(fx.unknownCounts), len(st.UnknownRecord))
		}
		off, err := offsetsFrom(fx.unknownCounts)
		if err != nil {
			return d.errorf("fuchsia stream unknown fields: %v", err)
		}
		st.UnknownFirst = off
	}
	return nil
}
