package fuchsia_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/readers/fuchsia"
)

// The 1 M-allocation case: a profile of the newest ffx (gzipped,
// per-block samples) with every block's contents.
var big struct {
	once  sync.Once
	data  []byte
	fsys  memFS
	snaps []*fuchsiagen.Snapshot
	err   error
}

func bigHeap(b *testing.B) ([]byte, memFS) {
	big.once.Do(func() {
		n := 1_000_000
		if s := os.Getenv("FUCHSIA_BENCH_ALLOCATIONS"); s != "" {
			n, _ = strconv.Atoi(s)
		}
		t0 := time.Now()
		if c := os.Getenv("FUCHSIA_BENCH_PROFILE"); c != "" {
			// Profile only, cached (for BenchmarkRead).
			if big.data, big.err = os.ReadFile(c); big.err == nil {
				return
			}
		}
		h := generate(b, fuchsiagen.Options{Seed: 1, Allocations: n, Contents: true, MaxBlockSize: 4096})
		big.data, big.err = fuchsiagen.ProfileBytes(h.Snapshots, fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true})
		big.snaps = h.Snapshots
		big.fsys = memFS{}
		for _, a := range h.Snapshots[0].Allocations {
			if a.Contents != nil {
				big.fsys[fuchsiagen.ContentsFileName(0, a.Address, false)] = a.Contents
			}
		}
		if c := os.Getenv("FUCHSIA_BENCH_PROFILE"); c != "" {
			os.WriteFile(c, big.data, 0o644)
		}
		b.Logf("generated %d allocations (%d bytes gzipped) in %v", len(h.Snapshots[0].Allocations), len(big.data), time.Since(t0))
	})
	if big.err != nil {
		b.Fatal(big.err)
	}
	return big.data, big.fsys
}

// BenchmarkRead reads the 1 M-allocation profile alone.
func BenchmarkRead(b *testing.B) {
	data, _ := bigHeap(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fuchsia.ReadBytes(data, fuchsia.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadScan reads the 1 M-allocation profile with the contents of
// every block (from memory: a directory of a million files costs what the
// file system charges for a million opens) and derives the edges.
func BenchmarkReadScan(b *testing.B) {
	data, fsys := bigHeap(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := fuchsia.ReadBytes(data, fuchsia.Options{Contents: fsys, ScanPointers: true})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(f.Snapshots[0].Edges.Len()), "edges")
		}
	}
}

// memFS is a flat in-memory file system (fstest.MapFS searches the whole
// map for a file that is not there, to synthesize directories).
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{name: name, b: b}, nil
}

type memFile struct {
	name string
	b    []byte
	off  int
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Read(p []byte) (int, error) {
	if f.off >= len(f.b) {
		return 0, io.EOF
	}
	n := copy(p, f.b[f.off:])
	f.off += n
	return n, nil
}
func (f *memFile) Name() string       { return f.name }
func (f *memFile) Size() int64        { return int64(len(f.b)) }
func (f *memFile) Mode() fs.FileMode  { return 0o444 }
func (f *memFile) ModTime() time.Time { return time.Time{} }
func (f *memFile) IsDir() bool        { return false }
func (f *memFile) Sys() any           { return nil }

// BenchmarkReadFIDLScan reads the same heap as the FIDL element stream the
// collector sends (contents included, in 1 KiB chunks) and derives the
// edges.
func BenchmarkReadFIDLScan(b *testing.B) {
	os.Unsetenv("FUCHSIA_BENCH_PROFILE") // the stream needs the generated heap
	bigHeap(b)
	data, err := fuchsiagen.StreamBytes(big.snaps, fuchsiagen.StreamOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := fuchsia.ReadFIDL(bytes.NewReader(data), fuchsia.Options{Size: int64(len(data)), ScanPointers: true})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(f.Snapshots[0].Edges.Len()), "edges")
		}
	}
}
