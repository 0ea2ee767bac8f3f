// Package formats is the registry of heap-snapshot formats the command line
// and the conformance suite know: names, file extensions, content detection,
// and the reader and writer of each format that has one. It is the one
// place that imports every format package.
package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

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

// ReadOptions are passed to every reader.
type ReadOptions struct {
	Size int64 // input size in bytes, 0 when unknown
	// At reads the same input at offsets, when it is a regular file:
	// formats with a table of contents at the end (MoarVM) use it instead
	// of reading everything into memory.
	At       io.ReaderAt
	Progress func(read int64)
	// ContentsDir is a Fuchsia heapdump's block contents directory (ffx
	// --output-contents-dir); ScanPointers derives edges from it.
	ContentsDir  string
	ScanPointers bool
}

// WriteOptions are passed to every writer.
type WriteOptions struct {
	// Compress selects the compressed variant where a format has one
	// (.heapir.zst).
	Compress bool
	Progress func(written int64)
	// NoGzip writes a Fuchsia profile uncompressed (older ffx's layout);
	// ContentsDir receives its block contents, one file per block.
	NoGzip      bool
	ContentsDir string
}

// Format describes one format.
type Format struct {
	Name        string
	Description string
	Extensions  []string
	// Versions says which variants the reader understands.
	Versions string
	// Read and Write are nil while the format is not implemented.
	Read  func(r io.Reader, opts ReadOptions) (*ir.File, error)
	Write func(w io.Writer, f *ir.File, opts WriteOptions) (ir.LossReport, error)
	// ByteExact is true when reading and writing the format again
	// reproduces the file byte for byte.
	ByteExact bool
	// Reproduces, when set, narrows ByteExact to the files it is true
	// for (V8: the layouts V8 writes, not other producers' white space);
	// others are compared with Equivalent.
	Reproduces func(f *ir.File) bool
	// MultiSnapshot is true when one file can hold several snapshots.
	MultiSnapshot bool
	// Index, when set, lists a file's snapshots (a line describing each)
	// cheaply, without reading them: from a table of contents.
	Index func(ra io.ReaderAt, size int64) ([]string, error)
	// Equivalent, for a format that is not byte-exact, compares a file
	// written from what was read (written) with the original (orig, its
	// decompressed data) at the level the format promises. It returns
	// what it compared, and an error naming the first difference (nil
	// when they are the same).
	Equivalent func(written, orig []byte) (level string, err error)
	// OwnWrapper names the compression the format reads and writes
	// itself (WriteOptions.Compress), "" for none: Open leaves it on.
	OwnWrapper string
}

// All lists every format, implemented or not.
var All = []*Format{
	{
		Name:          ir.FormatIR,
		Description:   "heapconv's intermediate representation (msgpack; .zst compressed)",
		Extensions:    []string{".heapir", ".heapir.zst"},
		MultiSnapshot: true,
		OwnWrapper:    "zstd",
		Versions:      fmt.Sprintf("schema versions 1-%d", ir.Version),
		Read: func(r io.Reader, _ ReadOptions) (*ir.File, error) {
			return ir.Decode(r)
		},
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			if o.Compress {
				return nil, ir.EncodeZstd(w, f)
			}
			return nil, ir.Encode(w, f)
		},
	},
	{
		Name:        ir.FormatV8,
		Description: "V8 / Chrome DevTools heap snapshot (JSON)",
		Extensions:  []string{".heapsnapshot"},
		Versions:    "V8 11-15 (Node 20, 22, 24, 26, Chrome) and other producers",
		Read: func(r io.Reader, o ReadOptions) (*ir.File, error) {
			return rv8.Read(r, rv8.Options{Size: o.Size, Progress: o.Progress})
		},
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			return wv8.Write(w, f, wv8.Options{Progress: o.Progress})
		},
		ByteExact:  true,
		Reproduces: v8Reproduces,
		Equivalent: v8Equivalent,
	},
	{
		Name:        ir.FormatDart,
		Description: "Dart VM heap snapshot (dartheap; also named .heapsnapshot, .data or .json)",
		Extensions:  []string{".dartheap"},
		Versions:    "VM layouts 2019-2020, 2021 (identity hash codes) and 2022+ (Root/Read-Only Pages/Isolate classes); DevTools exports",
		Read: func(r io.Reader, o ReadOptions) (*ir.File, error) {
			return rdart.Read(r, rdart.Options{Size: o.Size, Progress: o.Progress})
		},
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			return wdart.Write(w, f, wdart.Options{Progress: o.Progress})
		},
		ByteExact: true,
	},
	{
		Name:          ir.FormatMoarVM,
		Description:   "MoarVM heap snapshot (several snapshots per file)",
		MultiSnapshot: true,
		Extensions:    []string{".mvmheap"},
		Versions:      "format v3 (MoarVM 2019.11 and later; damaged or truncated files recovered) and v2 (MoarVM built without zstd, as Debian's)",
		Read:          readMoarVM,
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			return wmoarvm.Write(w, f, wmoarvm.Options{Progress: o.Progress})
		},
		Index:      moarvmIndex,
		Equivalent: moarvmEquivalent,
	},
	{
		Name:          ir.FormatFuchsia,
		Description:   "Fuchsia heapdump pprof profile (ffx profile heapdump; with its block contents directory)",
		Extensions:    []string{".pb", ".pb.gz"},
		OwnWrapper:    "gzip",
		Versions:      "every ffx layout since 2023: per-block (--with-tags) and stack-merged samples, symbolized or not, multi-process, kernel snapshots; gzipped or not",
		MultiSnapshot: true,
		Read: func(r io.Reader, o ReadOptions) (*ir.File, error) {
			return rfuchsia.Read(r, rfuchsia.Options{ContentsDir: o.ContentsDir, ScanPointers: o.ScanPointers})
		},
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			return wfuchsia.Write(w, f, wfuchsia.Options{NoGzip: o.NoGzip, ContentsDir: o.ContentsDir})
		},
		Equivalent: pprofEquivalent,
	},
	{
		Name:          ir.FormatFuchsiaFIDL,
		Description:   "Fuchsia heapdump FIDL SnapshotElement stream (fuchsia.memory.heapdump.client, in heapconv's container file)",
		Extensions:    []string{".fidlstream"},
		Versions:      "the client API's SnapshotElement (API levels 15-29: with or without Allocation.count, ExecutableRegion.vaddr and name), single- and multi-process, with block contents; unknown table fields kept",
		MultiSnapshot: true,
		ByteExact:     true,
		Read: func(r io.Reader, o ReadOptions) (*ir.File, error) {
			if o.ContentsDir != "" {
				return nil, fmt.Errorf("%s: --contents is for pprof profiles: a FIDL stream carries its block contents", ir.FormatFuchsiaFIDL)
			}
			return rfuchsia.ReadFIDL(r, o.Size, rfuchsia.Options{ScanPointers: o.ScanPointers})
		},
		Write: func(w io.Writer, f *ir.File, o WriteOptions) (ir.LossReport, error) {
			if o.NoGzip || o.ContentsDir != "" {
				return nil, fmt.Errorf("%s: --no-gzip and --out-contents are for pprof profiles: a FIDL stream carries its block contents", ir.FormatFuchsiaFIDL)
			}
			return wfuchsia.WriteFIDL(w, f)
		},
	},
}

// ByName returns the named format, or nil.
func ByName(name string) *Format {
	for _, f := range All {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Names lists the format names.
func Names() []string {
	var n []string
	for _, f := range All {
		n = append(n, f.Name)
	}
	return n
}

// ByExtension picks the format from a file name's extension, or nil.
func ByExtension(path string) *Format {
	base := strings.ToLower(filepath.Base(path))
	var best *Format
	bestLen := 0
	for _, f := range All {
		for _, e := range f.Extensions {
			if strings.HasSuffix(base, e) && len(e) > bestLen {
				best, bestLen = f, len(e)
			}
		}
	}
	return best
}

// Detect names the format of data starting with head (at least the first
// 512 bytes when the file has them), or returns nil. Extensions are not
// trusted: Dart and V8 files share .heapsnapshot. Compressed data is
// Open's to look into.
func Detect(head []byte) *Format {
	switch {
	case bytes.HasPrefix(head, ir.Magic):
		return ByName(ir.FormatIR)
	case bytes.HasPrefix(head, []byte("dartheap")):
		return ByName(ir.FormatDart)
	case bytes.HasPrefix(head, []byte("MoarHeapDumpv")):
		return ByName(ir.FormatMoarVM)
	case rfuchsia.IsFIDL(head):
		return ByName(ir.FormatFuchsiaFIDL)
	case len(head) >= 3 && head[0] == 0x0a && head[1] < 0x80 && head[2] == 0x08:
		// An uncompressed pprof profile (older ffx): field 1, a sample
		// type, whose first field is its type's string index.
		return ByName(ir.FormatFuchsia)
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(t, []byte("{")) {
		t = bytes.TrimLeft(t[1:], " \t\r\n")
		if bytes.HasPrefix(t, []byte(`"snapshot"`)) {
			return ByName(ir.FormatV8)
		}
	}
	return nil
}

// readMoarVM reads a MoarVM file. One whose compressed wrapper is cut
// short (an interrupted download of a .mvmheap.gz) is recovered snapshot
// by snapshot as the same file cut short would be.
func readMoarVM(r io.Reader, o ReadOptions) (*ir.File, error) {
	opts := rmoarvm.Options{Size: o.Size, At: o.At, Progress: o.Progress}
	if o.At != nil && o.Size > 0 {
		return rmoarvm.Read(r, opts)
	}
	data, err := io.ReadAll(r)
	var fe *ir.FormatError
	if err != nil && errors.As(err, &fe) && WrapperByName(fe.Format) != nil {
		f, rerr := rmoarvm.ReadAt(bytes.NewReader(data), int64(len(data)), opts)
		if rerr == nil && f.MoarVM != nil && f.MoarVM.Recovery != nil {
			f.MoarVM.Recovery.Reason = fmt.Sprintf("%v, after %d bytes of data", err, len(data))
			return f, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return rmoarvm.ReadAt(bytes.NewReader(data), int64(len(data)), opts)
}
