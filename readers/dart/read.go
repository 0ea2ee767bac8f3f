package dart

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/heapconv/heapconv/internal/slicesx"
	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Options control Read.
type Options struct {
	// Size is the input's size in bytes when known (0 = unknown). Declared
	// counts are believed only as far as the remaining bytes can hold them.
	Size int64
	// At, when set with Size, reads the same input at offsets (offset 0
	// is the input's first byte): a second goroutine then decodes the
	// second half of the objects while the first reads up to it. Read
	// uses the input itself when it is an io.ReaderAt at offset 0 (an
	// *os.File, a *bytes.Reader).
	At io.ReaderAt
	// Progress, if set, is called now and then with the bytes read so far.
	Progress func(read int64)
}

// Read reads a Dart VM heap snapshot into the IR: one snapshot, node k-1
// for object id k (see ir/dart/snapshot.go for the mapping).
func Read(r io.Reader, opts Options) (*ir.File, error) {
	if opts.Size == 0 {
		opts.Size = ir.InputSize(r)
	}
	p := &parser{in: newInput(r, opts.Size, opts.Progress), strs: ir.NewInterner(nil), at: opts.At}
	if p.at == nil && opts.Size > 0 {
		p.at = readerAt(r)
	}
	return p.read()
}

// read reads the file and validates it.
func (p *parser) read() (*ir.File, error) {
	if err := p.file(); err != nil {
		return nil, err
	}
	if err := p.f.Validate(); err != nil {
		return nil, fmt.Errorf("dart: internal error: the IR read is invalid: %w", err)
	}
	return p.f, nil
}

// ReadBytes reads a Dart VM heap snapshot held in memory, as Read does,
// decoding data where it is: nothing is copied but the strings, and a
// heap of enough objects is decoded on two cores. Options.Size and
// Options.At are not used; Options.Progress is told how far the decoding
// is. data must not change until ReadBytes returns; the File shares none
// of it. data may be a file mapped into memory: when a byte of it cannot
// be read (the file was truncated meanwhile), ReadBytes returns an error
// with its offset, not a crash.
func ReadBytes(data []byte, opts Options) (f *ir.File, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer onFault(data, func(fault error) { f, err = nil, fault })
	m := memory(data)
	p := &parser{in: newMemoryInput(m, 0, opts.Progress), strs: ir.NewInterner(nil), at: m}
	if f, err = p.read(); err == nil && opts.Progress != nil {
		opts.Progress(int64(len(data)))
	}
	return f, err
}

// onFault, deferred in a goroutine that reads data with
// debug.SetPanicOnFault set, recovers from a fault reading data and hands
// handle its error. Other panics go on.
func onFault(data []byte, handle func(fault error)) {
	if err := faultError(recover(), data); err != nil {
		handle(err)
	}
}

// faultError returns the error of a fault reading data that r, a value
// recover returned, is, or nil when r is nil. Other panics go on.
func faultError(r any, data []byte) error {
	if r == nil {
		return nil
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	off := int64(-1)
	if len(data) > 0 {
		if d := int64(fault.Addr()) - int64(uintptr(unsafe.Pointer(&data[0]))); d >= 0 && d < int64(len(data)) {
			off = d
		}
	}
	if off < 0 {
		panic(r) // not in the input: a fault of another kind
	}
	return ir.Errorf(dartir.Format, off, "the input's memory cannot be read here (a mapped file truncated while it was read?)")
}

type parser struct {
	in      *input
	f       *ir.File
	s       *ir.Snapshot
	d       *dartir.Snapshot
	strs    *ir.Interner // the string table; File.Strings once read
	classes []classInfo
	scratch []byte

	at      io.ReaderAt   // the input at offsets, or nil
	n       uint64        // objectCount
	pending pendingString // fastObjects: a string not interned yet
	// texts hold the UTF-8 of string objects that are not ASCII, for
	// fastObjects: the pending string's is in texts[text] (or in the
	// input), and the next string is converted into the other.
	texts [2][]byte
	text  int
	// expect is how many objects' values and zero references the
	// columns are expected to hold (0: no guess), for their growth.
	expect   uint64
	rootName uint32
	sizes    *batch // the self sizes on their way to Nodes.SelfSize
	// second is set on the parser of the second half of a split read
	// (split.go): its objects are numbered from its own first.
	second bool
	marks  []int64        // second: the offset of every markEvery'th object
	limit  *atomic.Uint64 // second: stop once this many objects (at most n) are decoded
	starts []int64        // a try at a boundary (most > 0): every object's offset
	// second: its string table at its latest mark, for the first half
	// to intern while this one decodes on (split.go).
	marked atomic.Pointer[markedStrings]
	// half is the second half whose objects the first half adopted: it
	// may have read the external properties and hash codes too.
	half *secondHalf
	// most, when not 0, refuses (with errTooBig) a reference count or a
	// string longer than this: a guess at an object boundary (split.go)
	// must cost little, whatever the bytes say.
	most uint64
}

// classInfo is what the object loop needs to know about a class.
type classInfo struct {
	name      uint32
	intCoding uint8 // dartir.IntULEB or dartir.IntSLEB for IntData
	nFields   int
	// dense maps reference slots 0..len(dense)-1 to the edges they become,
	// when the field indices are small; sparse holds the fields sorted by
	// index otherwise (absurd indices must not cost memory).
	dense  []slot
	sparse []sparseSlot
	// kinds and names are edge(j) for j < len(dense), for the object loop.
	kinds []uint8
	names []uint32
}

type slot struct {
	kind uint8
	name uint32
	ok   bool
}

type sparseSlot struct {
	index uint64
	slot
}

// intern returns the string table index of s.
func (p *parser) intern(s []byte) uint32 { return p.strs.InternBytes(s) }

// capHint bounds a preallocation by a declared count when the input size is
// unknown (it is already bounded by the bytes left otherwise).
func (p *parser) capHint(n uint64) int {
	if p.in.size <= 0 {
		return int(min(n, 1<<16))
	}
	return int(n)
}

// utf8 reads a Utf8String (uleb length + bytes) and interns it.
func (p *parser) utf8(what string) (uint32, error) {
	off := p.in.offset()
	n, err := p.in.uleb(what)
	if err != nil {
		return 0, err
	}
	if rem := p.in.remaining(); rem >= 0 && n > uint64(rem) {
		return 0, ir.Truncated(dartir.Format, off, "%s: length %d, but only %d bytes are left", what, n, rem)
	}
	if n > math.MaxInt32 {
		return 0, p.in.errorf(off, "%s: length %d", what, n)
	}
	if p.most > 0 && n > p.most {
		return 0, errTooBig
	}
	b, err := p.in.bytes(int(n), what)
	if err != nil {
		return 0, err
	}
	return p.intern(b), nil
}

func (p *parser) file() error {
	in := p.in
	defer p.waitSecondHalf()
	magic, err := in.bytes(len(dartir.Magic), "the magic")
	if err != nil || string(magic) != dartir.Magic {
		return in.errorf(0, "not a Dart heap snapshot (the file does not start with %q)", dartir.Magic)
	}
	p.f = &ir.File{Format: dartir.Format}
	p.intern(nil) // string 0 is ""
	p.s = &ir.Snapshot{
		Root:      0,
		NodeKinds: append([]string(nil), dartir.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), dartir.EdgeKinds...),
	}
	p.d = &dartir.Snapshot{}
	p.s.SetSection(p.d)
	p.f.Snapshots = []*ir.Snapshot{p.s}

	if p.d.Flags, err = in.uleb("flags"); err != nil {
		return err
	}
	if p.s.Name, err = p.utf8("name"); err != nil {
		return err
	}
	for _, name := range dartir.HeaderTotals {
		v, err := in.uleb(name)
		if err != nil {
			return err
		}
		p.s.Totals = append(p.s.Totals, ir.Total{Name: name, Value: v})
	}
	if err := p.readClasses(); err != nil {
		return err
	}
	refOff := in.offset()
	if p.d.ReferenceCount, err = in.uleb("referenceCount"); err != nil {
		return err
	}
	if p.d.ReferenceCount > dartir.MaxReferenceCount {
		// More than a file can hold is tolerated ("at least"), but Dart's
		// readers allocate a Uint32List of this length.
		return in.errorf(refOff, "referenceCount %d: Dart's readers hold at most 2^32-1 references", p.d.ReferenceCount)
	}
	if err := p.readObjects(); err != nil {
		return err
	}
	if p.s.Nodes.Len() == 0 {
		p.s.Root = ir.NoNode // no objects, so no root
	}
	if refs := uint64(p.s.Edges.Len() + len(p.d.ZeroRefNode)); refs > p.d.ReferenceCount {
		return in.errorf(refOff, "referenceCount is %d, but the objects hold %d references", p.d.ReferenceCount, refs)
	}
	if p.half == nil || !p.adoptTail(p.half) {
		if err := p.readExternal(uint64(p.s.Nodes.Len())); err != nil {
			return err
		}
		if err := p.readTail(p.s.Nodes.Len()); err != nil {
			return err
		}
	}
	p.f.Strings = p.strs.Strings
	p.f.FormatVersion = p.describe()
	return nil
}

func (p *parser) readClasses() error {
	in := p.in
	// A class takes at least 6 bytes: flags, 4 empty strings, fieldCount.
	n, err := in.count("classCount", 6)
	if err != nil {
		return err
	}
	c := &p.f.Classes
	d := p.d
	hint := p.capHint(n)
	c.Name = make([]uint32, 0, hint)
	c.Library = make([]uint32, 0, hint)
	c.FirstField = make([]uint32, 1, hint+1)
	d.ClassURI = make([]uint32, 0, hint)
	d.ClassReserved = make([]uint32, 0, hint)
	p.classes = make([]classInfo, 0, hint)
	for k := uint64(0); k < n; k++ {
		flags, err := in.uleb("class flags")
		if err != nil {
			return err
		}
		d.ClassFlags.Append(flags)
		var name, lib, uri, res uint32
		if name, err = p.utf8("class name"); err != nil {
			return err
		}
		if lib, err = p.utf8("library name"); err != nil {
			return err
		}
		if uri, err = p.utf8("library URI"); err != nil {
			return err
		}
		if res, err = p.utf8("class reserved"); err != nil {
			return err
		}
		c.Name = append(c.Name, name)
		c.Library = append(c.Library, lib)
		d.ClassURI = append(d.ClassURI, uri)
		d.ClassReserved = append(d.ClassReserved, res)
		// A field takes at least 4 bytes: flags, index, 2 empty strings.
		nf, err := in.count("fieldCount", 4)
		if err != nil {
			return err
		}
		className := p.strs.Strings[name]
		info := classInfo{name: name, nFields: int(nf), intCoding: dartir.IntCoding(className)}
		var maxIndex uint64
		first := len(c.FieldName)
		for j := uint64(0); j < nf; j++ {
			ff, err := in.uleb("field flags")
			if err != nil {
				return err
			}
			idx, err := in.uleb("field index")
			if err != nil {
				return err
			}
			fname, err := p.utf8("field name")
			if err != nil {
				return err
			}
			fres, err := p.utf8("field reserved")
			if err != nil {
				return err
			}
			d.FieldFlags.Append(ff)
			d.FieldIndex.Append(idx)
			c.FieldName = append(c.FieldName, fname)
			d.FieldReserved = append(d.FieldReserved, fres)
			maxIndex = max(maxIndex, idx)
		}
		// Map slots to edges. Field indices are positions in the reference
		// list; keep a dense table unless a file declares absurd ones.
		if nf > 0 && maxIndex < 2*nf+8 {
			info.dense = make([]slot, maxIndex+1)
		}
		for j := first; j < len(c.FieldName); j++ {
			fname := c.FieldName[j]
			sl := slot{kind: dartir.Property, name: fname, ok: true}
			if dartir.IsWeakSlot(className, p.strs.Strings[fname]) {
				sl.kind = dartir.Weak
			}
			idx := d.FieldIndex.At(j)
			if info.dense != nil {
				if !info.dense[idx].ok { // the first field of an index names it
					info.dense[idx] = sl
				}
			} else {
				info.sparse = append(info.sparse, sparseSlot{idx, sl})
			}
		}
		// Stable, so that the first field of an index still names it.
		slices.SortStableFunc(info.sparse, func(a, b sparseSlot) int { return cmp.Compare(a.index, b.index) })
		info.tabulate()
		c.FirstField = append(c.FirstField, uint32(len(c.FieldName)))
		p.classes = append(p.classes, info)
	}
	if n == 0 {
		c.FirstField = nil // as the IR decoder leaves an empty table
	}
	return nil
}

// tabulate sets kinds and names from dense, sparse and nFields, with room
// for a block past the last slot: appendSlots copies blocks of slotBlock.
func (info *classInfo) tabulate() {
	info.kinds = make([]uint8, 0, len(info.dense)+slotBlock)
	info.names = make([]uint32, 0, len(info.dense)+slotBlock)
	for j := range info.dense {
		k, nm := info.edge(j)
		info.kinds = append(info.kinds, k)
		info.names = append(info.names, nm)
	}
}

// edge returns the kind and name of the edge at reference slot j of an
// object of class info.
func (info *classInfo) edge(j int) (uint8, uint32) {
	if j < len(info.dense) {
		if s := info.dense[j]; s.ok {
			return s.kind, s.name
		}
	} else if len(info.sparse) > 0 {
		k, ok := slices.BinarySearchFunc(info.sparse, uint64(j), func(s sparseSlot, t uint64) int { return cmp.Compare(s.index, t) })
		if ok {
			return info.sparse[k].kind, info.sparse[k].name
		}
	}
	if j >= info.nFields {
		return dartir.Element, uint32(j - info.nFields)
	}
	return dartir.Element, uint32(j)
}

func (p *parser) readObjects() error {
	in := p.in
	// An object takes at least 4 bytes: class, size, tag, referenceCount.
	countOff := in.offset()
	n, err := in.count("objectCount", 4)
	if err != nil {
		return err
	}
	if n >= math.MaxUint32 {
		return in.errorf(countOff, "objectCount %d: at most 2^32-2 objects are supported", n)
	}
	// The header's referenceCount bounds the edges (it is at least their
	// number); believe it only as far as the bytes left hold one byte each.
	eh := p.d.ReferenceCount
	if rem := in.remaining(); rem >= 0 {
		// References use what the objects' other 4 bytes at least leave.
		eh = min(eh, uint64(max(rem-4*int64(n), 0)))
	} else {
		eh = min(eh, 1<<16)
	}
	p.n = n
	p.expect = n // a split read's first half adopts the second's values
	nd := &p.s.Nodes
	hint := p.capHint(n)
	// A split read (split.go) puts the second half's objects in the same
	// columns, after room for the first half's.
	h := p.findSecondHalf()
	if h != nil {
		h.allocate(p, eh)
	} else {
		reserveObjects(p.s, uint64(hint), eh)
	}
	// String payloads are interned too: size the index for them now rather
	// than rehashing it again and again (a heap has about one distinct
	// string per twenty objects).
	p.strs.Reserve(p.capHint(n / 16))
	p.rootName = p.intern([]byte(dartir.RootClass))
	p.sizes = newBatch(&nd.SelfSize, hint)
	defer p.sizes.flush()
	done := uint64(0)
	if h != nil {
		h.run()
		defer func() {
			if p.half == nil { // not joined: stop it and wait (a fault panics past cancel)
				h.setLimit(0)
				<-h.done
			}
		}()
		k, err := p.objects(0, n, h.start)
		if err != nil {
			h.cancel(p)
			return err
		}
		done = p.joinSecondHalf(h, k)
		p.half = h
	}
	_, err = p.objects(done, n, -1)
	return err
}

// reserveObjects makes s's node and edge columns (but the self sizes)
// with room for n objects and edges references.
func reserveObjects(s *ir.Snapshot, n, edges uint64) {
	nd, ed := &s.Nodes, &s.Edges
	nd.Kind = slicesx.MakeUncleared[uint8](0, int(n))
	nd.Name = slicesx.MakeUncleared[uint32](0, int(n))
	nd.Class = slicesx.MakeUncleared[uint32](0, int(n))
	nd.FirstEdge = slicesx.MakeUncleared[uint32](1, int(n)+1)
	nd.FirstEdge[0] = 0
	ed.Kind = slicesx.MakeUncleared[uint8](0, int(edges))
	ed.Name = slicesx.MakeUncleared[uint32](0, int(edges))
	ed.Target = slicesx.MakeUncleared[uint32](0, int(edges))
}

// objects decodes objects i to n-1 into the parser's columns. It returns
// early, with the number of the next object, when that object starts at or
// past offset stopAt (-1: never), and a second half's parser also when it
// has decoded its limit.
//
// Most objects are decoded by fastObjects, from the buffered bytes; the
// others, and every object with something to report, by object, which
// refills the buffer as it goes and words the errors.
func (p *parser) objects(i, n uint64, stopAt int64) (uint64, error) {
	for i < n {
		if carefulOnly {
			if p.stopBefore(i, p.in.offset(), stopAt) {
				return i, nil
			}
		} else {
			var stop bool
			var err error
			i, stop, err = p.fastObjects(i, n, stopAt)
			if stop || err != nil || i >= n {
				return i, err
			}
		}
		if err := p.object(i); err != nil {
			return i, err
		}
		i++
	}
	return i, nil
}

// carefulOnly, when set (by tests), decodes every object with object: the
// fast loop must give the same files and the same errors.
var carefulOnly bool

// refillBelow is how few buffered bytes make the object loop read more
// before the next object: fastObjects decodes only what is buffered.
const refillBelow = 4 << 10

// stopBefore reports whether the loop stops before object i, at offset
// off; a second half's parser notes its marks and tries' starts here.
func (p *parser) stopBefore(i uint64, off, stopAt int64) bool {
	if stopAt >= 0 && off >= stopAt {
		return true
	}
	if p.second {
		if i%markEvery == 0 {
			p.marks = append(p.marks, off)
			p.markStrings(i)
		}
		// Checked at every object, so that a cancel does not wait
		// for many objects of any size.
		if i >= p.limit.Load() || i >= p.n {
			return true
		}
		if p.most > 0 {
			p.starts = append(p.starts, off)
		}
	}
	return false
}

// due reports whether stopBefore has anything to do before object i: it
// is small enough to be inlined in the fast loop, where calling stopBefore
// for every object of a split read cost 2% of the read.
func (p *parser) due(i uint64, off, stopAt int64) bool {
	return (stopAt >= 0 && off >= stopAt) || (p.second && (i%markEvery == 0 || p.most > 0 || i >= p.limit.Load()))
}

// classOf returns the class information and node name of object i of
// class cls (at most the class count).
func (p *parser) classOf(i, cls uint64) (*classInfo, uint32) {
	if cls > 0 {
		info := &p.classes[cls-1]
		return info, info.name
	}
	if i == 0 && !p.second {
		return &noClass, p.rootName // the 2019–2020 writers gave the root class 0
	}
	return &noClass, 0
}

// noClass is the class information of class 0.
var noClass classInfo

// object decodes object i from the input, refilling the buffer as needed.
func (p *parser) object(i uint64) error {
	in := p.in
	nd := &p.s.Nodes
	off := in.offset()
	cls, ok := in.small()
	var err error
	if !ok {
		if cls, err = in.uleb("object class"); err != nil {
			return err
		}
	}
	if nc := uint64(len(p.classes)); cls > nc {
		return in.errorf(off, "object %d: class %d, but there are %d classes", i+1, cls, nc)
	}
	info, name := p.classOf(i, cls)
	size, err := in.uleb("shallow size")
	if err != nil {
		return err
	}
	tagOff := in.offset()
	tag, err := in.uleb("data tag")
	if err != nil {
		return err
	}
	if tag > dartir.NameData {
		return in.errorf(tagOff, "object %d: unknown data tag %d", i+1, tag)
	}
	nd.Kind = append(nd.Kind, uint8(tag))
	nd.Name = append(nd.Name, name)
	nd.Class = append(nd.Class, uint32(cls))
	p.sizes.add(size)
	if tag != dartir.NoData {
		if err := p.readData(uint32(i), uint8(tag), info); err != nil {
			return err
		}
	}
	rcOff := in.offset()
	rc, err := in.uleb("reference count")
	if err != nil {
		return err
	}
	if err := p.checkRefCount(i, rc, rcOff); err != nil {
		return err
	}
	return p.refs(i, info, 0, rc)
}

// checkRefCount checks object i's reference count rc, read at offset off,
// against the bytes left and the edges the columns can hold.
func (p *parser) checkRefCount(i, rc uint64, off int64) error {
	in := p.in
	if rem := in.remaining(); rem >= 0 && rc > uint64(rem) {
		return ir.Truncated(dartir.Format, off, "object %d: %d references, but only %d bytes are left", i+1, rc, rem)
	}
	if p.most > 0 && rc > p.most {
		return errTooBig
	}
	if uint64(p.s.Edges.Len())+rc > math.MaxUint32 {
		return in.errorf(off, "more than 2^32 references")
	}
	return nil
}

// refs decodes references j to rc-1 of object i from the input, and ends
// the object's edges.
func (p *parser) refs(i uint64, info *classInfo, j, rc uint64) error {
	in := p.in
	ed := &p.s.Edges
	for ; j < rc; j++ {
		start := in.offset()
		ref, err := in.uleb("reference")
		if err != nil {
			return err
		}
		if ref-1 >= p.n { // ref == 0 or ref > n
			if ref == 0 {
				p.addZeroRef(uint32(i), uint32(j))
				continue
			}
			return in.errorf(start, "object %d: reference to object %d, but there are %d objects", i+1, ref, p.n)
		}
		k, nm := info.edge(int(j))
		ed.Kind = append(ed.Kind, k)
		ed.Name = append(ed.Name, nm)
		ed.Target = append(ed.Target, uint32(ref-1))
	}
	p.s.Nodes.FirstEdge = append(p.s.Nodes.FirstEdge, uint32(ed.Len()))
	return nil
}

// readData reads the NonReferenceData payload of node i.
func (p *parser) readData(i uint32, tag uint8, info *classInfo) error {
	in := p.in
	kind, _ := dartir.ValueKind(tag)
	add := func(bits, aux uint64) { p.addValue(i, kind, bits, aux) }
	switch tag {
	case dartir.NullData:
		add(0, 0)
	case dartir.BoolData:
		b, err := in.uleb("bool")
		if err != nil {
			return err
		}
		add(b, 0)
	case dartir.IntData:
		bits, coding, err := p.readInt(info.intCoding)
		if err != nil {
			return err
		}
		add(bits, uint64(coding))
	case dartir.DoubleData:
		b, err := in.bytes(8, "double")
		if err != nil {
			return err
		}
		add(binary.LittleEndian.Uint64(b), 0)
	case dartir.Latin1Data, dartir.UTF16Data:
		off := in.offset()
		length, err := in.uleb("string length")
		if err != nil {
			return err
		}
		trunc, err := in.uleb("string truncated length")
		if err != nil {
			return err
		}
		if trunc > length {
			return in.errorf(off, "object %d: string of %d code units stores %d of them", i+1, length, trunc)
		}
		unit := uint64(1)
		if tag == dartir.UTF16Data {
			unit = 2
		}
		if rem := in.remaining(); (rem >= 0 && trunc > uint64(rem)/unit) || trunc > math.MaxInt32/2 {
			return in.errorf(off, "object %d: string stores %d code units, more than the bytes left", i+1, trunc)
		}
		if p.most > 0 && trunc*unit > p.most {
			return errTooBig
		}
		b, err := in.bytes(int(trunc*unit), "string")
		if err != nil {
			return err
		}
		aux := uint64(0)
		if length != trunc {
			aux = length
		}
		add(uint64(p.internText(tag, b)), aux)
	case dartir.LengthData:
		l, err := in.uleb("length")
		if err != nil {
			return err
		}
		add(l, 0)
	case dartir.NameData:
		s, err := p.utf8("name")
		if err != nil {
			return err
		}
		add(uint64(s), 0)
	}
	return nil
}

// addZeroRef notes a reference 0 at slot j of node i.
func (p *parser) addZeroRef(i, j uint32) {
	d := p.d
	if len(d.ZeroRefNode) == cap(d.ZeroRefNode) {
		n := p.growth(len(d.ZeroRefNode), uint64(i), 1)
		d.ZeroRefNode, d.ZeroRefSlot = slicesx.Grow(d.ZeroRefNode, n), slicesx.Grow(d.ZeroRefSlot, n)
	}
	d.ZeroRefNode = append(d.ZeroRefNode, i)
	d.ZeroRefSlot = append(d.ZeroRefSlot, j)
}

// growth returns how many entries to add to a full column of values or
// zero references, of have entries, before object i: what the objects
// left of those expected are expected to add at the rate so far (one an
// object at most), and an eighth more, when the input's bytes left hold
// that many entries of least bytes each; at least a quarter of what it
// has, past the objects expected or when the rate was low (a second half
// decodes a little past its share; doubling there made as much garbage
// as the column). Append would grow big columns by a quarter too, but
// doubling from small copied them many times. The rate is believed only
// after growthAfter objects (it doubles before): one object may hold a
// thousand references 0, and the next million none.
func (p *parser) growth(have int, i uint64, least int64) int {
	rem := p.in.remaining()
	if i < growthAfter || rem < 0 {
		return max(have, 1024)
	}
	more := min(float64(have)/float64(i), 1) * float64(p.expect-min(i, p.expect)) * 9 / 8
	return max(have/4, 1024, int(min(more, float64(rem/least))))
}

// growthAfter is how many objects growth needs to have seen to believe
// their rate.
const growthAfter = 4096

// internText interns the stored code units b of a string of data tag tag
// (Latin1Data or UTF16Data), as UTF-8 (WTF-8 for lone surrogates).
func (p *parser) internText(tag uint8, b []byte) uint32 {
	return p.intern(utf8Text(tag, b, &p.scratch))
}

// utf8Text returns the UTF-8 (WTF-8 for lone surrogates) of the stored
// code units b of a string of data tag tag (Latin1Data or UTF16Data): b
// itself when it is ASCII, which is UTF-8 already, else its conversion, in
// *buf.
func utf8Text(tag uint8, b []byte, buf *[]byte) []byte {
	if tag == dartir.Latin1Data {
		if isASCII(b) {
			return b
		}
		*buf = appendLatin1((*buf)[:0], b)
	} else {
		*buf = appendUTF16((*buf)[:0], b)
	}
	return *buf
}

// isASCII reports whether every byte of b is below 0x80, 8 at a time.
func isASCII(b []byte) bool {
	var or uint64
	for ; len(b) >= 8; b = b[8:] {
		or |= binary.LittleEndian.Uint64(b)
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// addValue adds a value of node i.
func (p *parser) addValue(i uint32, kind ir.ValueKind, bits, aux uint64) {
	v := &p.s.Values
	if len(v.Node) == cap(v.Node) {
		n := p.growth(len(v.Node), uint64(i), 4) // an object takes 4 bytes at least
		v.Node, v.Kind = slicesx.Grow(v.Node, n), slicesx.Grow(v.Kind, n)
		v.Bits, v.Aux = slicesx.Grow(v.Bits, n), slicesx.Grow(v.Aux, n)
	}
	v.Node = append(v.Node, i)
	v.Kind = append(v.Kind, kind)
	v.Bits = append(v.Bits, bits)
	v.Aux = append(v.Aux, aux)
}

// appendLatin1 appends Latin-1 bytes as UTF-8: ASCII as is, the rest as
// two-byte sequences.
func appendLatin1(dst, b []byte) []byte {
	for k, c := range b {
		if c >= 0x80 {
			dst = append(dst, b[:k]...)
			for _, c := range b[k:] {
				dst = utf8.AppendRune(dst, rune(c))
			}
			return dst
		}
	}
	return append(dst, b...)
}

// appendUTF16 appends little-endian UTF-16 code units as WTF-8: pairs
// become one code point, lone surrogates stay.
func appendUTF16(dst, b []byte) []byte {
	// At most 3 bytes per code unit (a pair of 2 becomes 4): the room is
	// made once, and the loop writes the encodings itself.
	dst = slices.Grow(dst, len(b)/2*3)
	for k := 0; k+1 < len(b); k += 2 {
		u := rune(b[k]) | rune(b[k+1])<<8
		switch {
		case u < 0x80:
			dst = append(dst, byte(u))
			continue
		case u < 0x800:
			dst = append(dst, 0xC0|byte(u>>6), 0x80|byte(u)&0x3F)
			continue
		case u >= 0xD800 && u < 0xDC00 && k+3 < len(b):
			if u2 := rune(b[k+2]) | rune(b[k+3])<<8; u2 >= 0xDC00 && u2 < 0xE000 {
				dst = utf8.AppendRune(dst, 0x10000+(u-0xD800)<<10+(u2-0xDC00))
				k += 2
				continue
			}
		}
		// The rest of the BMP, and lone surrogates as WTF-8 writes them.
		dst = append(dst, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
	}
	return dst
}

// classifyInt decodes the IntData payload raw (a whole LEB128 number) for
// a class of coding want, and reports false when it fits in 64 bits in
// neither coding.
func classifyInt(raw []byte, want uint8) (bits uint64, coding uint8, ok bool) {
	n := len(raw)
	u, uok := dartir.DecodeULEB(raw)
	s := dartir.DecodeSLEB(raw)
	switch {
	case want == dartir.IntSLEB && dartir.SLEBLen(s) == n:
		return uint64(s), dartir.IntSLEB, true
	case uok && dartir.ULEBLen(u) == n:
		return u, dartir.IntULEB, true
	case dartir.SLEBLen(s) == n:
		return uint64(s), dartir.IntSLEB, true
	case want == dartir.IntSLEB:
		return uint64(s), dartir.IntSLEB, true // an overlong form: written back canonically
	case uok:
		return u, dartir.IntULEB, true
	}
	return 0, 0, false
}

// readInt reads an IntData payload. The VM writes _Mint values as SLEB128
// and _Smi values as ULEB128 of their two's complement; want is the class's
// coding. DevTools' re-export writes ULEB128 for both, so when the bytes are
// not the canonical form of want but are of the other, the other is taken.
func (p *parser) readInt(want uint8) (bits uint64, coding uint8, err error) {
	in := p.in
	off := in.offset()
	if !in.ensure(1) {
		return 0, 0, in.eofError("integer")
	}
	// Find the encoded length first.
	n := 0
	for {
		if !in.ensure(n + 1) {
			return 0, 0, in.eofError("integer")
		}
		c := in.buf[in.pos+n]
		n++
		if c < 0x80 {
			break
		}
		if n == 10 {
			return 0, 0, in.errorf(off, "integer: LEB128 value longer than 10 bytes")
		}
	}
	raw := in.buf[in.pos : in.pos+n]
	in.pos += n
	if bits, coding, ok := classifyInt(raw, want); ok {
		return bits, coding, nil
	}
	return 0, 0, in.errorf(off, "integer: LEB128 value does not fit in 64 bits")
}

func (p *parser) readExternal(nn uint64) error {
	in := p.in
	// An external property takes at least 3 bytes: object, size, name.
	n, err := in.count("externalPropertyCount", 3)
	if err != nil {
		return err
	}
	d := p.d
	hint := p.capHint(n)
	d.ExternalNode = make([]uint32, 0, hint)
	d.ExternalName = make([]uint32, 0, hint)
	for k := uint64(0); k < n; k++ {
		off := in.offset()
		obj, err := in.uleb("external property object")
		if err != nil {
			return err
		}
		if obj == 0 || obj > nn {
			return in.errorf(off, "external property %d: object %d, but there are %d objects", k, obj, nn)
		}
		size, err := in.uleb("external size")
		if err != nil {
			return err
		}
		name, err := p.utf8("external property name")
		if err != nil {
			return err
		}
		d.ExternalNode = append(d.ExternalNode, uint32(obj-1))
		d.ExternalSize.Append(size)
		d.ExternalName = append(d.ExternalName, name)
	}
	p.sumExternal(nn)
	return nil
}

// sumExternal sets each of the nn nodes' external size to the sum of its
// external properties' sizes (saturating). The column is made once, in the
// width of the largest sum: widening a column of a value per node as sums
// grow took longer than reading the properties.
func (p *parser) sumExternal(nn uint64) {
	d := p.d
	if len(d.ExternalNode) == 0 {
		return
	}
	sums := make(map[uint32]uint64, len(d.ExternalNode))
	var most uint64
	for k, node := range d.ExternalNode {
		s := ir.SatAdd(sums[node], d.ExternalSize.At(k))
		sums[node] = s
		most = max(most, s)
	}
	ext := &p.s.Nodes.ExternalSize
	if most <= math.MaxUint32 {
		ext.AppendAll32(perNode[uint32](sums, nn))
	} else {
		ext.AppendAll(perNode[uint64](sums, nn))
	}
}

// perNode returns the sums as a column of nn values, 0 for nodes without
// one.
func perNode[T uint32 | uint64](sums map[uint32]uint64, nn uint64) []T {
	vs := make([]T, nn)
	for node, s := range sums {
		vs[node] = T(s)
	}
	return vs
}

// readTail reads the identity hash codes of n objects, if the file has
// them, and counts the zero padding of DevTools exports.
func (p *parser) readTail(n int) error {
	in := p.in
	nd := &p.s.Nodes
	if in.atEOF() {
		if in.err != nil {
			return in.err
		}
		nd.ID.AppendZeros(n)
		return nil
	}
	p.d.IdentityHashes = true
	ids := newBatch(&nd.ID, n)
	for i := 0; i < n; {
		// Decode a run of buffered hashes in one tight loop, 8 bytes at a
		// time, in two chains while they are many; then hand the next one
		// to uleb, which refills and decodes longer numbers.
		buf := in.buf[in.pos:in.end]
		pos := 0
		for {
			used, k := ids.addTwoChains(buf[pos:], n-i)
			if k == 0 {
				break
			}
			pos, i = pos+used, i+k
		}
		for ; i < n && len(buf)-pos >= 8; i++ {
			h, k := lebWord(binary.LittleEndian.Uint64(buf[pos:]))
			if k == 0 {
				break // longer than 8 bytes: uleb below decodes it
			}
			pos += k
			ids.add(h)
		}
		in.pos += pos
		if i < n {
			h, err := in.uleb("identity hash code")
			if err != nil {
				return err
			}
			ids.add(h)
			i++
		}
	}
	ids.flush()
	padStart := in.offset()
	for !in.atEOF() {
		// No further than the padding allowed, so that which of the two
		// errors below comes first is the file's, not the buffer's.
		zeros := in.buf[in.pos:min(in.end, in.pos+int(dartir.ExportChunk-p.d.Padding))]
		for k, c := range zeros {
			if c != 0 {
				return in.errorf(in.offset()+int64(k), "byte 0x%02x after the identity hash codes (only zero padding may follow them)", c)
			}
		}
		p.d.Padding += uint64(len(zeros))
		in.pos += len(zeros)
		if p.d.Padding >= dartir.ExportChunk {
			// DevTools pads to the next multiple of its chunk size only.
			return in.errorf(padStart+dartir.ExportChunk-1, "%d or more zero bytes after the identity hash codes (DevTools pads exports with fewer than %d)", dartir.ExportChunk, dartir.ExportChunk)
		}
	}
	if in.err != nil {
		return in.err
	}
	return nil
}

// batch collects values for a column (Uints.Append checks the width of
// every value): while they fit in 32 bits, in a slice the column takes
// whole when flushed; after one that does not, in batches for AppendAll.
type batch struct {
	dst  *ir.Uints
	u32  []uint32 // the values not flushed yet, while all fit
	wide []uint64 // after one did not; nil until then
}

// newBatch returns a batch for dst with room for n values.
func newBatch(dst *ir.Uints, n int) *batch {
	return &batch{dst: dst, u32: slicesx.MakeUncleared[uint32](0, n)}
}

func (b *batch) add(v uint64) {
	if v > math.MaxUint32 || b.wide != nil {
		b.addWide(v)
		return
	}
	b.u32 = append(b.u32, uint32(v))
}

func (b *batch) addWide(v uint64) {
	if b.wide == nil {
		b.flush()
		b.wide = make([]uint64, 0, 4096)
	}
	if len(b.wide) == cap(b.wide) {
		b.flush()
	}
	b.wide = append(b.wide, v)
}

// flush moves the values collected to the column.
func (b *batch) flush() {
	if b.wide != nil {
		b.dst.AppendAll(b.wide)
		b.wide = b.wide[:0]
		return
	}
	b.dst.AppendAll32(b.u32)
	b.u32 = nil // the column may have taken it
}

// reset empties the batch and the column.
func (b *batch) reset() {
	*b.dst = ir.Uints{}
	b.u32, b.wide = b.u32[:0], nil
}

// describe names the generation of the file for FormatVersion.
func (p *parser) describe() string {
	c := &p.f.Classes
	name := func(k int) string {
		if k < c.Len() {
			return p.strs.Strings[c.Name[k]]
		}
		return ""
	}
	var layout string
	switch {
	case name(0) == dartir.RootClass && name(1) == "Read-Only Pages" && name(2) == "Isolate":
		layout = "VM 2022+ layout (Root, Read-Only Pages and Isolate classes)"
	case p.s.Nodes.Len() > 0 && p.s.Nodes.Class[0] == 0:
		layout = "VM 2019-2021 layout (root of class 0)"
	default:
		layout = "VM layout"
	}
	hashes := "without identity hash codes (VM before 2021)"
	if p.d.IdentityHashes {
		hashes = "with identity hash codes"
	}
	s := "dartheap, " + layout + ", " + hashes
	if p.isExport() {
		s += fmt.Sprintf(", DevTools export (no object data, no external properties, padded with %d zero bytes)", p.d.Padding)
	}
	return s
}

// isExport reports whether the file looks like DevTools' re-serialization:
// zero padding, or no object data, no external properties and field flags 0
// where the VM writes 1.
func (p *parser) isExport() bool {
	if p.d.Padding > 0 {
		return true
	}
	if len(p.s.Values.Node) > 0 || len(p.d.ExternalNode) > 0 || !p.d.IdentityHashes || p.d.FieldFlags.Len() == 0 {
		return false
	}
	return p.d.FieldFlags.Max() == 0
}
