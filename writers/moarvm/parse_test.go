package moarvm_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/klauspost/compress/zstd"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// This file is a minimal, test-only parser of version 3 files: it walks the
// TOCs from the file's tail, checks every structural rule the writer must
// keep (self pointers, outer TOC copies, the final inner TOC, header shapes,
// entry sizes, one zstd frame per block, no gap or overlap between blocks)
// and decompresses every block.

type tocEnt struct {
	name       string
	start, end int64
}

// block is one block of an inner TOC, decoded.
type block struct {
	name       string
	start, end int64
	entrySize  int    // column blocks only
	data       []byte // decompressed payload, or the JSON without its NUL
}

type parsed struct {
	fileMeta string
	outer    []tocEnt
	// inner holds every inner TOC's blocks, in file order (the final one
	// last).
	inner [][]block
	// copies is how many outer TOC copies were found (one per snapshot).
	copies int
}

var testDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))

func u64(b []byte, off int64) uint64 { return binary.LittleEndian.Uint64(b[off:]) }

// name8 reads an 8-byte NUL-padded kind name, requiring clean padding.
func name8(b []byte, off int64) (string, error) {
	raw := b[off : off+8]
	i := bytes.IndexByte(raw, 0)
	if i < 0 {
		return string(raw), nil
	}
	for _, c := range raw[i:] {
		if c != 0 {
			return "", fmt.Errorf("offset %d: kind name %q is not NUL-padded", off, raw)
		}
	}
	return string(raw[:i]), nil
}

// readTOC reads a TOC at off and checks its self pointer.
func readTOC(b []byte, off int64) ([]tocEnt, int64, error) {
	if off < 16 || off+24 > int64(len(b)) {
		return nil, 0, fmt.Errorf("TOC offset %d out of the file", off)
	}
	if name, err := name8(b, off); err != nil || name != "toc" {
		return nil, 0, fmt.Errorf("offset %d: expected a toc, got %q (%v)", off, b[off:off+8], err)
	}
	n := u64(b, off+8)
	end := off + 16 + 24*int64(n)
	if n > uint64(len(b)) || end+8 > int64(len(b)) {
		return nil, 0, fmt.Errorf("offset %d: TOC of %d entries overruns the file", off, n)
	}
	var es []tocEnt
	for i := int64(0); i < int64(n); i++ {
		p := off + 16 + 24*i
		name, err := name8(b, p)
		if err != nil {
			return nil, 0, err
		}
		es = append(es, tocEnt{name, int64(u64(b, p+8)), int64(u64(b, p+16))})
	}
	if self := int64(u64(b, end)); self != off {
		return nil, 0, fmt.Errorf("TOC at %d: self pointer %d", off, self)
	}
	return es, end, nil
}

// frameEnd walks one zstd frame at off and returns where it ends.
func frameEnd(b []byte, off int64) (int64, error) {
	p := off
	if p+6 > int64(len(b)) || binary.LittleEndian.Uint32(b[p:]) != 0xFD2FB528 {
		return 0, fmt.Errorf("offset %d: no zstd frame", off)
	}
	p += 4
	fhd := b[p]
	p++
	single := fhd&0x20 != 0
	if !single {
		p++ // window descriptor
	}
	p += [4]int64{0, 1, 2, 4}[fhd&3]
	fcs := [4]int64{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcs = 1
	}
	p += fcs
	for {
		if p+3 > int64(len(b)) {
			return 0, fmt.Errorf("offset %d: zstd frame cut off", off)
		}
		h := uint32(b[p]) | uint32(b[p+1])<<8 | uint32(b[p+2])<<16
		p += 3
		size := int64(h >> 3)
		switch (h >> 1) & 3 {
		case 1:
			size = 1 // RLE
		case 3:
			return 0, fmt.Errorf("offset %d: reserved zstd block type", p-3)
		}
		p += size
		if h&1 != 0 {
			break
		}
	}
	if fhd&4 != 0 {
		p += 4
	}
	if p > int64(len(b)) {
		return 0, fmt.Errorf("offset %d: zstd frame overruns the file", off)
	}
	return p, nil
}

// parseFile parses and checks a whole version 3 file.
func parseFile(b []byte) (*parsed, error) {
	if len(b) < 16+8 || string(b[:16]) != moarvmir.Magic3 {
		return nil, fmt.Errorf("no %s magic", moarvmir.Magic3)
	}
	type region struct {
		start, end int64
		what       string
	}
	regions := []region{{0, 16, "magic"}}
	tail := int64(u64(b, int64(len(b))-8))
	outer, end, err := readTOC(b, tail)
	if err != nil {
		return nil, fmt.Errorf("outer TOC: %w", err)
	}
	if end+8 != int64(len(b)) {
		return nil, fmt.Errorf("the outer TOC ends at %d, the file at %d", end+8, len(b))
	}
	regions = append(regions, region{tail, end + 8, "outer toc"})
	p := &parsed{outer: outer}
	if len(outer) < 2 || outer[0].name != "filemeta" || outer[0].start != 16 {
		return nil, fmt.Errorf("outer TOC %v does not start with filemeta at 16", outer)
	}
	js, err := jsonBlock(b, outer[0], "filemeta")
	if err != nil {
		return nil, err
	}
	p.fileMeta = js
	regions = append(regions, region{outer[0].start, outer[0].end, "filemeta"})
	for k, te := range outer[1:] {
		if te.name != "toc" {
			return nil, fmt.Errorf("outer TOC entry %d is %q, not toc", k+1, te.name)
		}
		es, tend, err := readTOC(b, te.start)
		if err != nil {
			return nil, fmt.Errorf("inner TOC %d: %w", k, err)
		}
		if tend != te.end {
			return nil, fmt.Errorf("inner TOC %d: the outer TOC says it ends at %d (without its self pointer), it ends at %d", k, te.end, tend)
		}
		regions = append(regions, region{te.start, tend + 8, fmt.Sprintf("inner toc %d", k)})
		var blocks []block
		for _, e := range es {
			bl, err := readBlock(b, e)
			if err != nil {
				return nil, fmt.Errorf("inner TOC %d: %w", k, err)
			}
			blocks = append(blocks, bl)
			regions = append(regions, region{e.start, e.end, e.name})
		}
		p.inner = append(p.inner, blocks)
		last := k == len(outer)-2
		if last {
			if slices.ContainsFunc(blocks, func(b block) bool { return b.name == "snapmeta" || b.name == "colkind" }) {
				return nil, fmt.Errorf("the final inner TOC holds a snapshot")
			}
			continue
		}
		// A copy of the outer TOC so far follows every snapshot's TOC.
		copyAt := tend + 8
		ces, cend, err := readTOC(b, copyAt)
		if err != nil {
			return nil, fmt.Errorf("outer TOC copy after inner TOC %d: %w", k, err)
		}
		if !slices.Equal(ces, outer[:k+2]) {
			return nil, fmt.Errorf("outer TOC copy after inner TOC %d is %v, want %v", k, ces, outer[:k+2])
		}
		regions = append(regions, region{copyAt, cend + 8, "outer toc copy"})
		p.copies++
	}
	sort.Slice(regions, func(i, j int) bool { return regions[i].start < regions[j].start })
	at := int64(0)
	for _, r := range regions {
		if r.start != at {
			return nil, fmt.Errorf("%s starts at %d, but the bytes before end at %d", r.what, r.start, at)
		}
		at = r.end
	}
	if at != int64(len(b)) {
		return nil, fmt.Errorf("blocks end at %d, the file at %d", at, len(b))
	}
	return p, nil
}

func jsonBlock(b []byte, e tocEnt, want string) (string, error) {
	name, err := name8(b, e.start)
	if err != nil || name != want {
		return "", fmt.Errorf("offset %d: expected %s, got %q", e.start, want, name)
	}
	n := int64(u64(b, e.start+8))
	if n < 1 || e.start+16+n != e.end {
		return "", fmt.Errorf("%s at %d: length %d does not end at the TOC's %d", want, e.start, n, e.end)
	}
	if b[e.end-1] != 0 {
		return "", fmt.Errorf("%s at %d: no terminating NUL", want, e.start)
	}
	return string(b[e.start+16 : e.end-1]), nil
}

// readBlock reads and decompresses one inner TOC block.
func readBlock(b []byte, e tocEnt) (block, error) {
	bl := block{name: e.name, start: e.start, end: e.end}
	if e.start < 16 || e.end > int64(len(b)) || e.end < e.start+16 {
		return bl, fmt.Errorf("block %s [%d, %d) out of the file", e.name, e.start, e.end)
	}
	name, err := name8(b, e.start)
	if err != nil {
		return bl, err
	}
	if name != e.name {
		return bl, fmt.Errorf("offset %d: the TOC says %s, the block header %s", e.start, e.name, name)
	}
	if e.name == "snapmeta" {
		js, err := jsonBlock(b, e, "snapmeta")
		bl.data = []byte(js)
		return bl, err
	}
	p := e.start + 8
	if e.name != "strings" {
		bl.entrySize = int(binary.LittleEndian.Uint16(b[p:]))
		p += 2
		if want := moarvmir.EntrySize(e.name); bl.entrySize != want {
			return bl, fmt.Errorf("%s at %d: entry size %d, want %d", e.name, e.start, bl.entrySize, want)
		}
	}
	if u64(b, p) != 0 {
		return bl, fmt.Errorf("%s at %d: size field %d, MoarVM writes 0", e.name, e.start, u64(b, p))
	}
	p += 8
	fend, err := frameEnd(b, p)
	if err != nil {
		return bl, fmt.Errorf("%s: %w", e.name, err)
	}
	if fend != e.end {
		return bl, fmt.Errorf("%s at %d: its zstd frame ends at %d, the TOC says %d (one frame per block)", e.name, e.start, fend, e.end)
	}
	bl.data, err = testDecoder.DecodeAll(b[p:e.end], nil)
	if err != nil {
		return bl, fmt.Errorf("%s at %d: %w", e.name, e.start, err)
	}
	if bl.entrySize > 0 && len(bl.data)%bl.entrySize != 0 {
		return bl, fmt.Errorf("%s: %d bytes is not a multiple of %d", e.name, len(bl.data), bl.entrySize)
	}
	return bl, nil
}

// names lists the blocks' names.
func names(bs []block) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.name)
	}
	return out
}

// find returns the named block of a TOC, or nil.
func find(bs []block, name string) *block {
	for i := range bs {
		if bs[i].name == name {
			return &bs[i]
		}
	}
	return nil
}

// ints decodes a column's entries.
func (b *block) ints() []uint64 {
	if b == nil {
		return nil
	}
	es := b.entrySize
	out := make([]uint64, len(b.data)/es)
	for i := range out {
		switch es {
		case 2:
			out[i] = uint64(binary.LittleEndian.Uint16(b.data[2*i:]))
		case 4:
			out[i] = uint64(binary.LittleEndian.Uint32(b.data[4*i:]))
		default:
			out[i] = binary.LittleEndian.Uint64(b.data[8*i:])
		}
	}
	return out
}

// heapStrings decodes a strings block.
func heapStrings(b *block) ([]string, error) {
	if b == nil {
		return nil, nil
	}
	var out []string
	d := b.data
	for len(d) > 0 {
		if len(d) < 4 {
			return nil, fmt.Errorf("string heap: %d stray bytes", len(d))
		}
		n := binary.LittleEndian.Uint32(d)
		if uint64(n) > uint64(len(d)-4) {
			return nil, fmt.Errorf("string heap: string of %d bytes overruns", n)
		}
		out = append(out, string(d[4:4+n]))
		d = d[4+n:]
	}
	return out, nil
}

// decoded is what a parsed file holds, per snapshot and in total.
type decoded struct {
	strings                []string
	reprs, tnames          []uint64
	sfname, sfcuid, sfline []uint64
	sffile                 []uint64
	snaps                  []decodedSnap
}

type decodedSnap struct {
	meta                                  string
	kind, size, tofi, rfcnt, rfstr, usize []uint64
	descr, target, topIDs, topScore       []uint64
}

// decode gathers the tables and the snapshots' columns.
func (p *parsed) decode() (*decoded, error) {
	d := &decoded{}
	for _, bs := range p.inner {
		strs, err := heapStrings(find(bs, "strings"))
		if err != nil {
			return nil, err
		}
		d.strings = append(d.strings, strs...)
		d.reprs = append(d.reprs, find(bs, "reprname").ints()...)
		d.tnames = append(d.tnames, find(bs, "typename").ints()...)
		d.sfname = append(d.sfname, find(bs, "sfname").ints()...)
		d.sfcuid = append(d.sfcuid, find(bs, "sfcuid").ints()...)
		d.sfline = append(d.sfline, find(bs, "sfline").ints()...)
		d.sffile = append(d.sffile, find(bs, "sffile").ints()...)
		if find(bs, "snapmeta") == nil {
			continue
		}
		s := decodedSnap{meta: string(find(bs, "snapmeta").data)}
		for name, col := range map[string]*[]uint64{"colkind": &s.kind, "colsize": &s.size, "coltofi": &s.tofi,
			"colrfcnt": &s.rfcnt, "colrfstr": &s.rfstr, "colusize": &s.usize, "refdescr": &s.descr,
			"reftrget": &s.target, "topIDs": &s.topIDs, "topscore": &s.topScore} {
			b := find(bs, name)
			if b == nil {
				return nil, fmt.Errorf("snapshot %d has no %s", len(d.snaps), name)
			}
			*col = b.ints()
		}
		n := len(s.kind)
		for _, c := range [][]uint64{s.size, s.tofi, s.rfcnt, s.rfstr, s.usize} {
			if len(c) != n {
				return nil, fmt.Errorf("snapshot %d: collectable columns of different lengths", len(d.snaps))
			}
		}
		if len(s.descr) != len(s.target) {
			return nil, fmt.Errorf("snapshot %d: %d descriptions for %d targets", len(d.snaps), len(s.descr), len(s.target))
		}
		d.snaps = append(d.snaps, s)
	}
	return d, nil
}
