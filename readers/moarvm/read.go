package moarvm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"heapconv/ir"
)

// Magic3 and Magic2 are the first 16 bytes of format versions 3 and 2.
const (
	Magic3 = "MoarHeapDumpv003"
	Magic2 = "MoarHeapDumpv002"
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
	return ReadAt(ra, size, opts)
}

// ReadAt reads a MoarVM heap snapshot of size bytes from ra.
func ReadAt(ra io.ReaderAt, size int64, opts Options) (*ir.File, error) {
	r := &reader{ra: ra, size: size, progress: opts.Progress}
	// Decompressed data may take at most this much: real files compress
	// about 17 times, single columns rarely beyond 100 times; no file can
	// make the reader allocate more than a constant times its size.
	r.budget.Store(64*size + 32<<20)
	var magic [16]byte
	if size < int64(len(magic)) || r.readAt(magic[:], 0) != nil {
		return nil, ir.Errorf(ir.FormatMoarVM, 0, "not a MoarVM heap snapshot (shorter than its 16-byte magic)")
	}
	var f *ir.File
	var err error
	switch string(magic[:]) {
	case Magic3:
		f, err = r.readV3()
	case Magic2:
		f, err = r.readV2()
	default:
		return nil, ir.Errorf(ir.FormatMoarVM, 0, "not a MoarVM heap snapshot of version 2 or 3 (magic %q)", magic[:])
	}
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("moarvm: internal error: the IR read is invalid: %w", err)
	}
	return f, nil
}

type reader struct {
	ra       io.ReaderAt
	size     int64
	progress func(int64)
	done     atomic.Int64 // compressed bytes decoded, for progress
	budget   atomic.Int64 // decompressed bytes still allowed

	decoders chan *zstd.Decoder
	once     sync.Once
}

// readAt fills b from offset off, which the caller has checked lies in the
// file.
func (r *reader) readAt(b []byte, off int64) error {
	if off < 0 || off > r.size || int64(len(b)) > r.size-off {
		return ir.Errorf(ir.FormatMoarVM, off, "read of %d bytes past the end of the file (%d bytes)", len(b), r.size)
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
		return nil, ir.Errorf(ir.FormatMoarVM, start, "range [%d, %d) outside the file (%d bytes)", start, end, r.size)
	}
	b := make([]byte, end-start)
	return b, r.readAt(b, start)
}

func errorf(off int64, format string, args ...any) error {
	return ir.Errorf(ir.FormatMoarVM, off, format, args...)
}

// decoder returns a zstd decoder from the pool; put it back with release.
func (r *reader) decoder() (*zstd.Decoder, error) {
	r.once.Do(func() { r.decoders = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0)) })
	select {
	case d := <-r.decoders:
		return d, nil
	default:
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	}
}

func (r *reader) release(d *zstd.Decoder) {
	select {
	case r.decoders <- d:
	default:
		d.Close()
	}
}

func (r *reader) closeDecoders() {
	r.once.Do(func() { r.decoders = make(chan *zstd.Decoder, runtime.GOMAXPROCS(0)) })
	for {
		select {
		case d := <-r.decoders:
			d.Close()
		default:
			return
		}
	}
}

// errTooBig reports decompressed data beyond what the file can justify.
var errTooBig = errors.New("decompresses to more than the file can need")

// decompress decodes the one zstd frame in src. want is the exact size the
// data must have, or -1 when only the caller's limit is known.
func (r *reader) decompress(src []byte, want, limit int64) ([]byte, error) {
	d, err := r.decoder()
	if err != nil {
		return nil, err
	}
	defer r.release(d)
	if want >= 0 {
		limit = want
	}
	limit = min(limit, r.budget.Load())
	if limit < 0 || (want >= 0 && want > limit) {
		return nil, errTooBig
	}
	// Without a size in the frame, grow the buffer by doubling: the work
	// repeated is at most the work done.
	c := limit
	if want < 0 {
		c = min(limit, 16*int64(len(src))+4096)
	}
	for {
		out, err := d.DecodeAll(src, make([]byte, 0, c))
		if err != nil {
			// Output beyond the buffer's capacity fails in several ways
			// (not only ErrDecoderSizeExceeded); retry larger while the
			// limit allows, which bounds the work to twice the limit.
			if c < limit {
				c = min(2*c, limit)
				continue
			}
			if want >= 0 {
				return nil, fmt.Errorf("does not decompress to the %d bytes its entries need: %w", want, err)
			}
			if c >= limit && limit < r.budget.Load() {
				return nil, fmt.Errorf("%w (at most %d bytes): %v", errTooBig, limit, err)
			}
			return nil, err
		}
		if want >= 0 && int64(len(out)) != want {
			return nil, fmt.Errorf("decompresses to %d bytes where %d were expected", len(out), want)
		}
		r.budget.Add(-int64(len(out)))
		if r.progress != nil {
			r.progress(r.done.Add(int64(len(src))))
		}
		return out, nil
	}
}
