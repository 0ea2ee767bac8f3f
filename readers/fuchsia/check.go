package fuchsia

import (
	"errors"
	"fmt"
	"math"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// profileCheck checks, as a gzipped profile is decompressed, that the bytes
// so far can begin a profile the decoder accepts: every field of the
// Profile message and of the messages inside it (down to labels and lines)
// has a well-formed key, a field number and wire type the decoder allows,
// and a length that fits the message around it; singular fields occur
// once; samples have at least two values; mappings, locations and
// functions have an id. So a gzip bomb that is not a profile (zeros,
// repeated junk, a repeated field a profile has once, a field claiming
// gigabytes of a sample and then holding zeros) is refused soon after its
// first bytes that break the rules, rather than once decompressed whole.
// What it cannot refuse is well-formed: a string of any bytes, a packed
// run of integers, many samples; those cost what their bytes do.
//
// It refuses nothing the decoder would accept: each rule is one of the
// decoder's, applied early (TestCheckRefusesOnlyWhatTheDecoderDoes). The
// decoder still checks everything itself.
type profileCheck struct {
	pos    int     // next byte to check; past the data while a string is skipped
	stack  []frame // the open messages, the Profile first
	single uint32  // bit n: the singular Profile field n has been seen
	strs   int     // string_table entries seen
}

// msgKind names a message of profile.proto, or a packed run of varints.
type msgKind uint8

const (
	kindProfile msgKind = iota
	kindValueType
	kindSample
	kindLabel
	kindMapping
	kindLocation
	kindLine
	kindFunction
	kindPacked
)

var kindNames = [...]string{"profile", "value type", "sample", "label", "mapping", "location", "line", "function", "packed integers"}

// frame is one open length-delimited field being checked.
type frame struct {
	kind       msgKind
	field      int // the field number it is in its parent
	start, end int // its payload's bounds in the decompressed data
	id         uint64
	n          int // values of a sample; varints of a packed run
}

// Field types, for fieldType.
const (
	typeAny   = iota // an unknown field of a message: skipped as the decoder does
	typeNone         // not a field of the Profile message
	typeInt          // a varint
	typeInts         // varints, one per field or packed
	typeBytes        // a string, not looked into
	typeMsg          // a message of the kind fieldType returns
)

// fieldType says what field num of a message of kind k must hold, as the
// decoder reads it.
func fieldType(k msgKind, num uint64) (int, msgKind) {
	switch k {
	case kindProfile:
		switch num {
		case fuchsiair.ProfileSampleType, fuchsiair.ProfilePeriodType:
			return typeMsg, kindValueType
		case fuchsiair.ProfileSample:
			return typeMsg, kindSample
		case fuchsiair.ProfileMapping:
			return typeMsg, kindMapping
		case fuchsiair.ProfileLocation:
			return typeMsg, kindLocation
		case fuchsiair.ProfileFunction:
			return typeMsg, kindFunction
		case fuchsiair.ProfileStringTable:
			return typeBytes, 0
		case fuchsiair.ProfileDropFrames, fuchsiair.ProfileKeepFrames, fuchsiair.ProfileTimeNanos, fuchsiair.ProfileDurationNanos,
			fuchsiair.ProfilePeriod, fuchsiair.ProfileDefaultSampleType, fuchsiair.ProfileDocURL:
			return typeInt, 0
		case fuchsiair.ProfileComment:
			return typeInts, 0
		}
		return typeNone, 0
	case kindSample:
		switch num {
		case fuchsiair.SampleLocationID, fuchsiair.SampleValue:
			return typeInts, 0
		case fuchsiair.SampleLabel:
			return typeMsg, kindLabel
		}
	case kindLocation:
		if num == fuchsiair.LocationLine {
			return typeMsg, kindLine
		}
		if num <= fuchsiair.LocationIsFolded {
			return typeInt, 0
		}
	case kindValueType:
		if num <= fuchsiair.ValueTypeUnit {
			return typeInt, 0
		}
	case kindLine:
		if num <= fuchsiair.LineColumn {
			return typeInt, 0
		}
	case kindLabel:
		if num <= fuchsiair.LabelNumUnit {
			return typeInt, 0
		}
	case kindFunction:
		if num <= fuchsiair.FunctionStartLine {
			return typeInt, 0
		}
	case kindMapping:
		if num <= fuchsiair.MappingHasInlineFrames {
			return typeInt, 0
		}
	}
	return typeAny, 0
}

func newProfileCheck() *profileCheck {
	return &profileCheck{stack: []frame{{kind: kindProfile, end: math.MaxInt}}}
}

// errMore is uvarint's answer when the varint goes on past b.
var errMore = errors.New("more bytes needed")

// uvarint decodes a varint at the start of b as pbuf.varint does, or
// returns errMore when b ends inside it.
func uvarint(b []byte) (uint64, int, error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1, nil
	}
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, errMore
		}
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				return 0, 0, errors.New("varint overflows 64 bits")
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("varint longer than 10 bytes")
}

// feed checks what has arrived: data is everything decompressed so far
// (it only grows). An error's offset is in the decompressed data.
func (c *profileCheck) feed(data []byte) (int, error) {
	for {
		fr := &c.stack[len(c.stack)-1]
		if c.pos == fr.end {
			c.stack = c.stack[:len(c.stack)-1]
			if off, err := closeFrame(fr, &c.stack[len(c.stack)-1]); err != nil {
				return off, err
			}
			continue
		}
		if c.pos >= len(data) {
			return 0, nil
		}
		// A field must end within its message; the Profile ends with the
		// data, which has not all arrived.
		avail := min(fr.end, len(data))
		if fr.kind == kindPacked {
			n, more, off, err := packed(data, c.pos, avail, avail == fr.end)
			if err != nil {
				return off, err
			}
			fr.n += n
			c.pos = more
			if c.pos < avail {
				return 0, nil // a varint goes on past the data
			}
			continue
		}
		next, child, wait, off, err := c.field(data, c.pos, avail, avail == fr.end, fr)
		switch {
		case err != nil:
			return off, err
		case wait:
			return 0, nil
		case child.end == 0:
			c.pos = next
		case child.end <= len(data):
			// The whole of it is here: checked without the stack.
			if child, off, err = c.whole(data, child); err != nil {
				return off, err
			}
			if off, err := closeFrame(&child, fr); err != nil {
				return off, err
			}
			c.pos = child.end
		default:
			c.stack = append(c.stack, child)
			c.pos = child.start
		}
	}
}

// whole checks a message or packed run that has arrived whole, and
// returns it with its counts. (Frames go by value: a pointer into a
// recursive call's frame would put every one on the heap.)
func (c *profileCheck) whole(data []byte, fr frame) (frame, int, error) {
	if fr.kind == kindPacked {
		n, _, off, err := packed(data, fr.start, fr.end, true)
		fr.n += n
		return fr, off, err
	}
	for pos := fr.start; pos < fr.end; {
		next, child, _, off, err := c.field(data, pos, fr.end, true, &fr)
		if err != nil {
			return fr, off, err
		}
		if child.end != 0 {
			if child, off, err = c.whole(data, child); err != nil {
				return fr, off, err
			}
			if off, err := closeFrame(&child, &fr); err != nil {
				return fr, off, err
			}
			next = child.end
		}
		pos = next
	}
	return fr, 0, nil
}

// packed checks the varints of a packed run in data[pos:avail]: it returns
// how many are whole and where the first that is not starts (avail when
// all are). final says the run ends at avail.
func packed(data []byte, pos, avail int, final bool) (n, next, off int, err error) {
	start := pos // of the varint being read
	for i := pos; i < avail; i++ {
		c := data[i]
		if c < 0x80 {
			if i-start == 9 && c > 1 {
				return 0, 0, start, errors.New("packed integers: varint overflows 64 bits")
			}
			n++
			start = i + 1
		} else if i-start == 9 {
			return 0, 0, start, errors.New("packed integers: varint longer than 10 bytes")
		}
	}
	if final && start < avail {
		return 0, 0, start, errors.New("packed integers: a varint runs past the end of the field")
	}
	return n, start, 0, nil
}

// field checks the field at data[pos:], in message fr, of which the bytes
// up to avail have arrived (final: all of it). It returns where the next
// field starts, or wait when the field goes on past the data; a
// length-delimited field to look into is returned in child (end 0
// otherwise), to be checked from child.start.
func (c *profileCheck) field(data []byte, pos, avail int, final bool, fr *frame) (next int, child frame, wait bool, off int, err error) {
	more := func() (int, frame, bool, int, error) {
		if final {
			return 0, frame{}, false, pos, fmt.Errorf("%s: a field runs past the end of the %s", kindNames[fr.kind], kindNames[fr.kind])
		}
		return 0, frame{}, true, 0, nil
	}
	key, n, err := uvarint(data[pos:avail])
	if err == errMore {
		return more()
	} else if err != nil {
		return 0, frame{}, false, pos, fmt.Errorf("%s: %v", kindNames[fr.kind], err)
	}
	num, wt := key>>3, int(key&7)
	if num == 0 || num > 1<<29 {
		return 0, frame{}, false, pos, fmt.Errorf("%s: invalid field number", kindNames[fr.kind])
	}
	typ, sub := fieldType(fr.kind, num)
	switch {
	case wt != fuchsiair.WireVarint && wt != fuchsiair.WireFixed64 && wt != fuchsiair.WireBytes && wt != fuchsiair.WireFixed32:
		return 0, frame{}, false, pos, fmt.Errorf("%s field %d: wire type %d (groups or none)", kindNames[fr.kind], num, wt)
	case typ == typeNone:
		return 0, frame{}, false, pos, fmt.Errorf("profile field %d: not a field of profile.proto's Profile", num)
	case (typ == typeMsg || typ == typeBytes) && wt != fuchsiair.WireBytes:
		return 0, frame{}, false, pos, fmt.Errorf("%s field %d: wire type %d, not a message or string", kindNames[fr.kind], num, wt)
	case typ == typeInt && wt != fuchsiair.WireVarint:
		return 0, frame{}, false, pos, fmt.Errorf("%s field %d: wire type %d, not an integer", kindNames[fr.kind], num, wt)
	case typ == typeInts && wt != fuchsiair.WireVarint && wt != fuchsiair.WireBytes:
		return 0, frame{}, false, pos, fmt.Errorf("%s field %d: integers of a fixed-size wire type", kindNames[fr.kind], num)
	}
	p := pos + n
	switch wt {
	case fuchsiair.WireVarint:
		v, m, err := uvarint(data[p:avail])
		if err == errMore {
			return more()
		} else if err != nil {
			return 0, frame{}, false, pos, fmt.Errorf("%s field %d: %v", kindNames[fr.kind], num, err)
		}
		switch {
		// The id is field 1 of each (MappingID, LocationID, FunctionID).
		case num == fuchsiair.MappingID && (fr.kind == kindMapping || fr.kind == kindLocation || fr.kind == kindFunction):
			fr.id = v
		case num == fuchsiair.SampleValue && fr.kind == kindSample:
			fr.n++
		}
		next = p + m
	case fuchsiair.WireFixed64, fuchsiair.WireFixed32:
		w := 8
		if wt == fuchsiair.WireFixed32 {
			w = 4
		}
		if avail-p < w {
			return more()
		}
		next = p + w
	case fuchsiair.WireBytes:
		l, m, err := uvarint(data[p:avail])
		if err == errMore {
			return more()
		} else if err != nil {
			return 0, frame{}, false, pos, fmt.Errorf("%s field %d: %v", kindNames[fr.kind], num, err)
		}
		p += m
		if fr.kind == kindProfile {
			if l > math.MaxUint32-uint64(p) {
				return 0, frame{}, false, pos, fmt.Errorf("profile field %d of %d bytes: a profile holds at most 4 GiB", num, l)
			}
		} else if l > uint64(fr.end-p) {
			return 0, frame{}, false, pos, fmt.Errorf("%s field %d of %d bytes runs past the end of the %s", kindNames[fr.kind], num, l, kindNames[fr.kind])
		}
		next = p + int(l) // skipped, whether or not it has arrived, unless looked into
		switch typ {
		case typeMsg:
			child = frame{kind: sub, field: int(num), start: p, end: next}
		case typeInts:
			child = frame{kind: kindPacked, field: int(num), start: p, end: next}
		}
		if child.end == child.start {
			child.end = 0 // nothing to look into...
			if _, err := closeFrame(&child, fr); err != nil {
				return 0, frame{}, false, p, err // ...but an empty message may be wrong
			}
		}
		if fr.kind == kindProfile && num == fuchsiair.ProfileStringTable {
			if c.strs == 0 && l != 0 {
				return 0, frame{}, false, pos, errors.New(`string_table[0] must be ""`)
			}
			c.strs++
		}
	}
	// Only a whole field counts as seen.
	if fr.kind == kindProfile && fuchsiair.ProfileSingular&(1<<num) != 0 {
		if c.single&(1<<num) != 0 {
			return 0, frame{}, false, pos, fmt.Errorf("profile field %d occurs twice (it holds one value)", num)
		}
		c.single |= 1 << num
	}
	return next, child, false, 0, nil
}

// closeFrame checks what the decoder requires of a whole message fr, and
// adds a packed run's values to its sample.
func closeFrame(fr, parent *frame) (int, error) {
	switch fr.kind {
	case kindPacked:
		if parent.kind == kindSample && fr.field == fuchsiair.SampleValue {
			parent.n += fr.n
		}
	case kindSample:
		// The decoder wants a value per sample type, and at least two
		// sample types (objects/count and allocated/bytes).
		if fr.n < 2 {
			return fr.start, fmt.Errorf("sample has %d values: a heapdump profile has at least 2 sample types", fr.n)
		}
	case kindMapping, kindLocation, kindFunction:
		if fr.id == 0 {
			return fr.start, fmt.Errorf("%s with the reserved id 0", kindNames[fr.kind])
		}
	}
	return 0, nil
}
