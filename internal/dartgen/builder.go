package dartgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unicode/utf16"
)

// segment is the part of the file an object is written in. Objects are
// created in any order; finalize orders them by segment, then by creation.
type segment uint8

const (
	segRoot  segment = iota // Root, Read-Only Pages, the Isolate objects
	segVM                   // VM isolate heap (shallow size written as 0)
	segNew                  // isolate group heap: new space
	segOld                  // old space
	segImage                // image (read-only) pages, also referenced by object 2
	numSegments
)

const (
	// smiRef marks a reference slot holding a Smi: the low bits index
	// builder.smiVals. Real ids are assigned in finalize, in order of
	// first reference in the file.
	smiRef = uint32(1) << 31
	// refsUnset marks an object whose references were not set yet.
	refsUnset = ^uint32(0)
	// maxStringUnits is kMaxStringElements: strings are written truncated.
	maxStringUnits = 128
	// smiMin and smiMax bound Smis on a 64-bit VM without compressed
	// pointers (63-bit two's complement).
	smiMin = -(int64(1) << 62)
	smiMax = int64(1)<<62 - 1
)

// strRec is a string payload: full length in code units and the truncated
// code units stored at off in builder.lat (Latin-1) or builder.u16 (UTF-16).
type strRec struct {
	full uint32
	off  uint32
	n    uint32
}

// extRec is an external property (object is a build index until finalize).
type extRec struct {
	object uint32
	size   uint64
	name   uint32 // index into names
}

// builder holds objects by build index (1-origin; 0 is "no object").
// Per-object columns instead of structs keep a million objects cheap.
type builder struct {
	cat *catalog
	rng *rand.Rand

	seg    []segment
	cls    []uint32
	size   []uint32
	tag    []DataTag
	val    []int64 // tag payload: bool, int, float bits, length, strs or names index
	hash   []uint32
	refOff []uint32
	refLen []uint32
	refs   []uint32 // build indices, smiRef|k, or 0 for an unboxed slot

	smiSmall [4096]uint32     // Smi values 0..4095 -> k+1
	smiK     map[int64]uint32 // other Smi values -> k
	smiVals  []int64

	lat   []byte
	u16   []uint16
	strs  []strRec
	names []string
	nameK map[string]uint32
	ext   []extRec

	segCount [numSegments]int
}

func newBuilder(cat *catalog, rng *rand.Rand, capacity int) *builder {
	b := &builder{cat: cat, rng: rng, smiK: map[int64]uint32{}, nameK: map[string]uint32{}}
	b.seg = make([]segment, 1, capacity)
	b.cls = make([]uint32, 1, capacity)
	b.size = make([]uint32, 1, capacity)
	b.tag = make([]DataTag, 1, capacity)
	b.val = make([]int64, 1, capacity)
	b.hash = make([]uint32, 1, capacity)
	b.refOff = make([]uint32, 1, capacity)
	b.refLen = make([]uint32, 1, capacity)
	b.refs = make([]uint32, 0, capacity*4)
	return b
}

// count is the number of objects created so far.
func (b *builder) count() int { return len(b.cls) - 1 }

// alloc creates an object and returns its build index. Its references must
// be set exactly once with setRefs (objects without references too).
func (b *builder) alloc(seg segment, cls int, size int, tag DataTag, val int64) uint32 {
	if seg == segVM || seg == segRoot {
		size = 0 // fake objects and VM-isolate objects are written with size 0
	}
	var h uint32
	if seg != segRoot && !b.cat.info(cls).noHash {
		h = 1 + uint32(b.rng.IntN(1<<30-1)) // non-zero, Smi-valid on every target
	}
	b.seg = append(b.seg, seg)
	b.cls = append(b.cls, uint32(cls))
	b.size = append(b.size, uint32(size))
	b.tag = append(b.tag, tag)
	b.val = append(b.val, val)
	b.hash = append(b.hash, h)
	b.refOff = append(b.refOff, refsUnset)
	b.refLen = append(b.refLen, 0)
	b.segCount[seg]++
	return uint32(len(b.cls) - 1)
}

// setRefs sets the references of object o.
func (b *builder) setRefs(o uint32, refs ...uint32) {
	if b.refOff[o] != refsUnset {
		panic(fmt.Sprintf("dartgen: references of object %d set twice", o))
	}
	b.refOff[o] = uint32(len(b.refs))
	b.refLen[o] = uint32(len(refs))
	b.refs = append(b.refs, refs...)
}

// leaf creates an object without references.
func (b *builder) leaf(seg segment, cls int, size int, tag DataTag, val int64) uint32 {
	o := b.alloc(seg, cls, size, tag, val)
	b.setRefs(o)
	return o
}

// inst creates an instance of a class whose slots are all described by its
// fields (Dart classes and fixed-size VM objects): vals are the slot
// contents in field order, 0 exactly for the unboxed slots. The shallow size
// is header + one word per slot, rounded to the object alignment.
func (b *builder) inst(seg segment, cls int, vals ...uint32) uint32 {
	ci := b.cat.info(cls)
	b.checkSlots(ci, vals)
	o := b.alloc(seg, cls, instSize(len(vals)), NoData, 0)
	b.setRefs(o, vals...)
	return o
}

// instSized is inst with an explicit size and data (VM objects with
// non-pointer fields such as Function or Code).
func (b *builder) instSized(seg segment, cls, size int, tag DataTag, val int64, vals ...uint32) uint32 {
	b.checkSlots(b.cat.info(cls), vals)
	o := b.alloc(seg, cls, size, tag, val)
	b.setRefs(o, vals...)
	return o
}

// setSlots sets the references of an object allocated with alloc whose
// slots are all described by its class's fields (checked like inst).
func (b *builder) setSlots(o uint32, vals ...uint32) {
	b.checkSlots(b.cat.info(int(b.cls[o])), vals)
	b.setRefs(o, vals...)
}

func (b *builder) checkSlots(ci *classInfo, vals []uint32) {
	if len(vals) != len(ci.fields) {
		panic(fmt.Sprintf("dartgen: %s has %d fields, got %d values", ci.name, len(ci.fields), len(vals)))
	}
	for i, v := range vals {
		if (v == 0) != ci.unboxed[i] {
			panic(fmt.Sprintf("dartgen: %s.%s: unboxed=%v but value %d", ci.name, ci.fields[i], ci.unboxed[i], v))
		}
	}
}

// smi returns a reference to the Smi object for v.
func (b *builder) smi(v int64) uint32 {
	if v < smiMin || v > smiMax {
		panic(fmt.Sprintf("dartgen: %d is not a Smi", v))
	}
	if v >= 0 && v < int64(len(b.smiSmall)) {
		if k := b.smiSmall[v]; k != 0 {
			return smiRef | (k - 1)
		}
		k := uint32(len(b.smiVals))
		b.smiVals = append(b.smiVals, v)
		b.smiSmall[v] = k + 1
		return smiRef | k
	}
	k, ok := b.smiK[v]
	if !ok {
		k = uint32(len(b.smiVals))
		b.smiVals = append(b.smiVals, v)
		b.smiK[v] = k
	}
	return smiRef | k
}

// name interns a NameData / external-property name.
func (b *builder) name(s string) int64 {
	k, ok := b.nameK[s]
	if !ok {
		k = uint32(len(b.names))
		b.names = append(b.names, s)
		b.nameK[s] = k
	}
	return int64(k)
}

// named creates an object with NameData.
func (b *builder) named(seg segment, cls, size int, name string) uint32 {
	return b.alloc(seg, cls, size, NameData, b.name(name))
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// instSize is the heap size of an instance with n word-sized slots.
func instSize(n int) int { return roundUp(8+8*n, 16) }

// arraySize is the heap size of a _List/_ImmutableList of n elements
// (header, type_arguments_, length_, elements).
func arraySize(n int) int { return roundUp(24+8*n, 16) }

// typedSize is the heap size of an internal typed-data object.
func typedSize(bytes int) int { return roundUp(24+bytes, 16) }

// latin1 creates a _OneByteString from Latin-1 code units.
func (b *builder) latin1(seg segment, units []byte) uint32 {
	return b.latin1As(seg, b.cat.oneByte, roundUp(16+len(units), 16), units)
}

// latin1As creates a one-byte string object of class cls (internal or
// external): Latin1StringData and a length_ slot.
func (b *builder) latin1As(seg segment, cls, size int, units []byte) uint32 {
	n := min(len(units), maxStringUnits)
	k := len(b.strs)
	b.strs = append(b.strs, strRec{full: uint32(len(units)), off: uint32(len(b.lat)), n: uint32(n)})
	b.lat = append(b.lat, units[:n]...)
	o := b.alloc(seg, cls, size, Latin1StringData, int64(k))
	b.setRefs(o, b.smi(int64(len(units))))
	return o
}

// utf16 creates a _TwoByteString from UTF-16 code units (which may hold
// unpaired surrogates).
func (b *builder) utf16(seg segment, units []uint16) uint32 {
	return b.utf16As(seg, b.cat.twoByte, roundUp(16+2*len(units), 16), units)
}

// utf16As creates a two-byte string object of class cls (internal or
// external): Utf16StringData and a length_ slot.
func (b *builder) utf16As(seg segment, cls, size int, units []uint16) uint32 {
	n := min(len(units), maxStringUnits)
	k := len(b.strs)
	b.strs = append(b.strs, strRec{full: uint32(len(units)), off: uint32(len(b.u16)), n: uint32(n)})
	b.u16 = append(b.u16, units[:n]...)
	o := b.alloc(seg, cls, size, Utf16StringData, int64(k))
	b.setRefs(o, b.smi(int64(len(units))))
	return o
}

// str creates the string s the way the VM represents it: one-byte when
// every code point is below 256, two-byte otherwise.
func (b *builder) str(seg segment, s string) uint32 {
	latin := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			latin = false
			break
		}
	}
	if latin {
		return b.latin1(seg, []byte(s))
	}
	rs := []rune(s)
	units := make([]byte, 0, len(rs))
	for _, r := range rs {
		if r > 0xff {
			return b.utf16(seg, utf16.Encode(rs))
		}
		units = append(units, byte(r))
	}
	return b.latin1(seg, units)
}

// mint creates a boxed 64-bit integer outside the Smi range.
func (b *builder) mint(seg segment, v int64) uint32 {
	if v >= smiMin && v <= smiMax {
		panic(fmt.Sprintf("dartgen: %d fits a Smi, the VM never boxes it", v))
	}
	return b.leaf(seg, b.cat.mint, 16, IntData, v)
}

// integer returns a reference to v as the VM holds it: Smi or Mint.
func (b *builder) integer(seg segment, v int64) uint32 {
	if v >= smiMin && v <= smiMax {
		return b.smi(v)
	}
	return b.mint(seg, v)
}

// double creates a boxed double.
func (b *builder) double(seg segment, f float64) uint32 {
	return b.leaf(seg, b.cat.double, 16, DoubleData, int64(math.Float64bits(f)))
}
