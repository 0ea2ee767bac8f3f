package dartgen

import "io"

// appendUleb appends v as unsigned LEB128 (7 bits per byte, low group first,
// high bit = more). A negative Smi reaches here as its 64-bit two's-complement
// pattern and takes ten bytes, the last being 0x01.
func appendUleb(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendSleb appends v as signed LEB128: groups are emitted until the rest
// is 0 or -1 and bit 6 of the last group agrees with the sign.
func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendUtf8 appends a Utf8String: uleb length, then the bytes.
func appendUtf8(b []byte, s string) []byte {
	b = appendUleb(b, uint64(len(s)))
	return append(b, s...)
}

// sink batches appended bytes and hands them to w in large writes.
type sink struct {
	w   io.Writer
	buf []byte
	n   int64
	err error
}

const sinkFlushAt = 1 << 16

func newSink(w io.Writer) *sink {
	return &sink{w: w, buf: make([]byte, 0, sinkFlushAt+4096)}
}

// maybeFlush writes the buffer out once it is large.
func (s *sink) maybeFlush() {
	if len(s.buf) >= sinkFlushAt {
		s.flush()
	}
}

func (s *sink) flush() {
	if s.err == nil && len(s.buf) > 0 {
		var m int
		m, s.err = s.w.Write(s.buf)
		s.n += int64(m)
	}
	s.buf = s.buf[:0]
}
