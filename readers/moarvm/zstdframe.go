package moarvm

import (
	"encoding/binary"
	"fmt"
)

// zstdMagic is the little-endian magic number of a zstd frame (RFC 8878).
const zstdMagic = 0xFD2FB528

// maxZstdBlock is the largest a zstd block's content may be.
const maxZstdBlock = 128 << 10

// frameEnd returns the offset just past the zstd frame that starts at off,
// reading only its headers: MoarVM writes no block lengths, so without a TOC
// the frame itself is the only way to find where a block ends. It fails
// when the frame is malformed or runs past limit.
func (r *reader) frameEnd(off, limit int64) (int64, error) {
	var hdr [18]byte // magic, descriptor, window, dictionary id, content size
	n := min(int64(len(hdr)), limit-off)
	if n < 6 {
		return 0, fmt.Errorf("zstd frame cut short")
	}
	if err := r.readAt(hdr[:n], off); err != nil {
		return 0, err
	}
	if binary.LittleEndian.Uint32(hdr[:]) != zstdMagic {
		return 0, fmt.Errorf("no zstd frame (magic %08x)", binary.LittleEndian.Uint32(hdr[:]))
	}
	fhd := hdr[4]
	if fhd&0x08 != 0 {
		return 0, fmt.Errorf("zstd frame header: reserved bit set")
	}
	single := fhd&0x20 != 0
	size := int64(5) // magic and descriptor
	if !single {
		size++ // window descriptor
	}
	size += [4]int64{0, 1, 2, 4}[fhd&3] // dictionary id
	switch fcs := fhd >> 6; {
	case fcs == 0 && single:
		size++
	case fcs > 0:
		size += [4]int64{0, 2, 4, 8}[fcs]
	}
	pos := off + size
	var bh [3]byte
	for {
		if limit-pos < 3 {
			return 0, fmt.Errorf("zstd frame cut short in a block header at offset %d", pos)
		}
		if err := r.readAt(bh[:], pos); err != nil {
			return 0, err
		}
		h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, bsize := h&1 != 0, (h>>1)&3, int64(h>>3)
		pos += 3
		switch typ {
		case 0, 2: // raw, compressed
			if bsize > maxZstdBlock {
				return 0, fmt.Errorf("zstd block of %d bytes at offset %d (at most %d)", bsize, pos-3, maxZstdBlock)
			}
			pos += bsize
		case 1: // RLE: one byte repeated
			pos++
		default:
			return 0, fmt.Errorf("zstd block of reserved type at offset %d", pos-3)
		}
		if pos > limit {
			return 0, fmt.Errorf("zstd frame cut short: a block runs past offset %d", limit)
		}
		if last {
			break
		}
	}
	if fhd&0x04 != 0 {
		pos += 4 // content checksum
		if pos > limit {
			return 0, fmt.Errorf("zstd frame cut short in its checksum")
		}
	}
	return pos, nil
}
