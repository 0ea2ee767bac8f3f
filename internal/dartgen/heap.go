package dartgen

import (
	"fmt"
	"io"
	"math"

	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Generation selects which producer's layout is written.
type Generation int

const (
	// GenVM is the current VM writer (2023/24 object_graph.cc): synthetic
	// classes 1..3, Smis as trailing objects, identity-hash section.
	GenVM Generation = iota
	// GenVMNoHash is the same layout with the file ending right after the
	// external properties, as written by VMs that predate the identity-hash
	// section (readers must treat the missing section as "older VM").
	GenVMNoHash
	// GenDevToolsExport is DevTools' "export" of a snapshot: vm_service's
	// HeapSnapshotGraph.toChunks re-serialization of a snapshot read with
	// decodeObjectData and decodeExternalProperties off: every object has
	// NoData, there are no external properties, class and field flags are
	// 0, identity hashes are always written, and the file is zero-padded to
	// a multiple of DevToolsChunkSize bytes.
	GenDevToolsExport
)

// DevToolsChunkSize is vm_service's WriteStream chunk size; DevTools
// exports are padded with zeros to a multiple of it.
const DevToolsChunkSize = 1048055

// String returns the name ParseGeneration accepts.
func (g Generation) String() string {
	switch g {
	case GenVM:
		return "vm"
	case GenVMNoHash:
		return "nohash"
	case GenDevToolsExport:
		return "export"
	}
	return fmt.Sprintf("Generation(%d)", int(g))
}

// ParseGeneration parses "vm", "nohash" or "export".
func ParseGeneration(s string) (Generation, error) {
	for _, g := range []Generation{GenVM, GenVMNoHash, GenDevToolsExport} {
		if g.String() == s {
			return g, nil
		}
	}
	return 0, fmt.Errorf("dartgen: unknown generation %q (want vm, nohash or export)", s)
}

// DataTag is a NonReferenceData tag (docs/formats/dart.md, File layout).
type DataTag uint8

// The NonReferenceData tags. NameData is 8 (the seed document's 7 is a typo).
const (
	NoData           DataTag = 0
	NullData         DataTag = 1
	BoolData         DataTag = 2
	IntData          DataTag = 3
	DoubleData       DataTag = 4
	Latin1StringData DataTag = 5
	Utf16StringData  DataTag = 6
	LengthData       DataTag = 7
	NameData         DataTag = 8
)

// Class is one class as written to the file.
type Class struct {
	ID          int // 1-origin class id in the file
	VMCid       int // VM class id (ID - 3); 0 for the synthetic classes 1..3
	Name        string
	LibraryName string
	LibraryURI  string
	Flags       int
	Fields      []Field
}

// Field is one field of a class as written.
type Field struct {
	Flags int
	Index int // 0-origin index into an instance's references
	Name  string
	// Unboxed reports that the slot holds an unboxed value, so every
	// instance has reference 0 there. It is not written to the file.
	Unboxed bool
}

// Data is an object's NonReferenceData as written.
type Data struct {
	Tag DataTag
	// Int is the value of BoolData (0/1), IntData and LengthData.
	Int   int64
	Float float64 // DoubleData
	// Length is the full length in code units of a string; Latin1 or UTF16
	// hold the (at most 128) code units written.
	Length int
	Latin1 []byte
	UTF16  []uint16
	Name   string // NameData
}

// Object is one object as written.
type Object struct {
	ID           int
	ClassID      int
	ShallowSize  uint64
	Data         Data
	References   []uint32 // object ids; 0 = unboxed slot (shared with the Heap: do not modify)
	IdentityHash uint64   // 0 when the generation writes no hash section
}

// ExternalProperty is one external property as written.
type ExternalProperty struct {
	Object int
	Size   uint64
	Name   string
}

// Heap is a generated snapshot in file order, ready to be written.
type Heap struct {
	opts    Options
	cat     *catalog
	statics []string // Isolate class fields (static field table)

	n      int // objects
	cls    []uint32
	size   []uint32
	tag    []DataTag
	val    []int64
	hash   []uint32
	refOff []uint32 // CSR: refs of id i are refs[refOff[i]:refOff[i+1]]
	refs   []uint32

	lat   []byte
	u16   []uint16
	strs  []strRec
	names []string
	ext   []extRec

	hdrShallow, hdrCapacity, hdrExternal uint64

	firstVM, firstHeap, firstImage, firstSmi int
	roRefs                                   int

	fileSize, padding int64 // known once written
}

// finalize orders the builder's objects by segment, resolves Smi slots to
// trailing _Smi objects in order of first reference, and computes the
// header values.
func finalize(b *builder, opts Options, statics []string, extraShallow, extraCapacity uint64) *Heap {
	nonSmi := b.count()
	var start [numSegments + 1]int
	start[0] = 1
	for s := segment(0); s < numSegments; s++ {
		start[s+1] = start[s] + b.segCount[s]
	}
	idOf := make([]uint32, nonSmi+1)
	order := make([]uint32, nonSmi+1)
	next := start
	for i := 1; i <= nonSmi; i++ {
		s := b.seg[i]
		idOf[i] = uint32(next[s])
		order[next[s]] = uint32(i)
		next[s]++
	}
	firstSmi := nonSmi + 1

	h := &Heap{opts: opts, cat: b.cat, statics: statics, lat: b.lat, u16: b.u16, strs: b.strs, names: b.names}
	h.firstVM, h.firstHeap, h.firstImage, h.firstSmi = start[segVM], start[segNew], start[segImage], firstSmi
	total := nonSmi
	h.cls = make([]uint32, total+1, total+len(b.smiVals)+1)
	h.size = make([]uint32, total+1, cap(h.cls))
	h.tag = make([]DataTag, total+1, cap(h.cls))
	h.val = make([]int64, total+1, cap(h.cls))
	h.hash = make([]uint32, total+1, cap(h.cls))
	h.refOff = make([]uint32, total+2, cap(h.cls)+1)
	h.refs = make([]uint32, 0, len(b.refs))
	smiID := make([]uint32, len(b.smiVals))
	var smiOrder []int64
	for f := 1; f <= nonSmi; f++ {
		i := order[f]
		h.cls[f], h.size[f], h.tag[f], h.val[f], h.hash[f] = b.cls[i], b.size[i], b.tag[i], b.val[i], b.hash[i]
		h.refOff[f] = uint32(len(h.refs))
		if b.refOff[i] == refsUnset {
			panic(fmt.Sprintf("dartgen: references of %s object never set", b.cat.info(int(b.cls[i])).name))
		}
		for _, r := range b.refs[b.refOff[i] : b.refOff[i]+b.refLen[i]] {
			switch {
			case r == 0:
			case r&smiRef != 0:
				k := r &^ smiRef
				if smiID[k] == 0 {
					smiID[k] = uint32(firstSmi + len(smiOrder))
					smiOrder = append(smiOrder, b.smiVals[k])
				}
				r = smiID[k]
			default:
				r = idOf[r]
			}
			h.refs = append(h.refs, r)
		}
	}
	for _, v := range smiOrder {
		h.cls = append(h.cls, uint32(b.cat.smi))
		h.size = append(h.size, 0)
		h.tag = append(h.tag, IntData)
		h.val = append(h.val, v)
		h.hash = append(h.hash, 0)
		h.refOff = append(h.refOff, 0)
	}
	h.n = nonSmi + len(smiOrder)
	for f := nonSmi + 1; f <= h.n+1; f++ {
		h.refOff[f] = uint32(len(h.refs))
	}
	h.roRefs = int(h.refOff[3] - h.refOff[2])

	var ext uint64
	h.ext = make([]extRec, len(b.ext))
	for i, e := range b.ext {
		e.object = idOf[e.object]
		h.ext[i] = e
		ext += e.size
	}
	var heapBytes uint64
	for f := h.firstHeap; f < h.firstSmi; f++ {
		heapBytes += uint64(h.size[f])
	}
	h.hdrShallow = heapBytes + extraShallow
	h.hdrCapacity = uint64(roundUp(int(h.hdrShallow+extraCapacity), 256<<10)) + 8<<20
	h.hdrExternal = (ext + 7) &^ 7
	return h
}

// NumObjects is the object count written in the header.
func (h *Heap) NumObjects() int { return h.n }

// Generation is the generation the heap is written as.
func (h *Heap) Generation() Generation { return h.opts.Generation }

// Classes returns the class table as written (index i = class id i+1).
func (h *Heap) Classes() []Class {
	out := make([]Class, len(h.cat.classes))
	fieldFlags := 1
	if h.opts.Generation == GenDevToolsExport {
		fieldFlags = 0
	}
	for i := range h.cat.classes {
		ci := &h.cat.classes[i]
		c := Class{ID: i + 1, VMCid: ci.vmCid, Name: ci.name, LibraryName: ci.lib.name, LibraryURI: ci.lib.uri}
		if i+1 == h.cat.isolate {
			for j, s := range h.statics {
				c.Fields = append(c.Fields, Field{Flags: fieldFlags, Index: j, Name: s})
			}
		}
		for j, f := range ci.fields {
			c.Fields = append(c.Fields, Field{Flags: fieldFlags, Index: j, Name: f, Unboxed: ci.unboxed[j]})
		}
		out[i] = c
	}
	return out
}

// refsOf returns the references of object id.
func (h *Heap) refsOf(id int) []uint32 { return h.refs[h.refOff[id]:h.refOff[id+1]] }

// Object returns object id (1..NumObjects) as written. Its References,
// Latin1 and UTF16 slices alias the heap's storage and must not be modified.
func (h *Heap) Object(id int) Object {
	o := Object{ID: id, ClassID: int(h.cls[id]), ShallowSize: uint64(h.size[id]), References: h.refsOf(id)}
	if h.opts.Generation == GenVM || h.opts.Generation == GenDevToolsExport {
		o.IdentityHash = uint64(h.hash[id])
	}
	if h.opts.Generation != GenDevToolsExport {
		o.Data = h.data(id)
	}
	return o
}

func (h *Heap) data(id int) Data {
	d := Data{Tag: h.tag[id]}
	v := h.val[id]
	switch d.Tag {
	case BoolData, IntData, LengthData:
		d.Int = v
	case DoubleData:
		d.Float = math.Float64frombits(uint64(v))
	case Latin1StringData:
		s := h.strs[v]
		d.Length, d.Latin1 = int(s.full), h.lat[s.off:s.off+s.n]
	case Utf16StringData:
		s := h.strs[v]
		d.Length, d.UTF16 = int(s.full), h.u16[s.off:s.off+s.n]
	case NameData:
		d.Name = h.names[v]
	}
	return d
}

// ExternalProperties returns the external properties as written (none in
// a DevTools export).
func (h *Heap) ExternalProperties() []ExternalProperty {
	if h.opts.Generation == GenDevToolsExport {
		return nil
	}
	out := make([]ExternalProperty, len(h.ext))
	for i, e := range h.ext {
		out[i] = ExternalProperty{Object: int(e.object), Size: e.size, Name: h.names[e.name]}
	}
	return out
}

// WriteTo writes the snapshot file to w.
func (h *Heap) WriteTo(w io.Writer) (int64, error) {
	n, _, err := h.write(w)
	return n, err
}

// write writes the file and also returns the number of padding bytes.
func (h *Heap) write(w io.Writer) (n, padding int64, err error) {
	s := newSink(w)
	export := h.opts.Generation == GenDevToolsExport
	fieldFlags := uint64(1)
	if export {
		fieldFlags = 0
	}
	b := append(s.buf, dartir.Magic...)
	b = dartir.AppendULEB(b, 0) // flags
	b = dartir.AppendString(b, h.opts.Name)
	b = dartir.AppendULEB(b, h.hdrShallow)
	b = dartir.AppendULEB(b, h.hdrCapacity)
	b = dartir.AppendULEB(b, h.hdrExternal)
	b = dartir.AppendULEB(b, uint64(len(h.cat.classes)))
	for i := range h.cat.classes {
		ci := &h.cat.classes[i]
		b = dartir.AppendULEB(b, 0) // class flags
		b = dartir.AppendString(b, ci.name)
		b = dartir.AppendString(b, ci.lib.name)
		b = dartir.AppendString(b, ci.lib.uri)
		b = dartir.AppendString(b, "") // reserved
		fields := ci.fields
		if i+1 == h.cat.isolate {
			fields = h.statics
		}
		b = dartir.AppendULEB(b, uint64(len(fields)))
		for j, f := range fields {
			b = dartir.AppendULEB(b, fieldFlags)
			b = dartir.AppendULEB(b, uint64(j))
			b = dartir.AppendString(b, f)
			b = dartir.AppendString(b, "")
		}
		s.buf = b
		s.maybeFlush()
		b = s.buf
	}
	b = dartir.AppendULEB(b, uint64(len(h.refs)))
	b = dartir.AppendULEB(b, uint64(h.n))
	smiCls := uint32(h.cat.smi)
	for id := 1; id <= h.n; id++ {
		b = dartir.AppendULEB(b, uint64(h.cls[id]))
		b = dartir.AppendULEB(b, uint64(h.size[id]))
		if export {
			b = append(b, byte(NoData))
		} else {
			b = h.appendData(b, id, smiCls)
		}
		refs := h.refsOf(id)
		b = dartir.AppendULEB(b, uint64(len(refs)))
		for _, r := range refs {
			b = dartir.AppendULEB(b, uint64(r))
		}
		if len(b) >= sinkFlushAt {
			s.buf = b
			s.flush()
			b = s.buf
		}
	}
	if export {
		b = dartir.AppendULEB(b, 0)
	} else {
		b = dartir.AppendULEB(b, uint64(len(h.ext)))
		for _, e := range h.ext {
			b = dartir.AppendULEB(b, uint64(e.object))
			b = dartir.AppendULEB(b, e.size)
			b = dartir.AppendString(b, h.names[e.name])
		}
	}
	if h.opts.Generation != GenVMNoHash {
		for id := 1; id <= h.n; id++ {
			b = dartir.AppendULEB(b, uint64(h.hash[id]))
			if len(b) >= sinkFlushAt {
				s.buf = b
				s.flush()
				b = s.buf
			}
		}
	}
	s.buf = b
	if export {
		written := s.n + int64(len(s.buf))
		padding = (DevToolsChunkSize - written%DevToolsChunkSize) % DevToolsChunkSize
		pad := padding
		zero := make([]byte, 4096)
		for pad > 0 {
			k := min(pad, int64(len(zero)))
			s.buf = append(s.buf, zero[:k]...)
			pad -= k
			s.maybeFlush()
		}
	}
	s.flush()
	if s.err == nil {
		h.fileSize, h.padding = s.n, padding
	}
	return s.n, padding, s.err
}

func (h *Heap) appendData(b []byte, id int, smiCls uint32) []byte {
	t := h.tag[id]
	b = append(b, byte(t))
	v := h.val[id]
	switch t {
	case BoolData, LengthData:
		b = dartir.AppendULEB(b, uint64(v))
	case IntData:
		if h.cls[id] == smiCls {
			b = dartir.AppendULEB(b, uint64(v)) // WriteUnsigned(Smi::Value): 10 bytes when negative
		} else {
			b = dartir.AppendSLEB(b, v) // Mint: WriteSigned
		}
	case DoubleData:
		u := uint64(v)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
	case Latin1StringData:
		s := h.strs[v]
		b = dartir.AppendULEB(b, uint64(s.full))
		b = dartir.AppendULEB(b, uint64(s.n))
		b = append(b, h.lat[s.off:s.off+s.n]...)
	case Utf16StringData:
		s := h.strs[v]
		b = dartir.AppendULEB(b, uint64(s.full))
		b = dartir.AppendULEB(b, uint64(s.n))
		for _, u := range h.u16[s.off : s.off+s.n] {
			b = append(b, byte(u), byte(u>>8))
		}
	case NameData:
		b = dartir.AppendString(b, h.names[v])
	}
	return b
}
