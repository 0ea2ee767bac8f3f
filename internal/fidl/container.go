package fidl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"io"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// Magic opens every container file: 16 bytes, version in the last two.
const Magic = "heapdump-fidl\x00v1"

// HeaderSize is the size of the file header: Magic, then u32 flags, then a
// reserved u32 (zero).
const HeaderSize = 24

// FlagMultiProcess in the header flags says that the stream was taken with
// multi_process = true: each snapshot is opened by a header batch.
const FlagMultiProcess = 1

// RecordHeaderSize is the size of a record header: u8 kind, 3 zero bytes,
// u32 payload length.
const RecordHeaderSize = 8

// Record kinds in the file.
const (
	recElement        = 1
	recEndOfBatch     = 2
	recCollectorError = 3
)

// Record describes what Reader.Next read.
type Record struct {
	// Kind is the element's kind for an element record, or
	// KindEndOfBatch, or KindCollectorError.
	Kind Kind
	// Offset is the file offset of the record header.
	Offset int64
	// Size is the record's size in the file, header included.
	Size int64
	// Code is the CollectorError value of a KindCollectorError record.
	Code uint32
}

// Reader reads a container file record by record. Every error names the
// byte offset where the problem is.
type Reader struct {
	r        *bufio.Reader
	off      int64
	size     int64 // input size when known, else -1
	multi    bool
	open     int   // elements in the batch not yet ended
	openAt   int64 // offset of the first of them
	finished bool  // a collector error record was read
	buf      []byte
	dec      decoder
}

func errorf(off int64, msg string, args ...any) error {
	return ir.Errorf(fuchsiair.FormatFIDL, off, msg, args...)
}

// NewReader reads and checks the file header. size is the number of bytes r
// will deliver when known (0 = unknown, then it is taken from r when r is a
// regular file or an in-memory reader); a declared record length is then
// believed only when the bytes left can hold it. Without a size, payloads
// are read in growing steps, so a bogus length costs no more memory than
// the bytes that really follow.
func NewReader(r io.Reader, size int64) (*Reader, error) {
	if size <= 0 {
		size = ir.InputSize(r)
	}
	if size <= 0 {
		size = -1
	}
	bufSize := 64 << 10
	if size > 0 {
		bufSize = int(min(size, int64(bufSize)))
	}
	rd := &Reader{r: bufio.NewReaderSize(progressReader{r: r}, bufSize), size: size}
	var h [HeaderSize]byte
	n, err := io.ReadFull(rd.r, h[:])
	if n < len(Magic) || string(h[:len(Magic)]) != Magic {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		return nil, errorf(0, "not a heapdump FIDL stream (the file does not start with %q)", Magic)
	}
	if err != nil {
		return nil, rd.readError(int64(n), err, "the file header")
	}
	flags := binary.LittleEndian.Uint32(h[16:])
	if flags&^FlagMultiProcess != 0 {
		return nil, errorf(16, "header flags 0x%08x: unknown flags set", flags)
	}
	if r := binary.LittleEndian.Uint32(h[20:]); r != 0 {
		return nil, errorf(20, "header reserved word 0x%08x, want 0", r)
	}
	rd.multi = flags&FlagMultiProcess != 0
	rd.off = HeaderSize
	return rd, nil
}

// MultiProcess reports whether the header says multi-process.
func (r *Reader) MultiProcess() bool { return r.multi }

// Offset returns the file offset of the next record.
func (r *Reader) Offset() int64 { return r.off }

// readError turns a read failure at offset off into an error.
func (r *Reader) readError(off int64, err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ir.Truncated(fuchsiair.FormatFIDL, off, "unexpected end of file in %s", what)
	}
	return fmt.Errorf("%s: offset %d: reading %s: %w", fuchsiair.FormatFIDL, off, what, err)
}

// Next reads the next record. For an element record it decodes the element
// into e (see Element for what is reset). At the end of the file it returns
// io.EOF, or an error if the last batch has no end-of-batch record (a batch
// is one message: it arrives whole or not at all).
func (r *Reader) Next(e *Element) (Record, error) {
	at := r.off
	var h [RecordHeaderSize]byte
	n, err := io.ReadFull(r.r, h[:])
	if n == 0 && errors.Is(err, io.EOF) {
		if r.open > 0 {
			return Record{}, errorf(at, "the file ends inside a batch: the %d elements from offset %d have no end-of-batch record", r.open, r.openAt)
		}
		return Record{}, io.EOF
	}
	if err != nil {
		return Record{}, r.readError(at+int64(n), err, "a record header")
	}
	r.off += RecordHeaderSize
	kind, length := h[0], binary.LittleEndian.Uint32(h[4:])
	if h[1]|h[2]|h[3] != 0 {
		return Record{}, errorf(at+1, "record header: reserved bytes %02x %02x %02x, want 0", h[1], h[2], h[3])
	}
	if r.finished {
		return Record{}, errorf(at, "a record after the collector error record (the error ends the stream)")
	}
	rec := Record{Offset: at, Size: RecordHeaderSize + int64(length)}
	switch kind {
	case recEndOfBatch:
		if length != 0 {
			return Record{}, errorf(at+4, "end-of-batch record with a %d-byte payload, want 0", length)
		}
		rec.Kind = KindEndOfBatch
		r.open = 0
		return rec, nil
	case recCollectorError:
		if length != 4 {
			return Record{}, errorf(at+4, "collector error record with a %d-byte payload, want 4", length)
		}
		if r.open > 0 {
			return Record{}, errorf(at, "collector error record inside a batch (the %d elements from offset %d have no end-of-batch record)", r.open, r.openAt)
		}
		b, err := r.payload(4)
		if err != nil {
			return Record{}, err
		}
		rec.Kind, rec.Code = KindCollectorError, binary.LittleEndian.Uint32(b)
		r.finished = true
		return rec, nil
	case recElement:
	default:
		return Record{}, errorf(at, "unknown record kind %d", kind)
	}
	if length < 24 || length%8 != 0 {
		return Record{}, errorf(at+4, "element record of %d bytes (a persisted element is a multiple of 8, at least 24)", length)
	}
	if r.size >= 0 {
		if left := r.size - r.off; int64(length) > left {
			return Record{}, errorf(at+4, "element record of %d bytes, but only %d bytes are left", length, max(left, 0))
		}
	}
	b, err := r.payload(int(length))
	if err != nil {
		return Record{}, err
	}
	if err := r.dec.unpersist(b, at+RecordHeaderSize, e); err != nil {
		return Record{}, err
	}
	if r.open == 0 {
		r.openAt = at
	}
	r.open++
	rec.Kind = e.Kind
	return rec, nil
}

// payload reads the n bytes of a record payload into r.buf.
func (r *Reader) payload(n int) ([]byte, error) {
	at := r.off
	if n <= cap(r.buf) || r.size >= 0 {
		if n > cap(r.buf) {
			r.buf = make([]byte, n)
		}
		b := r.buf[:n]
		if k, err := io.ReadFull(r.r, b); err != nil {
			return nil, r.readError(at+int64(k), err, "a record payload")
		}
		r.off += int64(n)
		return b, nil
	}
	// Size unknown: grow as the bytes arrive.
	b := r.buf[:0]
	for len(b) < n {
		step := min(n-len(b), max(len(b), 64<<10))
		b = slices.Grow(b, step)
		k, err := io.ReadFull(r.r, b[len(b):len(b)+step])
		b = b[:len(b)+k]
		if err != nil {
			r.buf = b[:0]
			return nil, r.readError(at+int64(len(b)), err, "a record payload")
		}
	}
	r.buf = b[:0]
	r.off += int64(n)
	return b, nil
}

// Writer writes a container file. It buffers; Close flushes.
type Writer struct {
	w       *bufio.Writer
	off     int64
	open    int
	done    bool
	scratch []byte
	enc     encoder
	err     error
}

// NewWriter writes the file header.
func NewWriter(w io.Writer, multiProcess bool) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	var h [HeaderSize]byte
	copy(h[:], Magic)
	if multiProcess {
		binary.LittleEndian.PutUint32(h[16:], FlagMultiProcess)
	}
	wr.write(h[:])
	return wr, wr.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.err = err
}

func (w *Writer) check() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errors.New("fuchsia-fidl: write after the collector error record")
	}
	return nil
}

// Offset returns the number of bytes written so far (the offset of the
// next record).
func (w *Writer) Offset() int64 { return w.off }

// WriteElement appends an element to the current batch.
func (w *Writer) WriteElement(e *Element) error {
	if err := w.check(); err != nil {
		return err
	}
	b, err := w.enc.appendPersist(append(w.scratch[:0], recElement, 0, 0, 0, 0, 0, 0, 0), e)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-RecordHeaderSize))
	w.scratch = b[:0]
	if cap(w.scratch) > 1<<20 {
		w.scratch = nil // do not keep a huge element's buffer
	}
	w.write(b)
	w.open++
	return w.err
}

// EndBatch ends the current batch; without elements since the previous
// one, this is an empty batch.
func (w *Writer) EndBatch() error {
	if err := w.check(); err != nil {
		return err
	}
	w.write([]byte{recEndOfBatch, 0, 0, 0, 0, 0, 0, 0})
	w.open = 0
	return w.err
}

// WriteCollectorError records SnapshotReceiver.ReportError(code). It must
// come at a batch boundary and ends the stream.
func (w *Writer) WriteCollectorError(code uint32) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.open > 0 {
		return errors.New("fuchsia-fidl: collector error inside a batch")
	}
	b := []byte{recCollectorError, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[8:], code)
	w.write(b)
	w.done = true
	return w.err
}

// Close flushes the buffer. It fails when a batch is still open (a reader
// would reject the file). It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.open > 0 {
		return fmt.Errorf("fuchsia-fidl: %d elements at the end have no end-of-batch record", w.open)
	}
	w.err = w.w.Flush()
	return w.err
}

// IsContainer reports whether head, the first bytes of a file, starts with
// the container magic.
func IsContainer(head []byte) bool {
	return len(head) >= len(Magic) && string(head[:len(Magic)]) == Magic
}

// progressReader fails a reader that keeps returning no bytes and no error
// (which breaks io.Reader's contract, and would make io.ReadFull spin:
// bufio only guards its own buffered reads against it).
type progressReader struct{ r io.Reader }

func (p progressReader) Read(b []byte) (int, error) {
	for i := 0; i < 100; i++ {
		if n, err := p.r.Read(b); n > 0 || err != nil || len(b) == 0 {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}
