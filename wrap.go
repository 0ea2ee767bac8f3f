package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
)

// A Wrapper is a compression around a file of any format: heapconv reads
// through it, detecting the format inside, and writes it when an output's
// name ends in its extension. Snapshots are often shipped so (Debian's
// .mvmheap.gz, archived .heapsnapshot.zst).
type Wrapper struct {
	Name string // "gzip", "zstd"
	Ext  string // the file name suffix that asks for it: ".gz", ".zst"
	// Magic starts every file of the wrapper.
	Magic []byte
	// newReader decompresses r; newWriter compresses into w (Close
	// finishes the stream, not w).
	newReader func(r io.Reader) (io.ReadCloser, error)
	newWriter func(w io.Writer) (io.WriteCloser, error)
	// explain rewords an error of the decompressor for a person.
	explain func(err error) string
	// ignoredAfterData reports an error that the wrapper's own tool
	// ignores once some data was decompressed (gzip: trailing garbage,
	// such as zero padding, after a member).
	ignoredAfterData func(err error) bool
}

// Wrappers lists the compressions heapconv unwraps and writes.
var Wrappers = []*Wrapper{
	{
		Name: "gzip", Ext: ".gz", Magic: []byte{0x1f, 0x8b},
		newReader: func(r io.Reader) (io.ReadCloser, error) {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			return zr, nil
		},
		newWriter: func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil },
		explain: func(err error) string {
			var corrupt flate.CorruptInputError
			switch {
			case errors.As(err, &corrupt):
				return "corrupt deflate data"
			case errors.Is(err, gzip.ErrChecksum):
				return "the data does not match its checksum (CRC-32)"
			case errors.Is(err, gzip.ErrHeader):
				return "not a gzip member header"
			}
			return strings.TrimPrefix(err.Error(), "gzip: ")
		},
		ignoredAfterData: func(err error) bool { return errors.Is(err, gzip.ErrHeader) },
	},
	{
		Name: "zstd", Ext: ".zst", Magic: ir.ZstdMagic,
		newReader: func(r io.Reader) (io.ReadCloser, error) {
			// One goroutine: the readers use the other core. The window
			// bound is what zstd's own command allows without --long.
			zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
			if err != nil {
				return nil, err
			}
			return zr.IOReadCloser(), nil
		},
		newWriter: func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) },
		explain: func(err error) string {
			if errors.Is(err, zstd.ErrWindowSizeExceeded) {
				return "the data needs a window of more than 128 MiB (made with zstd --long?); " +
					"decompress it first: zstd -dc --long=31 FILE | heapconv ... -"
			}
			return strings.TrimPrefix(err.Error(), "zstd: ")
		},
		ignoredAfterData: func(error) bool { return false },
	},
}

// WrapperByName returns the named wrapper, or nil.
func WrapperByName(name string) *Wrapper {
	for _, w := range Wrappers {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// wrapperOf returns the wrapper whose magic starts head, or nil.
func wrapperOf(head []byte) *Wrapper {
	for _, w := range Wrappers {
		if bytes.HasPrefix(head, w.Magic) {
			return w
		}
	}
	return nil
}

// NewWriter compresses what is written to it into w; its Close ends the
// compressed stream without closing w.
func (wr *Wrapper) NewWriter(w io.Writer) (io.WriteCloser, error) { return wr.newWriter(w) }

// NewReader decompresses r. Errors of the compressed stream are
// *ir.FormatError values of the wrapper's name whose offset is how far
// into r the decompressor had read (for gzip the exact byte: its inflater
// reads byte by byte).
func (wr *Wrapper) NewReader(r io.Reader) (io.ReadCloser, error) {
	c := &countingReader{r: r}
	if br, ok := r.(io.ByteReader); ok {
		c.br = br
	}
	var rd io.Reader = c
	if c.br != nil {
		rd = byteCountingReader{c}
	}
	zr, err := wr.newReader(rd)
	if err != nil {
		return nil, wr.errorAt(c.n, err)
	}
	return &unwrapReader{wr: wr, zr: zr, c: c}, nil
}

// msgCutShort is the message of a compressed stream that ends early.
const msgCutShort = "the compressed data is cut short"

func (wr *Wrapper) errorAt(off int64, err error) error {
	var fe *ir.FormatError
	if errors.As(err, &fe) {
		return err
	}
	msg := wr.explain(err)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = msgCutShort
	}
	return &ir.FormatError{Format: wr.Name, Offset: off, Msg: msg}
}

// unwrapReader turns the decompressor's errors into offsets.
type unwrapReader struct {
	wr  *Wrapper
	zr  io.ReadCloser
	c   *countingReader
	out int64 // bytes decompressed
}

func (u *unwrapReader) Read(p []byte) (int, error) {
	n, err := u.zr.Read(p)
	u.out += int64(n)
	if err != nil && err != io.EOF {
		if u.out > 0 && u.wr.ignoredAfterData(err) {
			return n, io.EOF
		}
		err = u.wr.errorAt(u.c.n, err)
	}
	return n, err
}

func (u *unwrapReader) Close() error { return u.zr.Close() }

// countingReader counts the bytes read through it. n belongs to the
// goroutine reading; published is n now and then, for progress reports
// from others.
type countingReader struct {
	r         io.Reader
	br        io.ByteReader
	n         int64
	published atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.add(int64(n))
	return n, err
}

func (c *countingReader) add(n int64) {
	before := c.n
	c.n += n
	if c.n>>16 != before>>16 {
		c.published.Store(c.n)
	}
}

// byteCountingReader keeps the reader an io.ByteReader, so that an
// inflater reads it byte by byte (and the count is exact) instead of
// through a buffer of its own.
type byteCountingReader struct{ *countingReader }

func (b byteCountingReader) ReadByte() (byte, error) {
	c, err := b.br.ReadByte()
	if err == nil {
		b.add(1)
	}
	return c, err
}

// headSize is how much of a file Detect is given; unwrapHead decompresses
// at most peekSize bytes of a wrapped file to find it.
const (
	headSize = 512
	peekSize = 256 << 10
)

// unwrapHead decompresses the start of a wrapped file held in head (the
// whole file when whole is set), up to headSize bytes of data. An error is
// one of the compressed data, with its offset; a stream cut by the end of
// head when the file goes on is none.
func (wr *Wrapper) unwrapHead(head []byte, whole bool) ([]byte, error) {
	fail := func(err error) error {
		var fe *ir.FormatError
		if !whole && errors.As(err, &fe) && fe.Msg == msgCutShort {
			return nil
		}
		return err
	}
	zr, err := wr.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil, fail(err)
	}
	defer zr.Close()
	out := make([]byte, headSize)
	n, err := io.ReadFull(zr, out)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil // less data than headSize
	}
	return out[:n], fail(err)
}

// Input is a file's data made ready for its format's reader: the format
// detected (or named) and gzip or zstd wrappers removed.
type Input struct {
	Format *Format
	// Wrapper is the (outermost) compression Open removed, nil when there
	// was none or when the format reads its own compressed form (a
	// gzipped pprof profile, which it keeps gzipped when written again; a
	// .heapir.zst).
	Wrapper *Wrapper
	// Compressed is the compression the data came in, removed or not.
	Compressed *Wrapper
	// R reads the data for Format.Read.
	R       io.Reader
	removed []*unwrapReader // outermost first
}

// ErrUnrecognized is returned by Open for data of no format heapconv
// knows (whatever wrapper it came in).
var ErrUnrecognized = errors.New("unrecognized format")

// maxWrappers is how many wrappers Open removes, one inside the other
// (a gzipped .pb.gz compressed again, say).
const maxWrappers = 3

// Open prepares r's data for reading: it detects the format from the
// content (or takes the format named, when not ""), looking inside gzip
// and zstd wrappers, which it removes unless the format reads that
// wrapper itself. r must buffer at least 256 KiB (bufio.NewReaderSize)
// for a wrapper's first frame to be looked into.
func Open(r *bufio.Reader, format string) (*Input, error) {
	in := &Input{R: r}
	if format != "" {
		if in.Format = ByName(format); in.Format == nil {
			return nil, fmt.Errorf("unknown format %q (formats: %s)", format, strings.Join(Names(), ", "))
		}
	}
	if err := in.open(r); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

func (in *Input) open(r *bufio.Reader) error {
	in.R = r
	head, _ := r.Peek(headSize)
	wr := wrapperOf(head)
	if wr == nil {
		switch {
		case in.Format != nil:
			return nil
		case len(head) == 0 && len(in.removed) == 0:
			return io.ErrUnexpectedEOF
		}
		if in.Format = Detect(head); in.Format == nil {
			if n := len(in.removed); n > 0 {
				return fmt.Errorf("%w inside the %s data", ErrUnrecognized, in.removed[n-1].wr.Name)
			}
			return ErrUnrecognized
		}
		return nil
	}
	if in.Compressed == nil {
		in.Compressed = wr
	}
	big, _ := r.Peek(peekSize)
	inner, err := wr.unwrapHead(big, len(big) < peekSize)
	if err != nil {
		return err
	}
	if in.Format == nil {
		if f := Detect(inner); f != nil && f.OwnWrapper == wr.Name {
			in.Format = f
		}
	}
	if in.Format != nil && in.Format.OwnWrapper == wr.Name {
		return nil
	}
	if len(in.removed) == maxWrappers {
		return fmt.Errorf("%w: compressed more than %d times", ErrUnrecognized, maxWrappers)
	}
	zr, err := wr.NewReader(r)
	if err != nil {
		return err
	}
	u := zr.(*unwrapReader)
	in.removed = append(in.removed, u)
	if in.Wrapper == nil {
		in.Wrapper = wr
	}
	return in.open(bufio.NewReaderSize(u, 1<<20))
}

// CompressedRead is how many bytes of the compressed file the
// decompressor has taken so far (0 when no wrapper was removed): progress
// through a compressed file, whose decompressed size is unknown.
func (in *Input) CompressedRead() int64 {
	if len(in.removed) == 0 {
		return 0
	}
	return in.removed[0].c.published.Load()
}

// Close releases the decompressors, if any.
func (in *Input) Close() {
	for _, u := range in.removed {
		u.Close()
	}
}

// Within puts an error of the format's reader in terms of the file as
// given when wrappers were removed: damage to the compressed data is the
// cause to report, with its offset in the file; otherwise the reader's
// offset is marked as one of the decompressed data.
func (in *Input) Within(err error) error {
	if len(in.removed) == 0 || err == nil {
		return err
	}
	var wrapperErr, readerErr *ir.FormatError
	walkErrors(err, func(e error) {
		fe, ok := e.(*ir.FormatError)
		if !ok {
			return
		}
		for _, u := range in.removed {
			if fe.Format == u.wr.Name && wrapperErr == nil {
				wrapperErr = fe
				return
			}
		}
		if readerErr == nil {
			readerErr = fe
		}
	})
	switch {
	case wrapperErr != nil:
		return wrapperErr
	case readerErr == nil || readerErr.Within != "" || readerErr.Offset < 0:
		return err
	}
	// The message may have been made with the reader's error in it
	// (fmt.Errorf's %w): say it again with the offset marked.
	before := readerErr.Error()
	readerErr.Within = ir.Decompressed
	if err == error(readerErr) {
		return err
	}
	return &relabeled{msg: strings.Replace(err.Error(), before, readerErr.Error(), 1), err: err}
}

// walkErrors calls f on err and every error it wraps.
func walkErrors(err error, f func(error)) {
	for err != nil {
		f(err)
		switch w := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range w.Unwrap() {
				walkErrors(e, f)
			}
			return
		case interface{ Unwrap() error }:
			err = w.Unwrap()
		default:
			return
		}
	}
}

// relabeled is an error whose message was rewritten; it wraps the original.
type relabeled struct {
	msg string
	err error
}

func (r *relabeled) Error() string { return r.msg }
func (r *relabeled) Unwrap() error { return r.err }

// Output is how an output file is to be written: its format, and the
// wrapper to compress it with (nil for none).
type Output struct {
	Format  *Format
	Wrapper *Wrapper
	// Native is set when the name asks for the format's own compressed
	// form (.heapir.zst, .pb.gz): the format's writer compresses.
	Native bool
}

// ForOutput decides how to write the file name: the format named by to
// (when not "") or by the name's extension, and the wrapper its .gz or
// .zst suffix asks for — unless the format compresses that way itself
// (.pb.gz, .heapir.zst keep their meaning). It returns nil when the
// format cannot be told.
func ForOutput(name, to string) *Output {
	base := strings.ToLower(filepath.Base(name))
	o := &Output{}
	var wr *Wrapper
	for _, w := range Wrappers {
		if strings.HasSuffix(base, w.Ext) {
			wr = w
		}
	}
	if to != "" {
		o.Format = ByName(to)
	} else {
		o.Format = ByExtension(base)
		if o.Format == nil && wr != nil {
			o.Format = ByExtension(strings.TrimSuffix(base, wr.Ext))
		}
	}
	if o.Format == nil {
		return nil
	}
	if wr != nil {
		if o.Format.OwnWrapper == wr.Name {
			o.Native = true
		} else {
			o.Wrapper = wr
		}
	}
	return o
}
