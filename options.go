package heapconv

import (
	"fmt"
	"io"
)

// ReadOptions adjust reading. A nil *ReadOptions means the zero value:
// the format detected from the content, no block contents, no progress.
type ReadOptions struct {
	// Format names the input's format; "" detects it from the content
	// (inside a gzip or zstd wrapper too). Format.Read ignores it.
	Format string
	// Name names the input in errors ("standard input", say); OpenFile
	// and ReadFile name it by the file name when it is "".
	Name string
	// Size is the input's size in bytes, 0 when unknown. Readers use it
	// to bound what a file's declared counts may allocate, and for
	// progress. OpenFile and ReadFile set it.
	Size int64
	// At reads the same input at offsets, when it is a regular file:
	// formats with a table of contents at the end (MoarVM) read the
	// snapshots through it instead of reading the file into memory.
	// OpenFile and ReadFile set it.
	At io.ReaderAt
	// ContentsDir is a Fuchsia heapdump's block contents directory (what
	// ffx profile heapdump writes with --output-contents-dir).
	ContentsDir string
	// ScanPointers derives edges from a Fuchsia heapdump's block
	// contents: every aligned 64-bit word that holds the address of
	// another live block becomes an edge (a heuristic: integers that look
	// like addresses count too), so that the heap has retainers and
	// retained sizes.
	ScanPointers bool
	// Progress, when set, is called now and then while a V8, Dart or
	// MoarVM input is read (the formats whose files reach gigabytes), with
	// how many bytes have been read and the input's size (0 when
	// unknown). For compressed input both count compressed bytes, and the
	// last call may stop short of the total by the decompressor's buffer.
	Progress func(done, total int64)
	// within is what the reader's offsets count the bytes of when Input
	// removed a wrapper (ir.Decompressed), for readers that say so
	// themselves in what they return beside errors (MoarVM's recovery).
	within string
}

// progress adapts Progress to the readers' callback, which reports bytes
// read only.
func (o *ReadOptions) progress() func(int64) {
	if o.Progress == nil {
		return nil
	}
	return func(n int64) { o.Progress(n, o.Size) }
}

// WriteOptions adjust writing. A nil *WriteOptions means the zero value.
type WriteOptions struct {
	// Compress writes the format's own compressed variant where it has
	// one: .heapir.zst for the IR. (A Fuchsia pprof profile is gzipped
	// unless NoGzip is set.)
	Compress bool
	// NoGzip writes a Fuchsia pprof profile uncompressed, as older ffx
	// versions did.
	NoGzip bool
	// Level is how hard a compressed output is compressed: a .heapir.zst,
	// and any output written in a .gz or .zst wrapper
	// (x.heapsnapshot.zst). The zero value is LevelDefault. An output
	// that is not compressed ignores it, and so does the compression a
	// format has inside: a Fuchsia pprof profile's own gzip (.pb.gz) and
	// a MoarVM file's zstd blocks, which stay as their own tools write
	// them.
	Level Level
	// ContentsDir receives a Fuchsia pprof profile's block contents, one
	// file per block, as ffx profile heapdump writes them.
	ContentsDir string
	// Progress, when set, is called now and then with how many bytes have
	// been written.
	Progress func(written int64)
	// AsRead writes a file in its own format as it was read, without the
	// corrections the writer otherwise makes where the file breaks what
	// the format's readers need (a V8 header's trace_function_count) and
	// names in the loss report. RoundTrip compares the rest of the file
	// so.
	AsRead bool
}

// A Level is how hard WriteOptions.Level asks a compressed output to be
// compressed: a trade of the time to write for the size written. Every
// level reads back the same way.
type Level uint8

const (
	// LevelDefault compresses well while staying quick to write: zstd's
	// "better" level (on a Node heap's IR 30% smaller than LevelFast for
	// a fifth more time, and as small as LevelBest), gzip's default level.
	LevelDefault Level = iota
	// LevelFast writes fastest: zstd's and gzip's fastest levels.
	LevelFast
	// LevelBest writes the smallest files, several times slower than
	// LevelDefault: zstd's and gzip's best levels.
	LevelBest
)

// levelNames are the levels' names, as ParseLevel takes them.
var levelNames = [...]string{LevelDefault: "default", LevelFast: "fast", LevelBest: "best"}

// String returns the level's name: "default", "fast" or "best".
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// ParseLevel returns the level named "fast", "default" or "best" (as
// String names them), or an error that lists those names.
func ParseLevel(s string) (Level, error) {
	for l, name := range levelNames {
		if s == name {
			return Level(l), nil
		}
	}
	return 0, fmt.Errorf("unknown compression level %q (levels: fast, default, best)", s)
}

// valid reports whether l is one of the levels.
func (l Level) valid() bool { return int(l) < len(levelNames) }
