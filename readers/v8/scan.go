package v8

import (
	"encoding/binary"
	"io"
	"math/bits"
	"unsafe"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
)

// scanner reads a JSON byte stream through a large buffer and knows the file
// offset of every byte, so that errors can name it.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int   // next byte in buf
	end  int   // bytes valid in buf
	base int64 // file offset of buf[0]
	eof  bool
	err  error // read error other than EOF

	// ws counts white-space bytes seen by skipWS, by kind, for the layout check.
	wsNewline, wsOther int64

	// batch is the buffer index where the last batch of numbers began; fill
	// keeps the bytes from there on, so that valueOffset can find any value
	// of the batch however the input arrives. curPos/curK is a cursor into
	// the batch (value curK starts at curPos) that makes successive lookups
	// of increasing values cost one pass over the batch in all.
	batch        int
	curPos, curK int

	// slab holds string bytes; strings point into it (see str). Slabs
	// start small and grow to 1 MiB.
	slab     []byte
	slabSize int
}

const bufSize = 4 << 20

// newScanner returns a scanner for r; size is the input's size when known
// (0 otherwise), so that small inputs get small buffers.
func newScanner(r io.Reader, size int64) *scanner {
	n := bufSize
	if size > 0 {
		n = int(min(max(size+64, 4<<10), bufSize))
	}
	// One spare byte past the buffer holds a sentinel (see fill).
	return &scanner{r: r, buf: make([]byte, n, n+1), batch: -1, slabSize: 16 << 10}
}

// offset returns the file offset of the next byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fill moves the unread bytes to the front of the buffer and reads more. It
// returns false when no more bytes can come.
func (s *scanner) fill() bool {
	if s.eof {
		return false
	}
	from := s.pos
	if s.batch >= 0 {
		from = min(from, s.batch)
	}
	if from > 0 {
		n := copy(s.buf, s.buf[from:s.end])
		s.base += int64(from)
		s.batch -= from
		s.curPos -= from
		s.pos -= from
		s.end = n
	}
	if s.end == len(s.buf) {
		// A single token larger than the buffer (a long string): grow.
		nb := make([]byte, 2*len(s.buf), 2*len(s.buf)+1)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	// The byte after the data is always a non-digit, so digit loops stop at
	// the end of the data without a bounds test of their own.
	defer func() { s.buf[:s.end+1][s.end] = 0 }()
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

func (s *scanner) errorf(format string, args ...any) error {
	if s.err != nil {
		// What the input's reader said, kept as the cause: damage to a
		// compressed file's data is the error to report (and a cut-short
		// one is ir.ErrTruncated).
		e := ir.Errorf(v8ir.Format, s.offset(), "read error: %v", s.err)
		e.Err = s.err
		return e
	}
	return ir.Errorf(v8ir.Format, s.offset(), format, args...)
}

// eofErrorf is errorf for input that ends where more was needed.
func (s *scanner) eofErrorf(format string, args ...any) error {
	if s.err != nil {
		return s.errorf(format, args...)
	}
	return ir.Truncated(v8ir.Format, s.offset(), format, args...)
}

// ensure reads until n bytes are buffered or the input ends; it reports
// whether n bytes are there.
func (s *scanner) ensure(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// peek returns the next byte without consuming it; ok is false at EOF.
func (s *scanner) peek() (byte, bool) {
	if s.pos >= s.end && !s.fill() {
		return 0, false
	}
	return s.buf[s.pos], true
}

// skipWS skips JSON white space and counts it.
func (s *scanner) skipWS() {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case '\n':
				s.wsNewline++
			case ' ', '\t', '\r':
				s.wsOther++
			default:
				return
			}
			s.pos++
		}
		if !s.fill() {
			return
		}
	}
}

// expect skips white space and consumes byte c.
func (s *scanner) expect(c byte) error {
	s.skipWS()
	b, ok := s.peek()
	if !ok {
		return s.eofErrorf("unexpected end of file, expected %q", c)
	}
	if b != c {
		return s.errorf("expected %q, found %q", c, b)
	}
	s.pos++
	return nil
}

// escapeStats records how a file escapes strings, to tell V8's style apart.
type escapeStats struct {
	rawNonASCII bool // raw UTF-8 bytes ≥ 0x80
	nonV8       bool // an escape V8 would not write (lowercase hex, \/, escaped printable ASCII)
}

// str reads a JSON string (the opening quote is next) and returns it as
// WTF-8. The bytes live in the scanner's slab, so the returned string stays
// valid and costs no allocation of its own.
func (s *scanner) str(es *escapeStats) (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	return s.strBody(es)
}

// strBody is str after the opening quote.
func (s *scanner) strBody(es *escapeStats) (string, error) {
	start := len(s.slab)
	if cap(s.slab)-start < 256 {
		s.newSlab(256)
		start = 0
	}
	for {
		// Copy the run of plain bytes.
		i, nonASCII := plainRun(s.buf[:s.end], s.pos)
		if nonASCII {
			es.rawNonASCII = true
		}
		s.appendSlab(s.buf[s.pos:i], &start)
		s.pos = i
		if s.pos >= s.end {
			if !s.fill() {
				return "", s.eofErrorf("unexpected end of file inside a string")
			}
			continue
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			b := s.slab[start:len(s.slab)]
			if len(b) == 0 {
				return "", nil
			}
			return unsafe.String(&b[0], len(b)), nil
		case c < 0x20:
			return "", s.errorf("control character 0x%02x inside a string", c)
		}
		// Backslash escape: make sure the whole escape (and a second one,
		// for a surrogate pair) is buffered.
		s.ensure(12)
		if s.end-s.pos < 2 {
			return "", s.eofErrorf("unexpected end of file inside a string")
		}
		e := s.buf[s.pos+1]
		var out byte
		switch e {
		case '"', '\\':
			out = e
		case '/':
			out = '/'
			es.nonV8 = true
		case 'b':
			out = '\b'
		case 'f':
			out = '\f'
		case 'n':
			out = '\n'
		case 'r':
			out = '\r'
		case 't':
			out = '\t'
		case 'u':
			if s.end-s.pos < 6 {
				return "", s.eofErrorf("unexpected end of file inside a \\u escape")
			}
			r, upper, ok := hex4(s.buf[s.pos+2 : s.pos+6])
			if !ok {
				return "", s.errorf("bad \\u escape")
			}
			if !upper {
				es.nonV8 = true
			}
			s.pos += 6
			if r >= 0xD800 && r < 0xDC00 && s.end-s.pos >= 6 && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
				if r2, _, ok := hex4(s.buf[s.pos+2 : s.pos+6]); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					// A surrogate pair (other producers; V8 never writes one).
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					s.pos += 6
				}
			}
			if !v8ir.EscapesAsU(r) {
				es.nonV8 = true // V8 writes these characters plainly or with a short escape
			}
			var tmp [4]byte
			s.appendSlab(ir.AppendWTF8(tmp[:0], r), &start)
			continue
		default:
			return "", s.errorf("bad escape \\%c", e)
		}
		s.pos += 2
		s.appendSlab([]byte{out}, &start)
	}
}

// plainRun returns the index of the first byte of b from i on that ends a
// run of a JSON string's plain bytes (a quote, a backslash or a control
// character), or len(b), and whether the run holds a byte of 0x80 or more.
// It looks at 8 bytes a step.
func plainRun(b []byte, i int) (int, bool) {
	const ones = 0x0101010101010101
	var high uint64
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte's high bit is set in stop when it is a quote or a
		// backslash (w^c has a zero byte there) or below 0x20. A borrow
		// can set bits only above a byte that stops the run, so the
		// lowest bit set is the first such byte.
		q, bs := w^(0x22*ones), w^(0x5C*ones)
		stop := ((q - ones) &^ q) | ((bs - ones) &^ bs) | ((w - 0x20*ones) &^ w)
		stop &= 0x80 * ones
		if stop != 0 {
			high |= w & (stop&-stop - 1) // the bytes before the first
			return i + bits.TrailingZeros64(stop)>>3, high&(0x80*ones) != 0
		}
		high |= w
	}
	nonASCII := high&(0x80*ones) != 0
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c >= 0x80 {
			nonASCII = true
		}
	}
	return i, nonASCII
}

// appendSlab appends b to the string being built at slab[*start:], moving
// that string to a fresh slab when the current one is full.
func (s *scanner) appendSlab(b []byte, start *int) {
	if len(s.slab)+len(b) > cap(s.slab) {
		cur := s.slab[*start:]
		s.newSlab(len(cur) + len(b))
		s.slab = append(s.slab, cur...)
		*start = 0
	}
	s.slab = append(s.slab, b...)
}

// newSlab starts a new slab with room for at least n bytes. Strings already
// handed out keep pointing into the old one.
func (s *scanner) newSlab(n int) {
	s.slab = make([]byte, 0, max(n*2, s.slabSize))
	s.slabSize = min(2*s.slabSize, 1<<20)
}

func hex4(b []byte) (r rune, upper, ok bool) {
	if len(b) < 4 {
		return 0, false, false
	}
	upper = true
	for _, c := range b[:4] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
			upper = false
		default:
			return 0, false, false
		}
		r = r<<4 | rune(v)
	}
	return r, upper, true
}
