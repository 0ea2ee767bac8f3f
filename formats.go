package heapconv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/internal/mmap"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	wdart "github.com/heapconv/heapconv/writers/dart"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
	wmoarvm "github.com/heapconv/heapconv/writers/moarvm"
	wv8 "github.com/heapconv/heapconv/writers/v8"
)

// Format describes one format heapconv reads and writes.
type Format struct {
	// Name is the format's name on the command line and in ir.File.Format
	// ("v8", "dart", "moarvm", "fuchsia", "fuchsia-fidl", "ir").
	Name string
	// Description says what the format is, in a line.
	Description string
	// Extensions are the file name suffixes that name the format, lower
	// case, the most specific first.
	Extensions []string
	// Versions says which variants the reader understands.
	Versions string
	// ByteExact is true when reading and writing the format again
	// reproduces the file byte for byte (for V8: the layouts V8 writes;
	// another producer's white space is written as V8 writes it).
	ByteExact bool
	// MultiSnapshot is true when one file can hold several snapshots.
	MultiSnapshot bool

	read  func(r io.Reader, opts *ReadOptions) (*ir.File, error)
	write func(w io.Writer, f *ir.File, opts *WriteOptions) (ir.LossReport, error)
	// reproduces, when set, narrows ByteExact to the files it is true
	// for; the others are compared with equivalent.
	reproduces func(f *ir.File) bool
	// index, when set, lists a file's snapshots (a line describing each)
	// cheaply, without reading them: from a table of contents.
	index func(ra io.ReaderAt, size int64) ([]string, error)
	// readSnapshot, when set, reads one snapshot of a file (as
	// (*ir.File).Select gives it) without reading the others, or says
	// with irstream.ErrNoIndex that this file must be read whole.
	readSnapshot func(ra io.ReaderAt, size int64, n int) (*ir.File, error)
	// countSnapshots, with readSnapshot, says how many snapshots the file
	// holds from its index alone.
	countSnapshots func(ra io.ReaderAt, size int64) (int, error)
	// equivalent, for a format that is not byte-exact, compares a file
	// written from what was read (written) with the original (orig, its
	// decompressed data) at the level the format promises. It returns
	// what it compared, and an error naming the first difference (nil
	// when they are the same).
	equivalent func(written, orig []byte) (level string, err error)
	// ownWrapper names the compression the format reads and writes
	// itself (WriteOptions.Compress), "" for none: Open leaves it on.
	ownWrapper string
}

// Read parses data in format f, which must not be compressed unless the
// format reads its own compression (a gzipped pprof profile, .heapir.zst);
// the package-level Read detects the format and removes gzip and zstd
// wrappers. opts may be nil.
func (f *Format) Read(r io.Reader, opts *ReadOptions) (*ir.File, error) {
	if opts == nil {
		opts = &ReadOptions{}
	}
	return f.read(r, opts)
}

// Write writes file in format f and returns what the format could not
// hold. opts may be nil.
func (f *Format) Write(w io.Writer, file *ir.File, opts *WriteOptions) (ir.LossReport, error) {
	if opts == nil {
		opts = &WriteOptions{}
	}
	if err := checkLevel(opts.Level); err != nil {
		return nil, err
	}
	return f.write(w, file, opts)
}

// Reproduces reports whether writing file in format f again gives back
// the bytes it was read from; when not, f.Equivalent compares the two.
func (f *Format) Reproduces(file *ir.File) bool {
	return f.ByteExact && (f.reproduces == nil || f.reproduces(file))
}

// Equivalent compares written, a file of format f written from what was
// read from orig, with orig (both decompressed), at the level the format
// promises: it returns that level in words, and an error naming the first
// difference, or nil. For a byte-exact format it compares bytes.
func (f *Format) Equivalent(written, orig []byte) (level string, err error) {
	if f.equivalent == nil {
		const level = "byte for byte"
		cmp := newCompareWriter(bytes.NewReader(orig))
		cmp.Write(written)
		cmp.finish()
		if cmp.diffAt >= 0 {
			return level, fmt.Errorf("differs at byte %d%s (original %d bytes, written %d bytes)", cmp.diffAt, cmp.position(), cmp.origLen, cmp.n)
		}
		return level, nil
	}
	return f.equivalent(written, orig)
}

// Index lists the snapshots of a file of format f from its table of
// contents, a line describing each, without reading them; it returns nil
// for a format without one. ra is the whole file, uncompressed.
func (f *Format) Index(ra io.ReaderAt, size int64) ([]string, error) {
	if f.index == nil {
		return nil, nil
	}
	return f.index(ra, size)
}

// readDart reads a Dart heap. A regular file read without a context that
// may stop it (OpenFile, ReadFile, ConvertFile, the command) is mapped
// into memory and decoded where it is, on two cores, without copying it
// into buffers (rdart.ReadBytes); other inputs, and files the system
// cannot map, are read.
func readDart(r io.Reader, o *ReadOptions) (*ir.File, error) {
	if f, ok := o.At.(*os.File); ok && o.Size > 0 {
		if data, unmap, err := mmap.Map(f, o.Size); err == nil {
			defer unmap()
			if dartMapped != nil {
				dartMapped(true)
			}
			return rdart.ReadBytes(data, rdart.Options{Progress: o.progress()})
		}
	}
	if dartMapped != nil {
		dartMapped(false)
	}
	return rdart.Read(r, rdart.Options{Size: o.Size, At: o.At, Progress: o.progress()})
}

// dartMapped, when set (by tests), is told whether readDart mapped its
// input.
var dartMapped func(mapped bool)

// formats lists every format, in the order Formats returns them.
var formats = []*Format{
	{
		Name:          ir.FormatIR,
		Description:   "heapconv's intermediate representation (msgpack; .zst compressed)",
		Extensions:    []string{".heapir", ".heapir.zst"},
		MultiSnapshot: true,
		ownWrapper:    "zstd",
		Versions:      fmt.Sprintf("schema versions 1-%d", ir.Version),
		read: func(r io.Reader, o *ReadOptions) (*ir.File, error) {
			return irstream.DecodeWith(r, irstream.DecodeOptions{Size: o.Size})
		},
		readSnapshot:   irstream.DecodeSnapshot,
		countSnapshots: irstream.CountSnapshots,
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			if o.Compress {
				return nil, irstream.EncodeZstdLevel(w, f, zstdLevels[o.Level])
			}
			return nil, irstream.Encode(w, f)
		},
	},
	{
		Name:        v8ir.Format,
		Description: "V8 / Chrome DevTools heap snapshot (JSON)",
		Extensions:  []string{".heapsnapshot"},
		Versions:    "V8 11-15 (Node 20, 22, 24, 26, Chrome) and other producers",
		read: func(r io.Reader, o *ReadOptions) (*ir.File, error) {
			return rv8.Read(r, rv8.Options{Size: o.Size, Progress: o.progress()})
		},
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			return wv8.Write(w, f, wv8.Options{Progress: o.Progress, AsRead: o.AsRead})
		},
		ByteExact:  true,
		reproduces: v8Reproduces,
		equivalent: v8Equivalent,
	},
	{
		Name:        dartir.Format,
		Description: "Dart VM heap snapshot (dartheap; also named .heapsnapshot, .data or .json)",
		Extensions:  []string{".dartheap"},
		Versions:    "VM layouts 2019-2020, 2021 (identity hash codes) and 2022+ (Root/Read-Only Pages/Isolate classes); DevTools exports",
		read:        readDart,
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			return wdart.Write(w, f, wdart.Options{Progress: o.Progress})
		},
		ByteExact: true,
	},
	{
		Name:          moarvmir.Format,
		Description:   "MoarVM heap snapshot (several snapshots per file)",
		MultiSnapshot: true,
		Extensions:    []string{".mvmheap"},
		Versions:      "format v3 (MoarVM 2019.11 and later; damaged or truncated files recovered) and v2 (MoarVM built without zstd, as Debian's)",
		read:          readMoarVM,
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			return wmoarvm.Write(w, f, wmoarvm.Options{Progress: o.Progress})
		},
		index:      moarvmIndex,
		equivalent: moarvmEquivalent,
	},
	{
		Name:          fuchsiair.Format,
		Description:   "Fuchsia heapdump pprof profile (ffx profile heapdump; with its block contents directory)",
		Extensions:    []string{".pb", ".pb.gz"},
		ownWrapper:    "gzip",
		Versions:      "every ffx layout since 2023: per-block (--with-tags) and stack-merged samples, symbolized or not, multi-process, kernel snapshots; gzipped or not",
		MultiSnapshot: true,
		read: func(r io.Reader, o *ReadOptions) (*ir.File, error) {
			return rfuchsia.Read(r, rfuchsia.Options{ContentsDir: o.ContentsDir, ScanPointers: o.ScanPointers})
		},
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			return wfuchsia.Write(w, f, wfuchsia.Options{NoGzip: o.NoGzip, ContentsDir: o.ContentsDir})
		},
		equivalent: pprofEquivalent,
	},
	{
		Name:          fuchsiair.FormatFIDL,
		Description:   "Fuchsia heapdump FIDL SnapshotElement stream (fuchsia.memory.heapdump.client, in heapconv's container file)",
		Extensions:    []string{".fidlstream"},
		Versions:      "the client API's SnapshotElement (API levels 15-29: with or without Allocation.count, ExecutableRegion.vaddr and name), single- and multi-process, with block contents; unknown table fields kept",
		MultiSnapshot: true,
		ByteExact:     true,
		read: func(r io.Reader, o *ReadOptions) (*ir.File, error) {
			if o.ContentsDir != "" {
				return nil, fmt.Errorf("%w: %w; a FIDL stream carries its block contents", ErrOption, ErrContentsDir)
			}
			return rfuchsia.ReadFIDL(r, rfuchsia.Options{Size: o.Size, ScanPointers: o.ScanPointers})
		},
		write: func(w io.Writer, f *ir.File, o *WriteOptions) (ir.LossReport, error) {
			if o.NoGzip || o.ContentsDir != "" {
				return nil, fmt.Errorf("%w: NoGzip and ContentsDir are for pprof profiles; a FIDL stream carries its block contents", ErrOption)
			}
			return wfuchsia.WriteFIDL(w, f)
		},
	},
}

// Formats lists the formats heapconv reads and writes. Each is a copy:
// changing it changes nothing in heapconv.
func Formats() []*Format {
	out := make([]*Format, len(formats))
	for i, f := range formats {
		c := *f
		out[i] = &c
	}
	return out
}

// FormatByName returns (a copy of) the named format, or nil.
func FormatByName(name string) *Format {
	if f := formatNamed(name); f != nil {
		c := *f
		return &c
	}
	return nil
}

// formatNamed returns the registry's own entry for the named format.
func formatNamed(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// formatNames lists the format names, for messages.
func formatNames() string {
	var n []string
	for _, f := range formats {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

// FormatByExtension picks the format a file name's extension names, or
// returns nil. A compression suffix is not looked through:
// "x.heapsnapshot.gz" names no format (OutputFormat does look through it).
func FormatByExtension(name string) *Format {
	base := strings.ToLower(filepath.Base(name))
	var best *Format
	bestLen := 0
	for _, f := range formats {
		for _, e := range f.Extensions {
			if strings.HasSuffix(base, e) && len(e) > bestLen {
				best, bestLen = f, len(e)
			}
		}
	}
	if best == nil {
		return nil
	}
	c := *best
	return &c
}

// Detect names the format of data starting with head (at least the first
// 512 bytes when the file has them), or returns nil. Extensions are not
// trusted: Dart and V8 files share .heapsnapshot. Detect does not look
// into compressed data; Open and Read do.
func Detect(head []byte) *Format {
	switch {
	case bytes.HasPrefix(head, irstream.Magic):
		return FormatByName(ir.FormatIR)
	case bytes.HasPrefix(head, []byte("dartheap")):
		return FormatByName(dartir.Format)
	case bytes.HasPrefix(head, []byte("MoarHeapDumpv")):
		return FormatByName(moarvmir.Format)
	case rfuchsia.IsFIDL(head):
		return FormatByName(fuchsiair.FormatFIDL)
	case len(head) >= 3 && head[0] == 0x0a && head[1] < 0x80 && head[2] == 0x08:
		// An uncompressed pprof profile (older ffx): field 1, a sample
		// type, whose first field is its type's string index.
		return FormatByName(fuchsiair.Format)
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) {
		t = bytes.TrimLeft(t[1:], " \t\r\n")
		if bytes.HasPrefix(t, []byte(`"snapshot"`)) {
			return FormatByName(v8ir.Format)
		}
	}
	return nil
}

// readMoarVM reads a MoarVM file. One whose compressed wrapper is cut
// short (an interrupted download of a .mvmheap.gz) is recovered snapshot
// by snapshot as the same file cut short would be.
func readMoarVM(r io.Reader, o *ReadOptions) (*ir.File, error) {
	opts := rmoarvm.Options{Size: o.Size, At: o.At, Progress: o.progress(), Within: o.within}
	if o.At != nil && o.Size > 0 {
		return rmoarvm.Read(r, opts)
	}
	data, err := io.ReadAll(r)
	opts.At, opts.Size = bytes.NewReader(data), int64(len(data))
	var fe *ir.FormatError
	if err != nil && errors.As(err, &fe) && wrapperByName(fe.Format) != nil {
		f, rerr := rmoarvm.Read(bytes.NewReader(data), opts)
		if rerr == nil && moarvmir.FileOf(f) != nil && moarvmir.FileOf(f).Recovery != nil {
			moarvmir.FileOf(f).Recovery.Reason = fmt.Sprintf("%v, after %d bytes of data", err, len(data))
			return f, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return rmoarvm.Read(bytes.NewReader(data), opts)
}
