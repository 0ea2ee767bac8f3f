package fuchsia

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// A minimal protocol-buffer decoder for profile.proto: the reader decodes
// straight into IR columns, without the per-sample objects and label maps
// of github.com/google/pprof/profile (which takes 2.5 s for a million
// samples on its own).

var errTruncated = errors.New("truncated field")

// pbuf walks the fields of one message: data[pos:end]. base is the offset
// of data[0] in the decompressed profile, for errors.
type pbuf struct {
	data     []byte
	pos, end int
}

// varint decodes a varint at pos.
func (b *pbuf) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if b.pos >= b.end {
			return 0, errTruncated
		}
		c := b.data[b.pos]
		b.pos++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if shift == 63 && c > 1 {
				return 0, errors.New("varint overflows 64 bits")
			}
			return v, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

// field reads the next field's key and, for length-delimited fields, the
// payload's bounds; for the others it decodes the value (fixed-size values
// too) into v.
func (b *pbuf) field() (num int, wt int, v uint64, start, end int, err error) {
	key, err := b.varint()
	if err != nil {
		return 0, 0, 0, 0, 0, err
	}
	num, wt = int(key>>3), int(key&7)
	if num == 0 || key>>3 > 1<<29 {
		return 0, 0, 0, 0, 0, errors.New("invalid field number")
	}
	switch wt {
	case fuchsiair.WireVarint:
		v, err = b.varint()
	case fuchsiair.WireFixed64:
		if b.end-b.pos < 8 {
			return 0, 0, 0, 0, 0, errTruncated
		}
		v = binary.LittleEndian.Uint64(b.data[b.pos:])
		b.pos += 8
	case fuchsiair.WireFixed32:
		if b.end-b.pos < 4 {
			return 0, 0, 0, 0, 0, errTruncated
		}
		v = uint64(binary.LittleEndian.Uint32(b.data[b.pos:]))
		b.pos += 4
	case fuchsiair.WireBytes:
		var n uint64
		n, err = b.varint()
		if err == nil && n > uint64(b.end-b.pos) {
			err = errTruncated
		}
		if err == nil {
			start, end = b.pos, b.pos+int(n)
			b.pos = end
		}
	default:
		err = errors.New("unsupported wire type (groups)")
	}
	return num, wt, v, start, end, err
}

// repeated decodes a repeated integer field occurrence: one varint (or
// fixed value) already in v, or a packed run of varints in [start, end).
// With limit >= 0, more than limit integers in all are refused before dst
// grows.
func repeated(data []byte, wt int, v uint64, start, end int, dst []uint64, limit int) ([]uint64, error) {
	if wt != fuchsiair.WireBytes {
		if wt != fuchsiair.WireVarint {
			return dst, errors.New("integer field of a fixed-size wire type")
		}
		if limit >= 0 && len(dst) >= limit {
			return dst, fmt.Errorf("more than %d integers", limit)
		}
		return append(dst, v), nil
	}
	// Grow once: every varint ends with a byte below 0x80.
	n := 0
	for _, c := range data[start:end] {
		if c < 0x80 {
			n++
		}
	}
	if limit >= 0 && len(dst)+n > limit {
		return dst, fmt.Errorf("more than %d integers", limit)
	}
	dst = slices.Grow(dst, n)
	p := pbuf{data: data, pos: start, end: end}
	for p.pos < p.end {
		// Fast path for one-byte varints, the common case of small ids.
		if c := data[p.pos]; c < 0x80 {
			dst = append(dst, uint64(c))
			p.pos++
			continue
		}
		x, err := p.varint()
		if err != nil {
			return dst, err
		}
		dst = append(dst, x)
	}
	return dst, nil
}
