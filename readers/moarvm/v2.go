package moarvm

import (
	"encoding/binary"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// Version 2 files (MoarVM built without zstd, as Debian's is) hold, per
// snapshot, uncompressed tables behind 4-byte tags:
//
//	"coll" u64 count, u64 28, count × {u16 kind, u32 tofi, u16 size, u64 unmanaged, u64 refs_start, u32 refs}
//	"refs" u64 count, u64 17, count × {u8 width '0' '1' '3' '6', u8 kind, index, target: width 1, 2, 4 or 8 bytes each}
//	"strs" u64 (wrong) count, {u64 length, bytes}…
//	"type" u64 count, u64 16, count × {u64 repr, u64 type name}
//	"fram" u64 count, u64 32, count × {u64 name, cuid, line, file}
//
// then one more strs/type/fram (normally empty) and a trailer of n × 4 u64
// and 4 u64 (string heap, types and frames sizes, n). Since 2019.11 the
// writer puts the number of strings written before the block in the strs
// count, writes the 32-bit type and frame fields as 64-bit (the high half is
// the next field), and leaves the trailer's offsets unusable; so strings
// run until the "type" tag, only the low halves count, and the file is read
// from the start.

// v2 is a parser over the whole file in memory.
type v2 struct {
	data []byte
	off  int
	end  int // where the trailer starts
}

func (p *v2) errorf(off int, format string, args ...any) error {
	return errorf(int64(off), format, args...)
}

func (p *v2) u64(what string) (uint64, error) {
	if p.end-p.off < 8 {
		return 0, ir.Truncated(moarvmir.Format, int64(p.off), "%s cut short", what)
	}
	v := binary.LittleEndian.Uint64(p.data[p.off:])
	p.off += 8
	return v, nil
}

// table reads a tag and a table header (count and entry size) and checks
// that the records fit.
func (p *v2) table(tag string, entry uint64) (int, error) {
	at := p.off
	if p.end-p.off < 4 || string(p.data[p.off:p.off+4]) != tag {
		got := p.data[p.off:min(p.off+4, p.end)]
		return 0, p.errorf(at, "expected the %q table, found %q", tag, got)
	}
	p.off += 4
	n, err := p.u64(tag + " count")
	if err != nil {
		return 0, err
	}
	size, err := p.u64(tag + " entry size")
	if err != nil {
		return 0, err
	}
	if size != entry {
		return 0, p.errorf(at+12, "%s entries of %d bytes (MoarVM writes %d)", tag, size, entry)
	}
	// refs records are variable: at least 4 bytes each.
	min := entry
	if tag == "refs" {
		min = 4
	}
	if n > uint64(p.end-p.off)/min {
		return 0, p.errorf(at+4, "%s table of %d entries, but only %d bytes are left", tag, n, p.end-p.off)
	}
	return int(n), nil
}

func (r *reader) readV2() (*ir.File, error) {
	data, err := r.bytesAt(0, r.size)
	if err != nil {
		return nil, err
	}
	if len(data) < 16+32 {
		return nil, errorf(int64(len(data)), "file of %d bytes ends before its trailer", len(data))
	}
	n := binary.LittleEndian.Uint64(data[len(data)-8:])
	if n > uint64(len(data)-16-32)/32 {
		return nil, errorf(int64(len(data)-8), "trailer for %d snapshots, more than the file can hold", n)
	}
	p := &v2{data: data, off: 16, end: len(data) - 32 - 32*int(n)}
	f := &ir.File{Format: moarvmir.Format}
	m := &moarvmir.File{Version: 2}
	f.SetSection(m)
	for {
		var inc moarvmir.TOC
		var q *pending
		if p.off+4 <= p.end && string(data[p.off:p.off+4]) == "coll" {
			q = &pending{at: p.off}
			if err := p.collectables(&q.kind, &q.size, &q.tofi, &q.usize, &q.rfstr, &q.rfcnt); err != nil {
				return nil, err
			}
			if err := p.references(&q.descr, &q.target); err != nil {
				return nil, err
			}
		}
		if err := p.tables(f, &inc); err != nil {
			return nil, err
		}
		m.TOCs = append(m.TOCs, inc)
		if q != nil {
			// Build it now, with the types and frames so far, and let its
			// tables go.
			s, err := q.snapshot(f, len(f.Snapshots))
			if err != nil {
				return nil, err
			}
			f.Snapshots = append(f.Snapshots, s)
		}
		if p.off == p.end {
			break
		}
		if q == nil {
			return nil, p.errorf(p.off, "tables after the final strs/type/fram group")
		}
	}
	if len(f.Snapshots) == len(m.TOCs) {
		// The last group belonged to a snapshot: there was no final one.
		m.TOCs = append(m.TOCs, moarvmir.TOC{})
	}
	if uint64(len(f.Snapshots)) != n {
		return nil, p.errorf(len(data)-8, "the trailer counts %d snapshots, the file holds %d", n, len(f.Snapshots))
	}
	m.StringCount = len(f.Strings)
	names := newNamer(f)
	for _, s := range f.Snapshots {
		names.apply(s)
	}
	f.FormatVersion = "MoarHeapDumpv002 (uncompressed; MoarVM built without zstd), " + snapshots(len(f.Snapshots))
	return f, nil
}

// pending is a version 2 snapshot's tables, as version 3's columns.
type pending struct {
	kind, size, tofi, usize, rfstr *column
	rfcnt, descr, target           *column
	at                             int
}

func (q *pending) snapshot(f *ir.File, k int) (*ir.Snapshot, error) {
	s := &ir.Snapshot{
		NodeKinds: append([]string(nil), moarvmir.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), moarvmir.EdgeKinds...),
		Root:      ir.NoNode,
	}
	s.SetSection(&moarvmir.Snapshot{})
	var refs uint64
	for i := 0; i < q.rfcnt.len(); i++ {
		refs += q.rfcnt.at(i)
	}
	if refs != uint64(q.descr.len()) {
		return nil, errorf(int64(q.at), "snapshot %d: the collectables have %d references, the refs table %d", k, refs, q.descr.len())
	}
	err := parallel(
		func() error { return nodes(f, s, q.kind, q.size, q.tofi, q.usize, q.rfstr) },
		func() error { return edges(f, s, q.kind.len(), q.rfcnt, q.rfstr, q.descr, q.target) },
	)
	if err != nil {
		return nil, err
	}
	if s.Nodes.Len() > 0 {
		s.Root = 0
	}
	return s, nil
}

// newColumn makes an empty column of n entries of width bytes, for data a
// version 2 table holds in records.
func newColumn(name string, at, width, n int) *column {
	return &column{b: block{name: name, start: int64(at)}, width: width, data: make([]byte, n*width)}
}

// collectables reads the coll table into columns shaped like version 3's.
func (p *v2) collectables(kind, size, tofi, usize, rfstr, rfcnt **column) error {
	at := p.off
	n, err := p.table("coll", 28)
	if err != nil {
		return err
	}
	*kind, *size, *tofi = newColumn("coll kind", at, 2, n), newColumn("coll size", at, 2, n), newColumn("coll tofi", at, 4, n)
	*usize, *rfstr, *rfcnt = newColumn("coll unmanaged", at, 8, n), newColumn("coll refs_start", at, 8, n), newColumn("coll refs", at, 4, n)
	for i := 0; i < n; i++ {
		rec := p.data[p.off : p.off+28]
		copy((*kind).data[2*i:], rec[0:2])
		copy((*tofi).data[4*i:], rec[2:6])
		copy((*size).data[2*i:], rec[6:8])
		copy((*usize).data[8*i:], rec[8:16])
		copy((*rfstr).data[8*i:], rec[16:24])
		copy((*rfcnt).data[4*i:], rec[24:28])
		p.off += 28
	}
	return nil
}

// references reads the refs table into version 3's tagged descriptions and
// targets.
func (p *v2) references(descr, target **column) error {
	at := p.off
	n, err := p.table("refs", 17)
	if err != nil {
		return err
	}
	*descr, *target = newColumn("refs description", at, 8, n), newColumn("refs target", at, 8, n)
	for i := 0; i < n; i++ {
		if p.end-p.off < 2 {
			return p.errorf(p.off, "reference %d cut short", i)
		}
		var w int
		switch c := p.data[p.off]; c {
		case '0':
			w = 1
		case '1':
			w = 2
		case '3':
			w = 4
		case '6':
			w = 8
		default:
			return p.errorf(p.off, "reference %d: width code %q (MoarVM writes '0', '1', '3' or '6')", i, c)
		}
		kind := p.data[p.off+1]
		if kind > moarvmir.RefUnused {
			return p.errorf(p.off+1, "reference %d: kind %d", i, kind)
		}
		if p.end-p.off-2 < 2*w {
			return p.errorf(p.off, "reference %d cut short", i)
		}
		idx, tgt := leUint(p.data[p.off+2:p.off+2+w]), leUint(p.data[p.off+2+w:p.off+2+2*w])
		if idx > moarvmir.MaxRefIndex {
			return p.errorf(p.off+2, "reference %d: index %d", i, idx)
		}
		binary.LittleEndian.PutUint64((*descr).data[8*i:], moarvmir.PackRef(idx, kind))
		binary.LittleEndian.PutUint64((*target).data[8*i:], tgt)
		p.off += 2 + 2*w
	}
	return nil
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// tables reads a strs, type and fram group: the strings, types and frames
// new since the last group.
func (p *v2) tables(f *ir.File, inc *moarvmir.TOC) error {
	if p.end-p.off < 12 || string(p.data[p.off:p.off+4]) != "strs" {
		return p.errorf(p.off, "expected the \"strs\" table")
	}
	p.off += 12 // the tag and a count that is not one (see above)
	for p.off+4 > p.end || string(p.data[p.off:p.off+4]) != "type" {
		at := p.off
		l, err := p.u64("string length")
		if err != nil {
			return err
		}
		if l > uint64(p.end-p.off) {
			return p.errorf(at, "string %d of %d bytes, but only %d are left", len(f.Strings), l, p.end-p.off)
		}
		f.Strings = append(f.Strings, string(p.data[p.off:p.off+int(l)]))
		p.off += int(l)
		inc.NewStrings++
	}
	ns := uint64(len(f.Strings))
	n, err := p.table("type", 16)
	if err != nil {
		return err
	}
	c := &f.Classes
	if c.FirstField == nil {
		c.FirstField = []uint32{0}
	}
	for i := 0; i < n; i++ {
		// Each u64 holds a 32-bit field and, above it, the next one.
		repr, name := uint64(uint32(binary.LittleEndian.Uint64(p.data[p.off:]))), uint64(uint32(binary.LittleEndian.Uint64(p.data[p.off+8:])))
		if repr >= ns || name >= ns {
			return p.errorf(p.off, "type %d: string index out of range (%d strings so far)", c.Len(), ns)
		}
		c.Name = append(c.Name, uint32(name))
		c.Library = append(c.Library, uint32(repr))
		c.FirstField = append(c.FirstField, 0)
		p.off += 16
	}
	inc.NewTypes = uint32(n)
	n, err = p.table("fram", 32)
	if err != nil {
		return err
	}
	m := moarvmir.FileOf(f)
	for i := 0; i < n; i++ {
		var v [4]uint32
		for k := range v {
			v[k] = uint32(binary.LittleEndian.Uint64(p.data[p.off+8*k:]))
		}
		if uint64(v[0]) >= ns || uint64(v[1]) >= ns || uint64(v[3]) >= ns {
			return p.errorf(p.off, "static frame %d: string index out of range (%d strings so far)", len(m.FrameName), ns)
		}
		m.FrameName = append(m.FrameName, v[0])
		m.FrameCUID = append(m.FrameCUID, v[1])
		m.FrameLine = append(m.FrameLine, v[2])
		m.FrameFile = append(m.FrameFile, v[3])
		p.off += 32
	}
	inc.NewFrames = uint32(n)
	return nil
}
