package heapconv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// An Input is a heap-snapshot file opened for reading: its format
// detected (or named) and any gzip or zstd wrapper looked through. It
// tells what the file is before the (possibly long) read, and lists a
// file's snapshots cheaply where the format has an index.
type Input struct {
	// Name names the input in errors: ReadOptions.Name, else the file
	// name for OpenFile ("" for a stream Open was not told the name of).
	Name string
	// Format is the data's format.
	Format *Format
	// Compression is the compression the data came in ("gzip", "zstd"),
	// "" for none; removed for reading, or read by the format itself (a
	// gzipped pprof profile, a .heapir.zst).
	Compression string

	opts ReadOptions
	r    io.Reader // the data for Format.read
	// removed are the wrappers Open removed, outermost first.
	removed []*unwrapReader
	file    *os.File // nil for a stream
	info    os.FileInfo
	// fileSize is the size of the input as given (compressed or not), 0
	// when unknown.
	fileSize int64
	// done is set once the input was read, validated or closed: its data
	// can be taken only once.
	done   bool
	closed bool
}

// maxWrappers is how many wrappers Open removes, one inside the other
// (a gzipped .pb.gz compressed again, say).
const maxWrappers = 3

// Open prepares r's data for reading: it detects the format from the
// content (or takes opts.Format), looking inside gzip and zstd wrappers,
// which it removes unless the format reads that wrapper itself. It reads
// only the start of the data; Input.Read reads the rest.
func Open(r io.Reader, opts *ReadOptions) (*Input, error) {
	return open(context.Background(), r, opts)
}

// open is Open whose reads fail once ctx is done.
func open(ctx context.Context, r io.Reader, opts *ReadOptions) (*Input, error) {
	in := &Input{}
	if ctx.Done() != nil {
		r = ctxReader{ctx, r}
	}
	if opts != nil {
		in.opts = *opts
	}
	in.Name, in.fileSize = in.opts.Name, in.opts.Size
	if err := in.open(r); err != nil {
		return nil, err
	}
	return in, nil
}

// OpenFile opens the named file for reading, as Open does. A regular file
// is read through io.ReaderAt where its format allows, and its snapshots
// can be listed (Input.Index) without reading them.
func OpenFile(name string, opts *ReadOptions) (*Input, error) {
	return openFile(context.Background(), name, opts)
}

// openFile is OpenFile whose reads fail once ctx is done.
func openFile(ctx context.Context, name string, opts *ReadOptions) (*Input, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", name)
	}
	in := &Input{Name: name, file: f, info: st}
	if opts != nil {
		in.opts = *opts
	}
	if in.opts.Name != "" {
		in.Name = in.opts.Name
	}
	var r io.Reader = f
	var at io.ReaderAt = f
	if ctx.Done() != nil {
		r, at = ctxReader{ctx, f}, ctxReaderAt{ctx, f}
	}
	if st.Mode().IsRegular() {
		in.fileSize = st.Size()
		in.opts.Size = st.Size()
		in.opts.At = at
	}
	if err := in.open(r); err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// open detects the format and removes wrappers; on failure it releases
// what it took, and the error names the input.
func (in *Input) open(r io.Reader) error {
	if in.opts.Format != "" {
		if in.Format = FormatByName(in.opts.Format); in.Format == nil {
			return fmt.Errorf("%w %q (formats: %s)", ErrUnknownFormat, in.opts.Format, formatNames())
		}
	}
	err := in.unwrap(bufio.NewReaderSize(r, 1<<20))
	switch {
	case err == io.ErrUnexpectedEOF:
		err = &emptyError{in.Name}
	case errors.Is(err, ErrUnrecognized):
		err = in.named(fmt.Errorf("%w (formats: %s)", err, formatNames()))
	case err != nil:
		err = in.named(err)
	}
	if err == nil && in.opts.ScanPointers && in.opts.ContentsDir == "" && in.Format.Name != fuchsiair.FormatFIDL {
		err = in.named(fmt.Errorf("%w: a ContentsDir, or a %s input, which carries them", ErrNeedsContents, fuchsiair.FormatFIDL))
	}
	if err != nil {
		in.closeWrappers()
		return err
	}
	if len(in.removed) > 0 {
		in.opts.Size, in.opts.At = 0, nil // the decompressed size is unknown
	}
	return nil
}

// named puts the input's name before an error.
func (in *Input) named(err error) error {
	if in.Name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", in.Name, err)
}

// unwrap detects the format of r's data, removing the wrappers around it.
func (in *Input) unwrap(r *bufio.Reader) error {
	in.r = r
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
			if n := len(in.removed); n > 0 && len(head) == 0 {
				return io.ErrUnexpectedEOF // an empty file, compressed
			} else if n > 0 {
				return fmt.Errorf("%w inside the %s data", ErrUnrecognized, in.removed[n-1].wr.Name)
			}
			return ErrUnrecognized
		}
		return nil
	}
	if in.Compression == "" {
		in.Compression = wr.Name
	}
	big, _ := r.Peek(peekSize)
	inner, err := wr.unwrapHead(big, len(big) < peekSize)
	if err != nil {
		return err
	}
	if in.Format == nil {
		if f := Detect(inner); f != nil && f.ownWrapper == wr.Name {
			in.Format = f
		}
	}
	if in.Format != nil && in.Format.ownWrapper == wr.Name {
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
	return in.unwrap(bufio.NewReaderSize(u, 1<<20))
}

// Unwrapped reports whether a compression was removed for reading (the
// data's size is then unknown until it is read).
func (in *Input) Unwrapped() bool { return len(in.removed) > 0 }

// Index lists the file's snapshots, a line describing each, from the
// file's table of contents, without reading them: for a MoarVM file opened
// with OpenFile and not compressed. It returns nil when the snapshots
// cannot be listed so (Read can always tell).
func (in *Input) Index() []string {
	if in.Format.index == nil || in.file == nil || len(in.removed) > 0 || in.opts.Size <= 0 {
		return nil
	}
	list, err := in.Format.index(in.file, in.opts.Size)
	if err != nil {
		// The read will say what is wrong (or recover what it can).
		return nil
	}
	return list
}

// Read reads the whole input into the IR and closes the input. Its
// errors name the input; damage is an *ir.FormatError with the byte
// offset (in a compressed input, of the compressed file when the
// compressed data is damaged, else of the decompressed data).
func (in *Input) Read() (*ir.File, error) {
	f, err := in.readAll()
	if err != nil {
		return nil, in.named(err)
	}
	return f, nil
}

// SnapshotCount returns how many snapshots the input holds when its index
// tells without reading them (a .heapir.zst file written since schema 8),
// else -1.
func (in *Input) SnapshotCount() int {
	if in.Format.countSnapshots == nil || in.opts.At == nil || in.opts.Size <= 0 || len(in.removed) > 0 {
		return -1
	}
	n, err := in.Format.countSnapshots(in.opts.At, in.opts.Size)
	if err != nil {
		return -1
	}
	return n
}

// ReadSnapshot reads snapshot n of the input, as (*ir.File).Select(n)
// gives it from the whole file (for a series, the file the snapshot came
// from), and closes the input. A .heapir.zst file with an index of its
// snapshots is read in part: its head, the snapshot, and the snapshots it
// is stored against; any other input is read whole. A number past the
// last snapshot is a *SnapshotError with ErrNoSnapshot.
func (in *Input) ReadSnapshot(n int) (*ir.File, error) {
	if in.Format.readSnapshot != nil && in.opts.At != nil && in.opts.Size > 0 && len(in.removed) == 0 && !in.done {
		g, err := in.Format.readSnapshot(in.opts.At, in.opts.Size, n)
		switch {
		case err == nil:
			in.done = true
			in.Close()
			return g, nil
		case !errors.Is(err, irstream.ErrNoIndex) && !errors.Is(err, irstream.ErrNoSnapshot):
			in.done = true
			in.Close()
			return nil, in.named(err)
		}
		// Read whole: the reads through At left the stream where it was.
	}
	f, err := in.Read()
	if err != nil {
		return nil, err
	}
	if n < 0 || n >= len(f.Snapshots) {
		return nil, &SnapshotError{Err: ErrNoSnapshot, Name: in.Name, Snapshot: n, Snapshots: describeSnapshots(f)}
	}
	g, err := f.Select(n)
	if err != nil {
		return nil, in.named(err)
	}
	return g, nil
}

// errTaken is the error of an input whose data was taken already.
var errTaken = errors.New("the input was read or closed already")

// readAll is Read with errors that do not name the input.
func (in *Input) readAll() (*ir.File, error) {
	if err := in.take(); err != nil {
		return nil, err
	}
	defer in.Close()
	opts := in.opts
	if len(in.removed) > 0 {
		opts.within = ir.Decompressed
	}
	if p := opts.Progress; p != nil && len(in.removed) > 0 {
		// The decompressed size is unknown: tell how far into the
		// compressed file the read is.
		opts.Progress = func(int64, int64) { p(in.removed[0].c.published.Load(), in.fileSize) }
	}
	f, err := in.Format.read(in.r, &opts)
	if err != nil {
		return nil, in.within(err)
	}
	return f, nil
}

// Validate checks the input against what its format's own consumers
// require and returns the violations, each naming its byte offset (not
// the input); none for a valid file. A V8 file is checked against every rule Chrome
// DevTools' loader relies on, and every violation is listed; other
// formats are validated as they are read, which stops at the first. A
// damaged MoarVM file that can only partly be recovered is a violation.
// Validate reads the input and closes it.
func (in *Input) Validate() []error {
	if in.Format.Name == v8ir.Format {
		if err := in.take(); err != nil {
			return []error{err}
		}
		defer in.Close()
		errs := rv8.Validate(in.r, rv8.Options{Size: in.opts.Size})
		for i, err := range errs {
			errs[i] = in.within(err)
		}
		return errs
	}
	f, err := in.readAll()
	switch {
	case err != nil:
		return []error{err}
	case moarvmir.FileOf(f) != nil && moarvmir.FileOf(f).Recovery != nil:
		rec := moarvmir.FileOf(f).Recovery
		return []error{(in.within(ir.Errorf(moarvmir.Format, rec.DamageAt, "damaged file (%s): %s recovered, %d lost",
			rec.Reason, plural(len(f.Snapshots), "snapshot"), rec.Lost)))}
	}
	return nil
}

// take marks the input's data taken, or says it was already.
func (in *Input) take() error {
	if in.done {
		return errTaken
	}
	in.done = true
	return nil
}

// Close releases the input; Read and Validate close it themselves, and
// closing again does nothing.
func (in *Input) Close() error {
	in.done = true
	if in.closed {
		return nil
	}
	in.closed = true
	in.closeWrappers()
	if in.file != nil {
		return in.file.Close()
	}
	return nil
}

func (in *Input) closeWrappers() {
	for _, u := range in.removed {
		u.Close()
	}
}

// within puts an error of the format's reader in terms of the file as
// given when wrappers were removed: damage to the compressed data is the
// cause to report, with its offset in the file; otherwise the reader's
// offset is marked as one of the decompressed data.
func (in *Input) within(err error) error {
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

// Read reads a heap snapshot from r, detecting its format (or taking
// opts.Format) and looking through gzip and zstd. opts may be nil.
func Read(r io.Reader, opts *ReadOptions) (*ir.File, error) {
	in, err := Open(r, opts)
	if err != nil {
		return nil, err
	}
	return in.Read()
}

// ReadFile reads the named heap-snapshot file, detecting its format (or
// taking opts.Format) and looking through gzip and zstd. opts may be nil.
func ReadFile(name string, opts *ReadOptions) (*ir.File, error) {
	in, err := OpenFile(name, opts)
	if err != nil {
		return nil, err
	}
	return in.Read()
}

// ctxReader, ctxReaderAt and ctxWriter fail once their context is done,
// so that a reader or writer in the middle of a long file stops at its
// next read or write.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
