package dartgen

import "io"

// Summary is the known truth about a generated file, for checking a reader
// against the generator. Every count describes the bytes written for the
// heap's generation.
type Summary struct {
	Generation Generation
	Name       string // isolate name in the header

	// FileSize is the file length in bytes, padding included; PaddingBytes
	// is the zero tail of a DevTools export (0 otherwise).
	FileSize     int64
	PaddingBytes int64

	// Header values.
	ShallowSize  uint64 // heap accounting: used + image bytes, not ShallowSizeSum
	Capacity     uint64
	ExternalSize uint64 // sum of external-property sizes rounded up to 8
	ClassCount   int
	ObjectCount  int
	// ReferenceCount is the header's referenceCount, which is exactly the
	// sum of the objects' reference counts.
	ReferenceCount int

	// ZeroReferences counts reference entries that are 0 (unboxed slots).
	ZeroReferences int
	// ExternalPropertyCount and ExternalPropertySize describe the external
	// properties written (none in a DevTools export).
	ExternalPropertyCount int
	ExternalPropertySize  uint64

	Isolates     int // Isolate objects, ids 3 .. 2+Isolates
	StaticFields int // fields of class 3 (the static field table)

	// Object id ranges: [FirstVMObject, FirstHeapObject) are VM-isolate
	// objects (shallow size 0), [FirstHeapObject, FirstSmiObject) the
	// isolate group heap, of which [FirstImageObject, FirstSmiObject) are on
	// image pages (the references of object 2), and [FirstSmiObject,
	// ObjectCount] the _Smi objects.
	FirstVMObject, FirstHeapObject, FirstImageObject, FirstSmiObject int
	VMObjects, HeapObjects, ImageObjects, SmiObjects                 int

	RootReferences     int // references of object 1
	ReadOnlyReferences int // references of object 2

	ShallowSizeSum uint64 // sum of all objects' shallow sizes
	// Reachable counts objects reachable from object 1 following every
	// non-zero reference (weak ones included), object 1 included.
	Reachable int

	IdentityHashes bool // the file has the identity-hash section
	NonZeroHashes  int  // objects with a non-zero identity hash written

	// DataTags counts objects per NonReferenceData tag written.
	DataTags [9]int
	// TruncatedStrings counts string objects written with fewer code units
	// than their length.
	TruncatedStrings int

	// SmiValues[i] is the value of object FirstSmiObject+i.
	SmiValues []int64
	// MintIDs and MintValues list the _Mint objects and their values.
	MintIDs    []int
	MintValues []int64

	// Classes has one entry per class, index = class id - 1.
	Classes []ClassStats
}

// ClassStats is the population of one class.
type ClassStats struct {
	ID          int
	Name        string
	LibraryURI  string
	Instances   int
	ShallowSize uint64
}

// countWriter discards what is written.
type countWriter struct{}

// Write discards p.
func (countWriter) Write(p []byte) (int, error) { return len(p), nil }

var _ io.Writer = countWriter{}

// Summary computes the summary of the heap (it encodes the heap once, to
// measure the file, unless it was written already).
func (h *Heap) Summary() *Summary {
	gen := h.opts.Generation
	s := &Summary{
		Generation: gen, Name: h.opts.Name,
		ShallowSize: h.hdrShallow, Capacity: h.hdrCapacity, ExternalSize: h.hdrExternal,
		ClassCount: len(h.cat.classes), ObjectCount: h.n, ReferenceCount: len(h.refs),
		Isolates: h.firstVM - 3, StaticFields: len(h.statics),
		FirstVMObject: h.firstVM, FirstHeapObject: h.firstHeap, FirstImageObject: h.firstImage, FirstSmiObject: h.firstSmi,
		VMObjects: h.firstHeap - h.firstVM, HeapObjects: h.firstSmi - h.firstHeap,
		ImageObjects: h.firstSmi - h.firstImage, SmiObjects: h.n + 1 - h.firstSmi,
		RootReferences: int(h.refOff[2] - h.refOff[1]), ReadOnlyReferences: h.roRefs,
		IdentityHashes: gen != GenVMNoHash,
	}
	if h.fileSize == 0 {
		_, _, _ = h.write(countWriter{}) // a countWriter never fails
	}
	s.FileSize, s.PaddingBytes = h.fileSize, h.padding
	if gen != GenDevToolsExport {
		s.ExternalPropertyCount = len(h.ext)
		for _, e := range h.ext {
			s.ExternalPropertySize += e.size
		}
	}
	for _, r := range h.refs {
		if r == 0 {
			s.ZeroReferences++
		}
	}
	s.Classes = make([]ClassStats, len(h.cat.classes))
	for i := range s.Classes {
		ci := &h.cat.classes[i]
		s.Classes[i] = ClassStats{ID: i + 1, Name: ci.name, LibraryURI: ci.lib.uri}
	}
	mintCls := uint32(h.cat.mint)
	for id := 1; id <= h.n; id++ {
		c := &s.Classes[h.cls[id]-1]
		c.Instances++
		c.ShallowSize += uint64(h.size[id])
		s.ShallowSizeSum += uint64(h.size[id])
		if s.IdentityHashes && h.hash[id] != 0 {
			s.NonZeroHashes++
		}
		t := h.tag[id]
		if gen == GenDevToolsExport {
			t = NoData
		}
		s.DataTags[t]++
		if t == Latin1StringData || t == Utf16StringData {
			if r := h.strs[h.val[id]]; r.n < r.full {
				s.TruncatedStrings++
			}
		}
		if h.cls[id] == mintCls {
			s.MintIDs = append(s.MintIDs, id)
			s.MintValues = append(s.MintValues, h.val[id])
		}
	}
	s.SmiValues = append([]int64(nil), h.val[h.firstSmi:h.n+1]...)
	s.Reachable = h.reachable()
	return s
}

// reachable counts objects reachable from the root over non-zero references.
func (h *Heap) reachable() int {
	seen := make([]bool, h.n+1)
	queue := []uint32{1}
	seen[1] = true
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, r := range h.refsOf(int(id)) {
			if r != 0 && !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	n := 0
	for _, v := range seen {
		if v {
			n++
		}
	}
	return n
}
