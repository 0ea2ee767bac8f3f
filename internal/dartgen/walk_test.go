package dartgen

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"

	dartir "github.com/heapconv/heapconv/ir/dart"
)

// This file holds a minimal dartheap parser written for the tests, straight
// from the layout in docs/formats/dart.md and sharing nothing with the
// generator's encoder: it reads every field, keeps the raw payload bytes of
// each object, and reports where it stopped.

type wField struct {
	flags, index    uint64
	name, reserved  string
	reservedPresent bool
}

type wClass struct {
	flags                           uint64
	name, libName, libURI, reserved string
	fields                          []wField
}

type wObject struct {
	class, size uint64
	tag         uint64
	payload     []byte // raw bytes after the tag
	refs        []uint64
}

type wExt struct {
	object, size uint64
	name         string
}

type walked struct {
	flags                       uint64
	name                        string
	shallow, capacity, external uint64
	classes                     []wClass
	refCount                    uint64
	objects                     []wObject // objects[0] is object id 1
	ext                         []wExt
	hashes                      []uint64 // nil when the section is absent
	end                         int      // offset after the last field read
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if r.off >= len(r.b) {
			r.fail("truncated leb128")
			return 0
		}
		c := r.b[r.off]
		r.off++
		if shift >= 64 || (shift == 63 && c&0x7f > 1) {
			r.fail("leb128 overflows 64 bits")
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

// skipLeb returns the raw bytes of one leb128 (either signedness).
func (r *reader) skipLeb() []byte {
	start := r.off
	for r.off < len(r.b) {
		c := r.b[r.off]
		r.off++
		if c&0x80 == 0 {
			return r.b[start:r.off]
		}
	}
	r.fail("truncated leb128")
	return nil
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)-r.off) {
		r.fail("want %d bytes, %d left", n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return out
}

func (r *reader) utf8() string { return string(r.bytes(r.uleb())) }

// walk parses a dartheap file. withHashes: 1 = must be present, 0 = must be
// absent (EOF after external properties), -1 = present iff bytes remain.
// After the hashes, a zero tail is accepted only when zeroTail is set.
func walk(b []byte, withHashes int, zeroTail bool) (*walked, error) {
	r := &reader{b: b}
	if !bytes.HasPrefix(b, []byte(dartir.Magic)) {
		return nil, errors.New("no dartheap magic")
	}
	r.off = 8
	w := &walked{}
	w.flags = r.uleb()
	w.name = r.utf8()
	w.shallow, w.capacity, w.external = r.uleb(), r.uleb(), r.uleb()
	nc := r.uleb()
	for i := uint64(0); i < nc && r.err == nil; i++ {
		c := wClass{flags: r.uleb(), name: r.utf8(), libName: r.utf8(), libURI: r.utf8(), reserved: r.utf8()}
		nf := r.uleb()
		for j := uint64(0); j < nf && r.err == nil; j++ {
			c.fields = append(c.fields, wField{flags: r.uleb(), index: r.uleb(), name: r.utf8(), reserved: r.utf8()})
		}
		w.classes = append(w.classes, c)
	}
	w.refCount = r.uleb()
	no := r.uleb()
	if no > uint64(len(b)) {
		return nil, fmt.Errorf("object count %d larger than the file", no)
	}
	w.objects = make([]wObject, 0, no)
	for i := uint64(0); i < no && r.err == nil; i++ {
		o := wObject{class: r.uleb(), size: r.uleb(), tag: r.uleb()}
		start := r.off
		switch o.tag {
		case 0, 1:
		case 2, 3, 7:
			r.skipLeb()
		case 4:
			r.bytes(8)
		case 5:
			r.uleb()
			r.bytes(r.uleb())
		case 6:
			r.uleb()
			r.bytes(2 * r.uleb())
		case 8:
			r.utf8()
		default:
			r.fail("object %d: unknown data tag %d", i+1, o.tag)
		}
		o.payload = b[start:r.off]
		n := r.uleb()
		if n > uint64(len(b)) {
			r.fail("object %d: reference count %d", i+1, n)
			break
		}
		o.refs = make([]uint64, n)
		for j := range o.refs {
			o.refs[j] = r.uleb()
		}
		w.objects = append(w.objects, o)
	}
	ne := r.uleb()
	for i := uint64(0); i < ne && r.err == nil; i++ {
		w.ext = append(w.ext, wExt{object: r.uleb(), size: r.uleb(), name: r.utf8()})
	}
	if r.err != nil {
		return nil, r.err
	}
	w.end = r.off
	if withHashes == 1 || (withHashes == -1 && r.off < len(b)) {
		w.hashes = make([]uint64, no)
		for i := range w.hashes {
			w.hashes[i] = r.uleb()
		}
		w.end = r.off
	}
	if r.err != nil {
		return nil, r.err
	}
	tail := b[w.end:]
	if len(tail) > 0 {
		if !zeroTail {
			return nil, fmt.Errorf("%d bytes after the last section", len(tail))
		}
		if i := slices.IndexFunc(tail, func(c byte) bool { return c != 0 }); i >= 0 {
			return nil, fmt.Errorf("non-zero byte in the padding at offset %d", w.end+i)
		}
	}
	return w, nil
}

// decodeUleb decodes raw unsigned LEB128 bytes.
func decodeUleb(b []byte) uint64 {
	v, _ := dartir.DecodeULEB(b)
	return v
}

// decodeData turns a walked object's payload into a Data (for comparison
// with Heap.Object). isSmi selects the Smi reading of IntData.
func decodeData(o wObject, isSmi bool) (Data, error) {
	d := Data{Tag: DataTag(o.tag)}
	r := &reader{b: o.payload}
	switch d.Tag {
	case BoolData, LengthData:
		d.Int = int64(r.uleb())
	case IntData:
		if isSmi {
			d.Int = int64(decodeUleb(o.payload))
		} else {
			d.Int = dartir.DecodeSLEB(o.payload)
		}
	case DoubleData:
		var u uint64
		for i := 7; i >= 0; i-- {
			u = u<<8 | uint64(o.payload[i])
		}
		d.Float = math.Float64frombits(u)
	case Latin1StringData:
		d.Length = int(r.uleb())
		d.Latin1 = r.bytes(r.uleb())
	case Utf16StringData:
		d.Length = int(r.uleb())
		raw := r.bytes(2 * r.uleb())
		for i := 0; i+1 < len(raw); i += 2 {
			d.UTF16 = append(d.UTF16, uint16(raw[i])|uint16(raw[i+1])<<8)
		}
	case NameData:
		d.Name = r.utf8()
	}
	return d, r.err
}
