package dart

import (
	"io"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
)

// input is a buffered byte reader that knows the file offset of every byte,
// so that errors can name it.
type input struct {
	r        io.Reader
	buf      []byte
	pos, end int
	base     int64 // file offset of buf[0]
	eof      bool
	err      error // a read error other than io.EOF
	size     int64 // input size when known, else 0
	progress func(int64)
	reported int64
	// whole is set when buf is the whole input (ReadBytes): a fill
	// shows more of it (up to end), and moving it sets pos.
	whole bool
}

const bufSize = 1 << 20

func newInput(r io.Reader, size int64, progress func(int64)) *input {
	n := bufSize
	if size > 0 && size < int64(n) {
		n = int(size) + 16 // room for the look-ahead of uleb's fast path
	}
	return &input{r: r, buf: make([]byte, n), size: size, progress: progress}
}

// memory is an input held whole in memory, as an io.ReaderAt: the
// parsers of a split read make inputs over it with newInputAt, which
// share its bytes.
type memory []byte

func (m memory) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(b, m[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// window is how many more of a memory input's bytes each fill shows: the
// decoding loops stop at fills, which report the progress.
const window = bufSize

// newMemoryInput is an input over m, at offset off: its bytes are decoded
// where they are.
func newMemoryInput(m memory, off int64, progress func(int64)) *input {
	in := &input{buf: m, size: int64(len(m)), whole: true, progress: progress}
	in.show(off)
	return in
}

// show moves a memory input to offset off, with at least a window of
// bytes from there shown.
func (in *input) show(off int64) {
	in.pos = int(off)
	in.end = max(in.end, min(in.pos+window, len(in.buf)))
	in.eof = in.end == len(in.buf)
}

// offset returns the file offset of the next byte.
func (in *input) offset() int64 { return in.base + int64(in.pos) }

// fill moves the unread bytes to the front of the buffer and reads more. It
// returns false when nothing more can be read.
func (in *input) fill() bool {
	if in.eof {
		return false
	}
	if in.whole {
		in.end = min(in.end+window, len(in.buf))
		in.eof = in.end == len(in.buf)
		in.reportProgress()
		return in.end > in.pos
	}
	n := copy(in.buf, in.buf[in.pos:in.end])
	in.base += int64(in.pos)
	in.pos, in.end = 0, n
	for zeros := 0; in.end < len(in.buf); {
		k, err := in.r.Read(in.buf[in.end:])
		in.end += k
		if k == 0 && err == nil {
			if zeros++; zeros > 100 {
				err = io.ErrNoProgress // a reader that never delivers
			}
		}
		if err != nil {
			in.eof = true
			if err != io.EOF {
				in.err = err
			}
			break
		}
		if k == 0 {
			continue
		}
		if in.end-in.pos >= 64<<10 {
			break // enough to go on with; short reads from pipes are normal
		}
	}
	in.reportProgress()
	return in.end > in.pos
}

// reportProgress reports the bytes buffered so far, or for a memory
// input the bytes decoded, every 4 MiB.
func (in *input) reportProgress() {
	done := in.base + int64(in.end)
	if in.whole {
		done = int64(in.pos)
	}
	if in.progress != nil && done-in.reported >= 4<<20 {
		in.reported = done
		in.progress(done)
	}
}

// ensure makes at least n bytes available if the input has them.
func (in *input) ensure(n int) bool {
	for in.end-in.pos < n {
		if !in.fill() {
			return false
		}
	}
	return true
}

// atEOF reports whether every byte has been read.
func (in *input) atEOF() bool { return in.pos >= in.end && !in.fill() }

// remaining returns how many bytes are left when the input size is known,
// and -1 otherwise.
func (in *input) remaining() int64 {
	if in.size <= 0 {
		return -1
	}
	return max(in.size-in.offset(), 0)
}

func (in *input) errorf(off int64, format string, args ...any) error {
	return ir.Errorf(dartir.Format, off, format, args...)
}

// eofError reports the input ending where more was needed.
func (in *input) eofError(what string) error {
	if in.err != nil {
		return in.err
	}
	return ir.Truncated(dartir.Format, in.offset(), "unexpected end of file in %s", what)
}

// uleb reads an unsigned LEB128 value of at most 64 bits.
func (in *input) uleb(what string) (uint64, error) {
	// Fast path: the whole encoding is buffered (at most 10 bytes).
	if in.end-in.pos >= 10 {
		b := in.buf[in.pos : in.pos+10]
		if b[0] < 0x80 {
			in.pos++
			return uint64(b[0]), nil
		}
		v := uint64(b[0] & 0x7F)
		for k := 1; k < 10; k++ {
			c := b[k]
			if k == 9 && c > 1 {
				break // past 64 bits: the slow path reports it
			}
			v |= uint64(c&0x7F) << (7 * uint(k))
			if c < 0x80 {
				in.pos += k + 1
				return v, nil
			}
		}
	}
	return in.ulebSlow(what)
}

// ulebSlow is uleb near the end of the buffer, and its error cases.
func (in *input) ulebSlow(what string) (uint64, error) {
	if in.end-in.pos < 10 && !in.ensure(10) && in.pos >= in.end {
		return 0, in.eofError(what)
	}
	start := in.offset()
	var v uint64
	var shift uint
	for {
		if in.pos >= in.end && !in.fill() {
			return 0, in.eofError(what)
		}
		c := in.buf[in.pos]
		in.pos++
		if shift == 63 && c > 1 {
			return 0, in.errorf(start, "%s: LEB128 value does not fit in 64 bits", what)
		}
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			return v, nil
		}
		shift += 7
	}
}

// bytes returns the next n bytes, valid until the next read. The buffer
// grows in steps as the bytes arrive, so a declared length alone never
// allocates more than the input holds.
func (in *input) bytes(n int, what string) ([]byte, error) {
	for in.end-in.pos < n {
		if in.end-in.pos == len(in.buf) && !in.whole {
			// The buffer is full of unread bytes: double it.
			nb := make([]byte, min(2*len(in.buf), n+16))
			copy(nb, in.buf[in.pos:in.end])
			in.base += int64(in.pos)
			in.end -= in.pos
			in.pos = 0
			in.buf = nb
		}
		if !in.fill() {
			in.pos = in.end
			return nil, in.eofError(what)
		}
	}
	b := in.buf[in.pos : in.pos+n]
	in.pos += n
	return b, nil
}

// count reads a declared count and believes it only as far as the bytes left
// can hold it, each entry taking at least minBytes.
func (in *input) count(what string, minBytes int64) (uint64, error) {
	off := in.offset()
	n, err := in.uleb(what)
	if err != nil {
		return 0, err
	}
	if rem := in.remaining(); rem >= 0 && n > uint64(rem/minBytes) {
		return 0, ir.Truncated(dartir.Format, off, "%s %d: the %d bytes left cannot hold that many", what, n, rem)
	}
	return n, nil
}

// atReader reads a ReaderAt from an offset on, as an io.Reader whose
// position can be moved.
type atReader struct {
	ra  io.ReaderAt
	off int64
}

func (r *atReader) Read(b []byte) (int, error) {
	n, err := r.ra.ReadAt(b, r.off)
	r.off += int64(n)
	return n, err
}

// newInputAt is an input over ra from offset off on, in an input of size
// bytes: its offsets are the file's.
func newInputAt(ra io.ReaderAt, off, size int64) *input {
	if m, ok := ra.(memory); ok {
		return newMemoryInput(m, off, nil)
	}
	in := newInput(nil, size-off, nil)
	in.size = size
	in.moveTo(ra, off)
	return in
}

// moveTo makes the input read ra from offset off on, dropping what it has
// buffered: the first half of a split read goes on where the second half
// stopped.
func (in *input) moveTo(ra io.ReaderAt, off int64) {
	if in.whole {
		in.show(off)
		return
	}
	in.r = &atReader{ra: ra, off: off}
	in.base, in.pos, in.end = off, 0, 0
	in.eof, in.err = false, nil
}

// seek moves the input to offset off: within what it holds, else by
// reading ra there.
func (in *input) seek(ra io.ReaderAt, off int64) {
	if off >= in.base && off <= in.base+int64(in.end) {
		in.pos = int(off - in.base)
		return
	}
	in.moveTo(ra, off)
}

// small returns the next number when it is one byte long, as most
// classes, tags and counts are; it is small enough to be inlined, and the
// caller falls back on uleb.
func (in *input) small() (uint64, bool) {
	if in.pos < in.end && in.buf[in.pos] < 0x80 {
		in.pos++
		return uint64(in.buf[in.pos-1]), true
	}
	return 0, false
}
