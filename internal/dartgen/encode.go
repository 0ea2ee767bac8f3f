package dartgen

import "io"

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
