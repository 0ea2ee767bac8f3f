package moarvm

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// block is one block of a version 3 file, as a TOC lists it: start is the
// offset of its kind name, end the offset just past its last byte.
type block struct {
	name       string
	start, end int64
}

// toc is an inner table of contents: the blocks of one snapshot, or of the
// final TOC that closes the file.
type toc struct {
	start  int64
	blocks []block
}

func (t *toc) find(name string) (block, bool) {
	for _, b := range t.blocks {
		if b.name == name {
			return b, true
		}
	}
	return block{}, false
}

func (t *toc) isSnapshot() bool {
	_, meta := t.find(moarvmir.BlockSnapMeta)
	_, kind := t.find(moarvmir.ColKind)
	return meta || kind
}

// readTOC reads the TOC block at off, which must end (self pointer
// included) at or before limit.
func (r *reader) readTOC(off, limit int64) (*toc, int64, error) {
	empty := moarvmir.TOCSize(0) + moarvmir.PointerSize // a TOC of no entries
	if off < int64(moarvmir.MagicSize) || limit-off < empty {
		return nil, 0, errorf(off, "no room for a table of contents")
	}
	var hdr [moarvmir.HeaderSize]byte
	if err := r.readAt(hdr[:], off); err != nil {
		return nil, 0, err
	}
	name, n := moarvmir.ParseHeader(hdr[:])
	if name != moarvmir.BlockTOC {
		return nil, 0, errorf(off, "expected a table of contents, found a block named %q", name)
	}
	if n > uint64(limit-off-empty)/moarvmir.TOCEntrySize {
		return nil, 0, errorf(off+moarvmir.NameSize, "table of contents of %d entries, but only %d bytes are left", n, limit-off-empty)
	}
	end := off + moarvmir.TOCSize(int64(n))
	body, err := r.bytesAt(off+moarvmir.HeaderSize, end+moarvmir.PointerSize)
	if err != nil {
		return nil, 0, err
	}
	if self := binary.LittleEndian.Uint64(body[len(body)-moarvmir.PointerSize:]); self != uint64(off) {
		return nil, 0, errorf(end, "table of contents at %d ends with a pointer to %d, not to itself", off, self)
	}
	t := &toc{start: off, blocks: make([]block, n)}
	for i := range t.blocks {
		name, start, stop := moarvmir.ParseTOCEntry(body[moarvmir.TOCEntrySize*i:])
		b := block{name: name, start: int64(start), end: int64(stop)}
		if b.start < int64(moarvmir.MagicSize) || b.end <= b.start || b.end > r.size || start > math.MaxInt64 {
			return nil, 0, errorf(off+moarvmir.TOCSize(int64(i)), "table of contents entry %d (%q): range [%d, %d) outside the file", i, b.name, b.start, b.end)
		}
		t.blocks[i] = b
	}
	return t, end + moarvmir.PointerSize, nil
}

// readV3 reads a version 3 file through its tables of contents, or, when
// they cannot be followed, by walking its blocks.
func (r *reader) readV3() (*ir.File, error) {
	defer r.closeDecoders()
	meta, tocs, err := r.tocs()
	if err != nil {
		return r.recoverV3(err)
	}
	f, _, err := r.build(meta, tocs, false)
	if err != nil {
		// Damage inside a snapshot: keep the snapshots before it, if the
		// blocks can be walked to them.
		return r.recoverV3(err)
	}
	return f, nil
}

// tocs follows the file's last 8 bytes to the outer TOC and reads it and
// the inner TOCs it lists.
func (r *reader) tocs() (block, []*toc, error) {
	empty := moarvmir.TOCSize(0) + moarvmir.PointerSize // a TOC of no entries
	if r.size < int64(moarvmir.MagicSize)+empty+moarvmir.PointerSize {
		return block{}, nil, errorf(r.size, "file of %d bytes ends before its table of contents", r.size)
	}
	var tail [moarvmir.PointerSize]byte
	if err := r.readAt(tail[:], r.size-moarvmir.PointerSize); err != nil {
		return block{}, nil, err
	}
	at := binary.LittleEndian.Uint64(tail[:])
	if at < uint64(moarvmir.MagicSize) || at > uint64(r.size-moarvmir.PointerSize-empty) {
		return block{}, nil, errorf(r.size-moarvmir.PointerSize, "the last 8 bytes point to offset %d, where no table of contents fits", at)
	}
	outer, end, err := r.readTOC(int64(at), r.size)
	if err != nil {
		return block{}, nil, err
	}
	if end != r.size {
		return block{}, nil, errorf(end, "the outer table of contents ends %d bytes before the end of the file", r.size-end)
	}
	if len(outer.blocks) == 0 || outer.blocks[0].name != moarvmir.BlockFileMeta {
		return block{}, nil, errorf(int64(at), "the outer table of contents does not start with filemeta")
	}
	meta := outer.blocks[0]
	if meta.start != int64(moarvmir.MagicSize) {
		return block{}, nil, errorf(int64(at)+moarvmir.HeaderSize, "filemeta at offset %d, not right after the magic", meta.start)
	}
	// The inner TOCs and their blocks follow each other through the file,
	// as MoarVM writes them: each TOC's blocks lie between the previous TOC
	// and itself. (A TOC listed twice would be a snapshot read twice.)
	var tocs []*toc
	prev := meta.end
	for i, b := range outer.blocks[1:] {
		entry := int64(at) + moarvmir.TOCSize(int64(i+1))
		if b.name != moarvmir.BlockTOC {
			return block{}, nil, errorf(entry, "outer table of contents entry %d is %q, not an inner toc", i+1, b.name)
		}
		if b.start < prev {
			return block{}, nil, errorf(entry, "inner table of contents %d at offset %d, before the end of what precedes it (%d)", i, b.start, prev)
		}
		t, tend, err := r.readTOC(b.start, b.end+moarvmir.PointerSize)
		if err != nil {
			return block{}, nil, err
		}
		if tend != b.end+moarvmir.PointerSize {
			return block{}, nil, errorf(b.start, "inner table of contents %d ends at %d, but the outer one says %d", i, tend-moarvmir.PointerSize, b.end)
		}
		for k, bl := range t.blocks {
			if bl.start < prev || bl.end > t.start {
				return block{}, nil, errorf(b.start+moarvmir.TOCSize(int64(k)), "inner table of contents %d: block %q at [%d, %d), outside [%d, %d) where its snapshot lies", i, bl.name, bl.start, bl.end, prev, t.start)
			}
		}
		tocs = append(tocs, t)
		prev = tend
	}
	return meta, tocs, nil
}

// column is a decoded column block: n little-endian integers of width bytes.
type column struct {
	b     block
	width int
	data  []byte
}

func (c *column) len() int { return len(c.data) / c.width }

// at returns entry i.
func (c *column) at(i int) uint64 {
	switch c.width {
	case 1:
		return uint64(c.data[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(c.data[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(c.data[4*i:]))
	}
	return binary.LittleEndian.Uint64(c.data[8*i:])
}

// errorf reports a problem with entry i of the column, at the block's offset
// (entries are inside compressed data, which has no file offsets).
func (c *column) errorf(i int, format string, args ...any) error {
	return errorf(c.b.start, "%s entry %d: %s", c.b.name, i, fmt.Sprintf(format, args...))
}

// readColumn decodes a column block. count is the number of entries it
// must have, or -1 when it fixes the count itself.
func (r *reader) readColumn(b block, count int64) (*column, error) {
	if b.end-b.start < moarvmir.ColumnHeaderSize+6 {
		return nil, errorf(b.start, "%s block of %d bytes is too short", b.name, b.end-b.start)
	}
	var hdr [moarvmir.ColumnHeaderSize]byte
	if err := r.readAt(hdr[:], b.start); err != nil {
		return nil, err
	}
	name, width := moarvmir.ParseColumnHeader(hdr[:])
	if name != b.name {
		return nil, errorf(b.start, "the table of contents says %q, the block says %q", b.name, name)
	}
	// Every MoarVM writes each column at its C field's size; other sizes
	// would make entries cheap to declare and the IR dear to build.
	if want := moarvmir.EntrySize(b.name); width != want {
		return nil, errorf(b.start+moarvmir.NameSize, "%s: entry size %d (MoarVM writes %d)", b.name, width, want)
	}
	src, err := r.bytesAt(b.start+moarvmir.ColumnHeaderSize, b.end)
	if err != nil {
		return nil, err
	}
	want := int64(-1)
	if count >= 0 {
		if count > math.MaxInt64/8 {
			return nil, errorf(b.start, "%s: %d entries", b.name, count)
		}
		want = count * int64(width)
	}
	// A column whose count nothing fixes may still take at most 4 bytes
	// per byte of the file (real ones take well under one).
	data, err := r.decompress(src, want, 4*r.size+1<<20)
	if err != nil {
		return nil, errorf(b.start+moarvmir.ColumnHeaderSize, "%s: %v", b.name, err)
	}
	if len(data)%width != 0 {
		return nil, errorf(b.start+moarvmir.ColumnHeaderSize, "%s: %d bytes of data, not a multiple of the entry size %d", b.name, len(data), width)
	}
	return &column{b: b, width: width, data: data}, nil
}

// readStrings decodes a strings block: {u32 length, bytes} repeated.
func (r *reader) readStrings(b block) ([]string, error) {
	if b.end-b.start < moarvmir.HeaderSize+6 {
		return nil, errorf(b.start, "strings block of %d bytes is too short", b.end-b.start)
	}
	var hdr [moarvmir.NameSize]byte
	if err := r.readAt(hdr[:], b.start); err != nil {
		return nil, err
	}
	if name := moarvmir.ParseName(hdr[:]); name != moarvmir.BlockStrings {
		return nil, errorf(b.start, "the table of contents says strings, the block says %q", name)
	}
	src, err := r.bytesAt(b.start+moarvmir.HeaderSize, b.end)
	if err != nil {
		return nil, err
	}
	data, err := r.decompress(src, -1, 16*int64(len(src))+1<<20)
	if err != nil {
		return nil, errorf(b.start+moarvmir.HeaderSize, "strings: %v", err)
	}
	if err := r.charge(int64(len(data)), b.start+moarvmir.HeaderSize, "strings"); err != nil {
		return nil, err
	}
	var out []string
	for p := 0; p < len(data); {
		if len(data)-p < 4 {
			return nil, errorf(b.start, "strings: string %d: length cut short", len(out))
		}
		n := int(binary.LittleEndian.Uint32(data[p:]))
		p += 4
		if n > len(data)-p {
			return nil, errorf(b.start, "strings: string %d of %d bytes, but %d are left", len(out), n, len(data)-p)
		}
		out = append(out, string(data[p:p+n]))
		p += n
	}
	return out, nil
}

// readMeta reads a filemeta or snapmeta block: u64 length, JSON, NUL.
func (r *reader) readMeta(b block) ([]byte, error) {
	if b.end-b.start < moarvmir.HeaderSize+1 {
		return nil, errorf(b.start, "%s block of %d bytes is too short", b.name, b.end-b.start)
	}
	var hdr [moarvmir.HeaderSize]byte
	if err := r.readAt(hdr[:], b.start); err != nil {
		return nil, err
	}
	name, n := moarvmir.ParseHeader(hdr[:])
	if name != b.name {
		return nil, errorf(b.start, "the table of contents says %q, the block says %q", b.name, name)
	}
	if n != uint64(b.end-b.start-moarvmir.HeaderSize) {
		return nil, errorf(b.start+moarvmir.NameSize, "%s of %d bytes in a block of %d", b.name, n, b.end-b.start-moarvmir.HeaderSize)
	}
	if n > 1<<20 {
		return nil, errorf(b.start+moarvmir.NameSize, "%s of %d bytes (MoarVM writes under 1 KiB)", b.name, n)
	}
	data, err := r.bytesAt(b.start+moarvmir.HeaderSize, b.end)
	if err != nil {
		return nil, err
	}
	if data[len(data)-1] != 0 {
		return nil, errorf(b.end-1, "%s does not end with a NUL byte", b.name)
	}
	return data[:len(data)-1], nil
}

// parallel runs jobs on up to GOMAXPROCS goroutines and returns the first
// error in job order.
func parallel(jobs ...func() error) error {
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = job()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// build turns the metadata block and the inner TOCs into the IR. On error
// it also returns the index of the TOC at fault (len(tocs) when the fault
// is not in one), so that recovery can keep the snapshots before it;
// recovering says the TOCs came from walking a damaged file.
func (r *reader) build(meta block, tocs []*toc, recovering bool) (*ir.File, int, error) {
	f := &ir.File{Format: moarvmir.Format}
	m := &moarvmir.File{Version: 3, HasMeta: true}
	f.SetSection(m)
	var notes []string
	js, err := r.readMeta(meta)
	if err != nil {
		return nil, len(tocs), err
	}
	note, err := parseFileMeta(js, m)
	if err != nil {
		return nil, len(tocs), errorf(meta.start+moarvmir.HeaderSize, "filemeta: %v", err)
	}
	if note != "" {
		notes = append(notes, note)
	}
	// The global tables, TOC by TOC.
	for i, t := range tocs {
		if i < len(tocs)-1 && !t.isSnapshot() {
			return nil, i, errorf(t.start, "inner table of contents %d holds no snapshot, but more follow", i)
		}
		seen := map[string]bool{}
		for k, b := range t.blocks {
			if seen[b.name] {
				return nil, i, errorf(t.start, "inner table of contents %d lists %q twice", i, b.name)
			}
			if moarvmir.EntrySize(b.name) == 0 && b.name != moarvmir.BlockStrings && b.name != moarvmir.BlockSnapMeta {
				return nil, i, errorf(t.start+moarvmir.TOCSize(int64(k)), "inner table of contents %d lists a block named %q, which MoarVM does not write", i, b.name)
			}
			seen[b.name] = true
		}
		if t.isSnapshot() && !seen[moarvmir.BlockSnapMeta] {
			return nil, i, errorf(t.start, "inner table of contents %d: a snapshot without snapmeta", i)
		}
		var inc moarvmir.TOC
		for _, b := range t.blocks {
			inc.Blocks = append(inc.Blocks, b.name)
		}
		if b, ok := t.find(moarvmir.BlockStrings); ok {
			ss, err := r.readStrings(b)
			if err != nil {
				return nil, i, err
			}
			f.Strings = append(f.Strings, ss...)
			inc.NewStrings = uint32(len(ss))
		}
		if n, err := r.readTypes(f, t); err != nil {
			return nil, i, err
		} else {
			inc.NewTypes = uint32(n)
		}
		if n, err := r.readFrames(m, t, uint64(len(f.Strings))); err != nil {
			return nil, i, err
		} else {
			inc.NewFrames = uint32(n)
		}
		m.TOCs = append(m.TOCs, inc)
	}
	if len(tocs) == 0 || tocs[len(tocs)-1].isSnapshot() {
		// No final TOC (only hand-made files lack it): MoarVM's is empty.
		m.TOCs = append(m.TOCs, moarvmir.TOC{})
		if !recovering {
			notes = append(notes, "no final table of contents")
		}
	}
	m.StringCount = len(f.Strings)
	// The tables are complete, so snapshots read independently: two at a
	// time, so that one's decompression overlaps the other's assembly.
	type result struct {
		s    *ir.Snapshot
		note string
		err  error
	}
	results := make([]result, len(tocs))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	// Snapshots spend the decompression budget in file order: turn[k] is
	// closed when snapshot k may.
	turn := make([]chan struct{}, len(tocs)+1)
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	close(turn[0])
	k := 0
	for i, t := range tocs {
		if !t.isSnapshot() {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		mine, next := turn[k], turn[k+1]
		k++
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s, note, err := r.snapshot(f, t, mine, next)
			results[i] = result{s, note, err}
		}()
	}
	wg.Wait()
	for i, t := range tocs {
		if !t.isSnapshot() {
			continue
		}
		if err := results[i].err; err != nil {
			return nil, i, err
		}
		if note := results[i].note; note != "" && len(notes) < 8 {
			notes = append(notes, fmt.Sprintf("snapshot %d: %s", len(f.Snapshots), note))
		}
		f.Snapshots = append(f.Snapshots, results[i].s)
	}
	names := newNamer(f)
	for _, s := range f.Snapshots {
		names.apply(s)
	}
	f.FormatVersion = fmt.Sprintf("MoarHeapDumpv003, subversion %d, %s", m.Subversion, snapshots(len(f.Snapshots)))
	if len(notes) > 0 {
		f.FormatVersion += " (" + strings.Join(notes, "; ") + ")"
	}
	return f, len(tocs), nil
}

// readTypes reads a TOC's reprname and typename blocks into the class
// table and returns how many types they add.
func (r *reader) readTypes(f *ir.File, t *toc) (int, error) {
	rb, okR := t.find(moarvmir.ReprName)
	tb, okT := t.find(moarvmir.TypeName)
	if !okR && !okT {
		return 0, nil
	}
	if okR != okT {
		return 0, errorf(t.start, "inner table of contents has only one of reprname and typename")
	}
	var repr, name *column
	err := parallel(
		func() (err error) { repr, err = r.readColumn(rb, -1); return },
		func() (err error) { name, err = r.readColumn(tb, -1); return },
	)
	if err != nil {
		return 0, err
	}
	if repr.len() != name.len() {
		return 0, errorf(tb.start, "typename has %d entries, reprname %d", name.len(), repr.len())
	}
	if err := r.charge(int64(len(repr.data)+len(name.data)), rb.start, "reprname and typename"); err != nil {
		return 0, err
	}
	c := &f.Classes
	if c.FirstField == nil {
		c.FirstField = []uint32{0}
	}
	// Strings come before types in a TOC, and indices only grow, so the
	// strings read so far are all a type may name.
	ns := uint64(len(f.Strings))
	for i := 0; i < name.len(); i++ {
		nm, rp := name.at(i), repr.at(i)
		if nm >= ns {
			return 0, name.errorf(i, "string %d out of range (%d strings so far)", nm, ns)
		}
		if rp >= ns {
			return 0, repr.errorf(i, "string %d out of range (%d strings so far)", rp, ns)
		}
		c.Name = append(c.Name, uint32(nm))
		c.Library = append(c.Library, uint32(rp))
		c.FirstField = append(c.FirstField, 0)
	}
	return name.len(), nil
}

// readFrames reads a TOC's static-frame blocks and returns how many frames
// they add.
func (r *reader) readFrames(m *moarvmir.File, t *toc, ns uint64) (int, error) {
	var bs []block
	for _, name := range moarvmir.FrameColumns {
		if b, ok := t.find(name); ok {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return 0, nil
	}
	if len(bs) != len(moarvmir.FrameColumns) {
		return 0, errorf(t.start, "inner table of contents has %d of the 4 static-frame blocks", len(bs))
	}
	cols := make([]*column, 4)
	err := parallel(
		func() (err error) { cols[0], err = r.readColumn(bs[0], -1); return },
		func() (err error) { cols[1], err = r.readColumn(bs[1], -1); return },
		func() (err error) { cols[2], err = r.readColumn(bs[2], -1); return },
		func() (err error) { cols[3], err = r.readColumn(bs[3], -1); return },
	)
	if err != nil {
		return 0, err
	}
	n := cols[0].len()
	for _, c := range cols[1:] {
		if c.len() != n {
			return 0, errorf(c.b.start, "%s has %d entries, sfname %d", c.b.name, c.len(), n)
		}
	}
	if err := r.charge(int64(16*n), bs[0].start, "static frames"); err != nil {
		return 0, err
	}
	dst := []*[]uint32{&m.FrameName, &m.FrameCUID, &m.FrameLine, &m.FrameFile}
	for k, c := range cols {
		for i := 0; i < n; i++ {
			v := c.at(i)
			if k != 2 && v >= ns { // sfline is a number, the rest strings
				return 0, c.errorf(i, "string %d out of range (%d strings so far)", v, ns)
			}
			if v > math.MaxUint32 {
				return 0, c.errorf(i, "line %d does not fit in 32 bits", v)
			}
			*dst[k] = append(*dst[k], uint32(v))
		}
	}
	return n, nil
}
