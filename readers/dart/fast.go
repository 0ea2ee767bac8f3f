package dart

import (
	"encoding/binary"
	"math"
	"math/bits"

	dartir "github.com/heapconv/heapconv/ir/dart"
)

// fastObjects decodes objects from i on, as objects does, while they are
// buffered whole and right. It keeps its place and the columns it appends
// to in local variables, not in the parser (a store and a load through a
// pointer for every number would lengthen the chain of dependent loads
// that each number's length already makes). It returns the number of the
// next object, and stop when objects must stop before it. When i < n and
// not stop, object i has been begun (stopBefore said to go on) but not
// decoded: object decodes it again from its start and words what is
// wrong with it. A reference that is not buffered or not right is left to
// refs, once the object's node is added.
func (p *parser) fastObjects(i, n uint64, stopAt int64) (next uint64, stop bool, err error) {
	in := p.in
	b := in.buf[:in.end]
	pos := in.pos
	nd, ed := &p.s.Nodes, &p.s.Edges
	kinds, names, classes, first := nd.Kind, nd.Name, nd.Class, nd.FirstEdge
	ekinds, enames, targets := ed.Kind, ed.Name, ed.Target
	sizes := p.sizes
	nc, total, size := uint64(len(p.classes)), p.n, in.size
	left := size - in.base            // the input's bytes from b[0] on, when its size is known
	simple := !p.second && stopAt < 0 // no per-object bookkeeping
objects:
	for ; i < n; i++ {
		if len(b)-pos < refillBelow && !in.eof {
			p.internPending() // before its bytes move
			in.pos = pos
			in.fill()
			b, pos, left = in.buf[:in.end], in.pos, size-in.base
		}
		if off := in.base + int64(pos); !simple && p.due(i, off, stopAt) {
			p.internPending() // a second half shows its strings at marks
			if stop = p.stopBefore(i, off, stopAt); stop {
				break
			}
		}

		// The header: class, shallow size and data tag.
		cls, pos1, ok := lebAt(b, pos)
		if !ok || cls > nc {
			break
		}
		shallow, pos1, ok := lebAt(b, pos1)
		if !ok {
			break
		}
		tag, pos1, ok := lebAt(b, pos1)
		if !ok || tag > dartir.NameData {
			break
		}
		info, name := p.classOf(i, cls)

		// The data, into a value added once the object is known whole.
		var bits, aux uint64
		var str []byte // a string's bytes, still to be interned
		switch tag {
		case dartir.NoData, dartir.NullData:
		case dartir.BoolData, dartir.LengthData:
			if bits, pos1, ok = lebAt(b, pos1); !ok {
				break objects
			}
		case dartir.IntData:
			k := lebLen(b, pos1)
			if k == 0 {
				break objects
			}
			var coding uint8
			if bits, coding, ok = classifyInt(b[pos1:pos1+k], info.intCoding); !ok {
				break objects
			}
			aux = uint64(coding)
			pos1 += k
		case dartir.DoubleData:
			if len(b)-pos1 < 8 {
				break objects
			}
			bits = binary.LittleEndian.Uint64(b[pos1:])
			pos1 += 8
		case dartir.Latin1Data, dartir.UTF16Data:
			var length, trunc uint64
			if length, pos1, ok = lebAt(b, pos1); !ok {
				break objects
			}
			if trunc, pos1, ok = lebAt(b, pos1); !ok || trunc > length {
				break objects
			}
			nb, unit := trunc, uint64(1)
			if tag == dartir.UTF16Data {
				nb, unit = 2*trunc, 2
			}
			// The careful path's checks, against the input's declared
			// size too (the bytes buffered may run past it), and the
			// buffer's.
			if trunc > math.MaxInt32/2 || (size > 0 && trunc > uint64(max(left-int64(pos1), 0))/unit) ||
				nb > uint64(len(b)-pos1) || (p.most > 0 && nb > p.most) {
				break objects
			}
			str = b[pos1 : pos1+int(nb)]
			pos1 += int(nb)
			if length != trunc {
				aux = length
			}
		default: // NameData: rare, left to object
			break objects
		}
		rc, pos1, ok := lebAt(b, pos1)
		if !ok {
			break
		}
		if rem := left - int64(pos1); (size > 0 && rc > uint64(max(rem, 0))) ||
			(p.most > 0 && rc > p.most) || uint64(len(targets))+rc > math.MaxUint32 {
			break
		}
		pos = pos1

		// The object is whole: add its node and value.
		kinds = append(kinds, uint8(tag))
		names = append(names, name)
		classes = append(classes, uint32(cls))
		sizes.add(shallow)
		if tag != dartir.NoData {
			text := tag == dartir.Latin1Data || tag == dartir.UTF16Data
			var hash uint64
			if text {
				// Interned at the next string (internPending): its
				// UTF-8 is the stored bytes, or in the text buffer
				// the pending string does not use.
				p.text ^= 1
				str = utf8Text(uint8(tag), str, &p.texts[p.text])
				hash = p.strs.Lookahead(str)
				p.internPending()
			}
			kind, _ := dartir.ValueKind(uint8(tag))
			p.addValue(uint32(i), kind, bits, aux)
			if text {
				p.pending = pendingString{true, str, hash, len(p.s.Values.Bits) - 1}
			}
		}

		// The references: their targets decoded in runs, their kinds and
		// names copied from the class's slots.
		j := uint64(0)
		for j < rc {
			var k int
			targets, pos, k = appendTargets(targets, b, pos, int(rc-j), total)
			if k > 0 {
				ekinds, enames = info.appendSlots(ekinds, enames, j, uint64(k))
				j += uint64(k)
			}
			if j == rc || pos >= len(b) || b[pos] != 0 {
				break // done, or refs decodes the rest
			}
			pos++ // a reference 0: no edge
			p.addZeroRef(uint32(i), uint32(j))
			j++
		}
		if j < rc {
			// refs decodes the rest, refilling the buffer or wording
			// what is wrong, on the parser's columns.
			p.internPending()
			in.pos = pos
			nd.Kind, nd.Name, nd.Class, nd.FirstEdge = kinds, names, classes, first
			ed.Kind, ed.Name, ed.Target = ekinds, enames, targets
			if err := p.refs(i, info, j, rc); err != nil {
				return i, false, err
			}
			kinds, names, classes, first = nd.Kind, nd.Name, nd.Class, nd.FirstEdge
			ekinds, enames, targets = ed.Kind, ed.Name, ed.Target
			b, pos, left = in.buf[:in.end], in.pos, size-in.base
			continue
		}
		first = append(first, uint32(len(targets)))
	}
	p.internPending()
	in.pos = pos
	nd.Kind, nd.Name, nd.Class, nd.FirstEdge = kinds, names, classes, first
	ed.Kind, ed.Name, ed.Target = ekinds, enames, targets
	return i, stop, nil
}

// pendingString is a string object's payload that the fast loop interns
// at the next string object, or before it leaves the buffered bytes:
// Interner.Lookahead has started loading the part of the string index it
// needs meanwhile, which misses the cache for most strings otherwise.
// Strings are still interned in object order.
type pendingString struct {
	waiting bool   // whether a string is pending (an empty one may be nil)
	b       []byte // in the input's buffer or a text buffer
	hash    uint64
	value   int // its value's index in Values
}

// internPending interns the pending string, if any, and sets its value.
func (p *parser) internPending() {
	if s := p.pending; s.waiting {
		p.s.Values.Bits[s.value] = uint64(p.strs.InternHashed(s.b, s.hash))
		p.pending = pendingString{}
	}
}

// appendTargets decodes up to n references from b[pos:] and appends each
// one's target node (the reference less 1) to dst. It stops before a
// reference that is 0, past total, longer than 4 bytes (an object id of
// 2^28 or more) or not all in b, and returns the new dst, the position
// after the last reference decoded, and how many it decoded. It is a
// function of its own so that its loop keeps everything in registers.
func appendTargets(dst []uint32, b []byte, pos, n int, total uint64) ([]uint32, int, int) {
	k := 0
	for ; k < n && pos+4 <= len(b); k++ {
		r := b[pos : pos+4 : pos+4]
		var ref uint64
		var w int
		switch {
		case r[0] < 0x80:
			ref, w = uint64(r[0]), 1
		case r[1] < 0x80:
			ref, w = uint64(r[0]&0x7F)|uint64(r[1])<<7, 2
		case r[2] < 0x80:
			ref, w = uint64(r[0]&0x7F)|uint64(r[1]&0x7F)<<7|uint64(r[2])<<14, 3
		case r[3] < 0x80:
			ref, w = uint64(r[0]&0x7F)|uint64(r[1]&0x7F)<<7|uint64(r[2]&0x7F)<<14|uint64(r[3])<<21, 4
		default:
			return dst, pos, k
		}
		if ref-1 >= total { // 0, or past the objects
			return dst, pos, k
		}
		pos += w
		dst = append(dst, uint32(ref-1))
	}
	return dst, pos, k
}

// slotBlock is how many slots' edge kinds and names appendSlots copies at
// once.
const slotBlock = 8

// appendSlots appends the kinds and names of the edges of reference slots
// j to j+k-1 of an object of class info.
func (info *classInfo) appendSlots(kinds []uint8, names []uint32, j, k uint64) ([]uint8, []uint32) {
	n := uint64(len(kinds))
	if j+k <= uint64(len(info.kinds)) && uint64(cap(kinds))-n >= k+slotBlock && uint64(cap(names))-n >= k+slotBlock && len(names) == len(kinds) {
		// Blocks of slotBlock, the last one's excess past the new
		// length, in the room the columns have (and the class's slots
		// have past their last): most objects have a few references,
		// which a block copies with two moves, and no loop.
		kk, nn := kinds[:cap(kinds)], names[:cap(names)]
		for x := uint64(0); x < k; x += slotBlock {
			*(*[slotBlock]uint8)(kk[n+x:]) = *(*[slotBlock]uint8)(info.kinds[j+x : j+x+slotBlock])
			// Two moves of 16 bytes: one of 32 is a call of memmove.
			ns := info.names[j+x : j+x+slotBlock]
			*(*[slotBlock / 2]uint32)(nn[n+x:]) = *(*[slotBlock / 2]uint32)(ns)
			*(*[slotBlock / 2]uint32)(nn[n+x+slotBlock/2:]) = *(*[slotBlock / 2]uint32)(ns[slotBlock/2:])
		}
		return kk[:n+k], nn[:n+k]
	}
	if j+k <= uint64(len(info.kinds)) {
		// Near the end of the room: one by one.
		ks, ns := info.kinds[j:j+k], info.names[j:j+k]
		ns = ns[:len(ks)]
		for x, ek := range ks {
			kinds, names = append(kinds, ek), append(names, ns[x])
		}
		return kinds, names
	}
	if dense := uint64(len(info.kinds)); len(info.sparse) == 0 && j+k > dense {
		// An array's elements after its fields: the slots past the
		// class's are elements, named by their index (edge says so).
		if j < dense {
			kinds, names = info.appendSlots(kinds, names, j, dense-j)
			j, k = dense, k-(dense-j)
		}
		for ; k > 0; j, k = j+1, k-1 {
			name := j
			if j >= uint64(info.nFields) {
				name = j - uint64(info.nFields)
			}
			kinds, names = append(kinds, dartir.Element), append(names, uint32(name))
		}
		return kinds, names
	}
	for ; k > 0; j, k = j+1, k-1 {
		ek, en := info.edge(int(j))
		kinds, names = append(kinds, ek), append(names, en)
	}
	return kinds, names
}

// lebAt decodes the unsigned LEB128 number at b[pos:]. It reports false
// when the number does not end within b or does not fit in 64 bits.
func lebAt(b []byte, pos int) (v uint64, next int, ok bool) {
	if pos < len(b) && b[pos] < 0x80 {
		return uint64(b[pos]), pos + 1, true
	}
	var shift uint
	for ; pos < len(b); pos++ {
		c := b[pos]
		if shift == 63 && c > 1 {
			return 0, 0, false
		}
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			return v, pos + 1, true
		}
		shift += 7
	}
	return 0, 0, false
}

// lebWord decodes the unsigned LEB128 number that starts the 8 bytes of
// x (little-endian), and returns it and its length, or length 0 when it is
// longer than 8 bytes. It has no branch on the bytes: identity hash codes
// are 1 to 5 bytes long at random, which a byte loop mispredicts.
func lebWord(x uint64) (v uint64, n int) {
	const high = 0x8080808080808080
	ends := ^x & high // the high bit clear: the last byte of a number
	if ends == 0 {
		return 0, 0
	}
	last := bits.TrailingZeros64(ends) // the last byte's high bit
	v = x & (2<<last - 1) &^ high
	// Pack the 7-bit groups: pairs of bytes, then of 16-bit halves, then
	// of 32-bit halves.
	v = v&0x007f007f007f007f | v&0x7f007f007f007f00>>1
	v = v&0x00003fff00003fff | v&0x3fff00003fff0000>>2
	v = v&0x000000000fffffff | v&0x0fffffff00000000>>4
	return v, last>>3 + 1
}

// minChain is the least number of values each chain of addTwoChains
// decodes for it to be worth starting.
const minChain = 1024

// addTwoChains adds the unsigned LEB128 numbers at the start of buf, at
// most most of them, decoding them in two chains: from buf's start, and
// from the first number that starts in the middle of the bytes it looks
// at. Each number's length depends on the last's, so one chain leaves the
// core waiting on every decode; two keep it busy (the identity hash codes
// are a million numbers of random length). It returns how many bytes it
// used and numbers it added: none when the numbers are too few, the
// values do not all fit in 32 bits or a number is longer than 8 bytes,
// which the caller then decodes one by one. Every number it decodes
// starts 8 bytes or more before buf's end, for lebWord.
func (b *batch) addTwoChains(buf []byte, most int) (used, added int) {
	// It looks at no more bytes than most: they hold most numbers at
	// most, and the second chain's values fit in the room for most
	// values after the first's (what follows the hash codes, DevTools'
	// padding, is zeros that decode as numbers too).
	end := min(len(buf)-7, most) // 7: where lebWord's load would pass buf's end
	n0 := len(b.u32)
	if b.wide != nil || most < 2*minChain || end < 4*minChain || cap(b.u32)-n0 < most {
		return 0, 0
	}
	// The second chain starts after the first number's end at or past
	// the middle: a byte below 0x80 ends a number.
	mid := end / 2
	for mid < end && buf[mid-1] >= 0x80 {
		mid++
	}
	// The first chain's values go at the start of the room, the second's
	// at its end until both are done: the first has at most mid, the
	// second at most end-mid.
	room := b.u32[n0 : n0+most]
	first, second := room[:mid], room[most-(end-mid):]
	a, c := 0, mid // where each chain is
	na, nc := 0, 0 // how many numbers each has decoded
	var or uint64  // all the values, to tell whether they fit
	for a < mid && c < end {
		va, ka := lebWord(binary.LittleEndian.Uint64(buf[a:]))
		vc, kc := lebWord(binary.LittleEndian.Uint64(buf[c:]))
		if ka == 0 || kc == 0 {
			break
		}
		or |= va | vc
		first[na], second[nc] = uint32(va), uint32(vc)
		a, c, na, nc = a+ka, c+kc, na+1, nc+1
	}
	// One chain ends first: the other goes on alone (written out twice:
	// a function for both was 10% slower).
	for a < mid {
		v, k := lebWord(binary.LittleEndian.Uint64(buf[a:]))
		if k == 0 {
			break
		}
		or |= v
		first[na] = uint32(v)
		a, na = a+k, na+1
	}
	for a == mid && c < end {
		v, k := lebWord(binary.LittleEndian.Uint64(buf[c:]))
		if k == 0 {
			break
		}
		or |= v
		second[nc] = uint32(v)
		c, nc = c+k, nc+1
	}
	if a != mid || or > math.MaxUint32 || nc < minChain {
		return 0, 0
	}
	copy(room[na:], second[:nc])
	b.u32 = b.u32[:n0+na+nc]
	return c, na + nc
}

// lebLen returns the length of the LEB128 number at b[pos:], or 0 when it
// does not end within b or within 10 bytes.
func lebLen(b []byte, pos int) int {
	for n := 1; n <= 10 && pos+n <= len(b); n++ {
		if b[pos+n-1] < 0x80 {
			return n
		}
	}
	return 0
}
