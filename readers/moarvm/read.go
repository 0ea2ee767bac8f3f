package moarvm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// Options control Read.
type Options struct {
	// Size is the input's size in bytes when known (0 = unknown).
	Size int64
	// At, when set, reads the input at offsets: a MoarVM file is read from
	// its end (the table of contents), so Read otherwise copies the input
	// into memory first.
	At io.ReaderAt
	// Progress, if set, is called now and then with the bytes read so far.
	Progress func(read int64)
	// Within, when set, says what the reader's offsets count the bytes of
	// when the input is not the file as given: ir.Decompressed for a file
	// read through gzip or zstd. Its errors (ir.FormatError.Within) and a
	// recovered file's damage offset say so.
	Within string
}

// Read reads a MoarVM heap snapshot (format version 3 or 2) into the IR.
func Read(r io.Reader, opts Options) (*ir.File, error) {
	ra, size := opts.At, opts.Size
	if ra == nil || size <= 0 {
		if a, ok := r.(io.ReaderAt); ok && opts.Size > 0 {
			ra = a
		} else {
			data, err := io.ReadAll(r)
			if err != nil {
				return nil, err
			}
			ra, size = bytes.NewReader(data), int64(len(data))
		}
	}
	return readAt(ra, size, opts)
}

// readAt reads a MoarVM heap snapshot of size bytes from ra.
func readAt(ra io.ReaderAt, size int64, opts Options) (*ir.File, error) {
	r := &reader{ra: ra, size: size, progress: opts.Progress, within: opts.Within}
	// Decompressed data may take at most this much: real files compress
	// about 17 times, single columns rarely beyond 100 times; no file can
	// make the reader allocate more than a constant times its size.
	r.budget.Store(64*size + 32<<20)
	var magic [moarvmir.MagicSize]byte
	if size < int64(len(magic)) || r.readAt(magic[:], 0) != nil {
		return nil, ir.Errorf(moarvmir.Format, 0, "not a MoarVM heap snapshot (shorter than its %d-byte magic)", len(magic))
	}
	var f *ir.File
	var err error
	switch string(magic[:]) {
	case moarvmir.Magic3:
		f, err = r.readV3()
	case moarvmir.Magic2:
		f, err = r.readV2()
	default:
		return nil, ir.Errorf(moarvmir.Format, 0, "not a MoarVM heap snapshot of version 2 or 3 (magic %q)", magic[:])
	}
	if err != nil {
		return nil, r.mark(err)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("moarvm: internal error: the IR read is invalid: %w", err)
	}
	return f, nil
}

// mark says in err's *ir.FormatError what its offset counts the bytes of
// (Options.Within).
func (r *reader) mark(err error) error {
	var fe *ir.FormatError
	if r.within != "" && errors.As(err, &fe) && fe.Within == "" && fe.Offset >= 0 {
		fe.Within = r.within
	}
	return err
}

type reader struct {
	ra       io.ReaderAt
	size     int64
	progress func(int64)
	within   string       // Options.Within
	budget   atomic.Int64 // decompressed bytes still allowed

	progressMu sync.Mutex
	doneBytes  int64 // compressed bytes decoded, for progress

	decoders chan *zstd.Decoder // for DecodeAll
	streams  chan *zstd.Decoder // streaming, for blocks of unknown size
	once     sync.Once
}

// readAt fills b from offset off, which the caller has checked lies in the
// file.
func (r *reader) readAt(b []byte, off int64) error {
	if off < 0 || off > r.size || int64(len(b)) > r.size-off {
		return ir.Errorf(moarvmir.Format, off, "read of %d bytes past the end of the file (%d bytes)", len(b), r.size)
	}
	n, err := r.ra.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("moarvm: reading %d bytes at offset %d: %w", len(b), off, err)
}

// bytesAt returns a fresh copy of [start, end).
func (r *reader) bytesAt(start, end int64) ([]byte, error) {
	if start < 0 || end < start || end > r.size {
		return nil, ir.Errorf(moarvmir.Format, start, "range [%d, %d) outside the file (%d bytes)", start, end, r.size)
	}
	b := make([]byte, end-start)
	return b, r.readAt(b, start)
}

func errorf(off int64, format string, args ...any) error {
	return ir.Errorf(moarvmir.Format, off, format, args...)
}

// initPools makes the decoder pools: DecodeAll decoders, and streaming
// decoders for blocks of unknown size.
func (r *reader) initPools() {
	r.decoders = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0))
	r.streams = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0))
}

// decoder returns a zstd decoder from the pool; put it back with release.
func (r *reader) decoder() (*zstd.Decoder, error) {
	r.once.Do(r.initPools)
	select {
	case d := <-r.decoders:
		return d, nil
	default:
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	}
}

func (r *reader) release(d *zstd.Decoder) { putBack(r.decoders, d) }

// putBack returns d to pool, or closes it when the pool is full.
func putBack(pool chan *zstd.Decoder, d *zstd.Decoder) {
	select {
	case pool <- d:
	default:
		d.Close()
	}
}

func (r *reader) closeDecoders() {
	r.once.Do(r.initPools)
	for {
		select {
		case d := <-r.decoders:
			d.Close()
		case d := <-r.streams:
			d.Close()
		default:
			return
		}
	}
}

// errTooBig reports decompressed data beyond what the file can justify.
var errTooBig = errors.New("decompresses to more than the file can need")

// reserve takes n bytes from the decompression budget, atomically, as
// columns decompress in parallel; it fails when fewer are left.
func (r *reader) reserve(n int64) bool {
	for {
		left := r.budget.Load()
		if n > left {
			return false
		}
		if r.budget.CompareAndSwap(left, left-n) {
			return true
		}
	}
}

// maxWindow bounds the history a streamed zstd frame may ask for (MoarVM's
// use 4 MiB): the decoder allocates it before any output is checked.
const maxWindow = 32 << 20

// decompress decodes the one zstd frame in src. want is the exact size the
// data must have, or -1 when only limit is known. It spends no budget:
// callers charge it in file order (charge, snapshot), so that whether a
// file reads never depends on which column finished first.
func (r *reader) decompress(src []byte, want, limit int64) ([]byte, error) {
	var out []byte
	var err error
	if want >= 0 {
		var d *zstd.Decoder
		if d, err = r.decoder(); err != nil {
			return nil, err
		}
		out, err = d.DecodeAll(src, make([]byte, 0, want))
		r.release(d)
		if err == nil && int64(len(out)) != want {
			err = fmt.Errorf("decompresses to %d bytes where %d were expected", len(out), want)
		} else if err != nil {
			err = fmt.Errorf("does not decompress to the %d bytes its entries need: %w", want, err)
		}
	} else {
		// No size anywhere: stream it, reading one byte past the limit to
		// tell a frame that is too big.
		out, err = r.stream(src, limit)
	}
	if err != nil {
		return nil, err
	}
	if r.progress != nil {
		r.report(int64(len(src)))
	}
	return out, nil
}

// charge spends n bytes of the budget for what was decompressed at off.
func (r *reader) charge(n, off int64, what string) error {
	if !r.reserve(n) {
		return errorf(off, "%s: %v", what, errTooBig)
	}
	return nil
}

// stream decodes src with a streaming decoder, up to limit bytes.
// Streaming decoders are kept for reuse: a new one allocates its history
// buffers again (tens of MB a file otherwise).
func (r *reader) stream(src []byte, limit int64) ([]byte, error) {
	r.once.Do(r.initPools)
	var d *zstd.Decoder
	var err error
	select {
	case d = <-r.streams:
		err = d.Reset(bytes.NewReader(src))
	default:
		d, err = zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		return nil, err
	}
	defer putBack(r.streams, d)
	out, err := io.ReadAll(io.LimitReader(d, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("%w (more than %d bytes)", errTooBig, limit)
	}
	return out, nil
}

// report passes progress on, from one goroutine at a time and never
// backwards, though columns decompress in parallel.
func (r *reader) report(n int64) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.doneBytes += n
	r.progress(r.doneBytes)
}

// snapshots says "1 snapshot" or "n snapshots".
func snapshots(n int) string {
	if n == 1 {
		return "1 snapshot"
	}
	return strconv.Itoa(n) + " snapshots"
}
