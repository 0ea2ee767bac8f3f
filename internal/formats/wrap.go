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

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"heapconv/ir"
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

func (wr *Wrapper) errorAt(off int64, err error) error {
	var fe *ir.FormatError
	if errors.As(err, &fe) {
		return err
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "the compressed data is cut short"
	}
	return &ir.FormatError{Format: wr.Name, Offset: off, Msg: msg}
}

// unwrapReader turns the decompressor's errors into offsets.
type unwrapReader struct {
	wr *Wrapper
	zr io.ReadCloser
	c  *countingReader
}

func (u *unwrapReader) Read(p []byte) (int, error) {
	n, err := u.zr.Read(p)
	if err != nil && err != io.EOF {
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

// unwrapHead decompresses the start of a wrapped file held in head, up to
// headSize bytes of data.
func (wr *Wrapper) unwrapHead(head []byte) []byte {
	zr, err := wr.newReader(bytes.NewReader(head))
	if err != nil {
		return nil
	}
	defer zr.Close()
	out := make([]byte, headSize)
	n, _ := io.ReadFull(zr, out)
	return out[:n]
}

// Input is a file's data made ready for its format's reader: the format
// detected (or named) and a gzip or zstd wrapper removed.
type Input struct {
	Format *Format
	// Wrapper is the compression Open removed, nil when there was none
	// or when the format reads its own compressed form (a gzipped pprof
	// profile, which it keeps gzipped when written again; a .heapir.zst).
	Wrapper *Wrapper
	// Compressed is the compression the data came in, removed or not.
	Compressed *Wrapper
	// R reads the data for Format.Read.
	R  io.Reader
	zr io.ReadCloser
}

// ErrUnrecognized is returned by Open for data of no format heapconv
// knows (whatever wrapper it came in).
var ErrUnrecognized = errors.New("unrecognized format")

// Open prepares r's data for reading: it detects the format from the
// content (or takes the format named, when not ""), looking inside a gzip
// or zstd wrapper, which it removes unless the format reads that wrapper
// itself. r must buffer at least 256 KiB (bufio.NewReaderSize) for the
// wrapper's first frame to be looked into.
func Open(r *bufio.Reader, format string) (*Input, error) {
	in := &Input{R: r}
	if format != "" {
		if in.Format = ByName(format); in.Format == nil {
			return nil, fmt.Errorf("unknown format %q (formats: %s)", format, strings.Join(Names(), ", "))
		}
	}
	head, _ := r.Peek(headSize)
	wr := wrapperOf(head)
	if wr != nil {
		in.Compressed = wr
		big, _ := r.Peek(peekSize)
		inner := wr.unwrapHead(big)
		if in.Format == nil {
			in.Format = Detect(inner)
			if in.Format == nil {
				return nil, fmt.Errorf("%w inside the %s data", ErrUnrecognized, wr.Name)
			}
		}
		if in.Format.OwnWrapper == wr.Name {
			return in, nil
		}
		zr, err := wr.NewReader(r)
		if err != nil {
			return nil, err
		}
		in.Wrapper, in.zr = wr, zr
		in.R = bufio.NewReaderSize(zr, 1<<20)
		return in, nil
	}
	if in.Format == nil {
		if in.Format = Detect(head); in.Format == nil {
			if len(head) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, ErrUnrecognized
		}
	}
	return in, nil
}

// CompressedRead is how many bytes of the compressed file the
// decompressor has taken so far (0 when no wrapper was removed): progress
// through a compressed file, whose decompressed size is unknown.
func (in *Input) CompressedRead() int64 {
	if u, ok := in.zr.(*unwrapReader); ok {
		return u.c.published.Load()
	}
	return 0
}

// Close releases the decompressor, if any.
func (in *Input) Close() {
	if in.zr != nil {
		in.zr.Close()
	}
}

// Within marks an error of the format's reader as being about the
// decompressed data when a wrapper was removed, so that its offset is not
// taken for one in the file as given.
func (in *Input) Within(err error) error {
	var fe *ir.FormatError
	if in.Wrapper != nil && errors.As(err, &fe) && fe.Within == "" && fe.Format != in.Wrapper.Name && fe.Offset >= 0 {
		fe.Within = ir.Decompressed
	}
	return err
}

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
