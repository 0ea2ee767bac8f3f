package heapconv

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
)

// A wrapper is a compression around a file of any format: heapconv reads
// through it, detecting the format inside, and writes it when an output's
// name ends in its extension. Snapshots are often shipped so (Debian's
// .mvmheap.gz, archived .heapsnapshot.zst).
type wrapper struct {
	Name string // "gzip", "zstd"
	Ext  string // the file name suffix that asks for it: ".gz", ".zst"
	// Magic starts every file of the wrapper.
	Magic []byte
	// newReader decompresses r; newWriter compresses into w at the level
	// (Close finishes the stream, not w).
	newReader func(r io.Reader) (io.ReadCloser, error)
	newWriter func(w io.Writer, level Level) (io.WriteCloser, error)
	// explain rewords an error of the decompressor for a person.
	explain func(err error) string
	// ignoredAfterData reports an error that the wrapper's own tool
	// ignores once some data was decompressed (gzip: trailing garbage,
	// such as zero padding, after a member).
	ignoredAfterData func(err error) bool
}

// wrappers lists the compressions heapconv unwraps and writes.
var wrappers = []*wrapper{
	{
		Name: "gzip", Ext: ".gz", Magic: []byte{0x1f, 0x8b},
		newReader: func(r io.Reader) (io.ReadCloser, error) {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			return zr, nil
		},
		newWriter: func(w io.Writer, level Level) (io.WriteCloser, error) {
			return gzip.NewWriterLevel(w, gzipLevels[level])
		},
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
		Name: "zstd", Ext: ".zst", Magic: irstream.ZstdMagic,
		newReader: func(r io.Reader) (io.ReadCloser, error) {
			// One goroutine: the readers use the other core. The window
			// bound is what zstd's own command allows without --long.
			zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
			if err != nil {
				return nil, err
			}
			return zr.IOReadCloser(), nil
		},
		newWriter: func(w io.Writer, level Level) (io.WriteCloser, error) {
			return zstd.NewWriter(w, zstd.WithEncoderLevel(zstdLevels[level]))
		},
		explain: func(err error) string {
			if errors.Is(err, zstd.ErrWindowSizeExceeded) {
				return "the data needs a window of more than 128 MiB (made with zstd --long?); " +
					"decompress it first (zstd -d --long=31)"
			}
			return strings.TrimPrefix(err.Error(), "zstd: ")
		},
		ignoredAfterData: func(error) bool { return false },
	},
}

// zstdLevels and gzipLevels are what each Level means to the compressors.
// zstd's default is not zstd's own default level but the one above it:
// on a heap's IR it writes about a quarter less for twice the time (both
// under a second for a 180 MB stream, docs/performance.md), and a
// compressed output is usually one to keep. The IR's own compression
// (.heapir.zst, irstream) takes the same levels.
var (
	zstdLevels = [...]zstd.EncoderLevel{
		LevelDefault: irstream.ArchiveLevel,
		LevelFast:    zstd.SpeedFastest,
		LevelBest:    zstd.SpeedBestCompression,
	}
	gzipLevels = [...]int{
		LevelDefault: gzip.DefaultCompression,
		LevelFast:    gzip.BestSpeed,
		LevelBest:    gzip.BestCompression,
	}
)

// wrapperByName returns the named wrapper, or nil.
func wrapperByName(name string) *wrapper {
	for _, w := range wrappers {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// wrapperOf returns the wrapper whose magic starts head, or nil.
func wrapperOf(head []byte) *wrapper {
	for _, w := range wrappers {
		if bytes.HasPrefix(head, w.Magic) {
			return w
		}
	}
	return nil
}

// NewWriter compresses what is written to it into w at the level (one of
// the Level constants); its Close ends the compressed stream without
// closing w.
func (wr *wrapper) NewWriter(w io.Writer, level Level) (io.WriteCloser, error) {
	return wr.newWriter(w, level)
}

// NewReader decompresses r. Errors of the compressed stream are
// *ir.FormatError values of the wrapper's name whose offset is how far
// into r the decompressor had read (for gzip the exact byte: its inflater
// reads byte by byte).
func (wr *wrapper) NewReader(r io.Reader) (io.ReadCloser, error) {
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

func (wr *wrapper) errorAt(off int64, err error) error {
	var fe *ir.FormatError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return ir.Truncated(wr.Name, off, msgCutShort)
	}
	return &ir.FormatError{Format: wr.Name, Offset: off, Msg: wr.explain(err)}
}

// unwrapReader turns the decompressor's errors into offsets.
type unwrapReader struct {
	wr  *wrapper
	zr  io.ReadCloser
	c   *countingReader
	out int64 // bytes decompressed
}

func (u *unwrapReader) Read(p []byte) (int, error) {
	n, err := u.zr.Read(p)
	u.out += int64(n)
	if err == io.EOF {
		u.c.published.Store(u.c.n)
	}
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
func (wr *wrapper) unwrapHead(head []byte, whole bool) ([]byte, error) {
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

// A Compression is a wrapper heapconv reads any format through, and
// writes when an output's name ends in its extension.
type Compression struct {
	Name      string // "gzip", "zstd"
	Extension string // ".gz", ".zst"
}

// Compressions lists the compressions heapconv reads through and writes.
func Compressions() []Compression {
	var out []Compression
	for _, w := range wrappers {
		out = append(out, Compression{w.Name, w.Ext})
	}
	return out
}
