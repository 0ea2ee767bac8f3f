package fuchsia_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/readers/fuchsia"
)

// Hostile profiles and contents directories, built by hand: each test is a
// problem a review found, fixed.

func pbVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func pbInt(b []byte, field int, v uint64) []byte { return pbVarint(pbVarint(b, uint64(field<<3)), v) }

func pbBytes(b []byte, field int, p []byte) []byte {
	b = pbVarint(b, uint64(field<<3|2))
	b = pbVarint(b, uint64(len(p)))
	return append(b, p...)
}

// pbHeader is a profile's string table and ffx's two sample types.
func pbHeader() (b []byte) {
	for _, s := range []string{"", "objects", "count", "allocated", "bytes"} {
		b = pbBytes(b, 6, []byte(s))
	}
	b = pbBytes(b, 1, pbInt(pbInt(nil, 1, 1), 2, 2))
	return pbBytes(b, 1, pbInt(pbInt(nil, 1, 3), 2, 4))
}

func gzipped(b []byte) []byte {
	var w bytes.Buffer
	z, _ := gzip.NewWriterLevel(&w, 9)
	z.Write(b)
	z.Close()
	return w.Bytes()
}

func allocated(data []byte, o fuchsia.Options) (uint64, error) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	_, err := fuchsia.ReadBytes(data, o)
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, err
}

// A FIFO named like a block is refused, not opened (which would wait for
// a writer forever).
func TestContentsFIFO(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fuchsia/gen-current-tags.pb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "0x25320000040"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := fuchsia.ReadBytes(data, fuchsia.Options{ContentsDir: dir}); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a FIFO read as contents")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read hangs on a FIFO named like a block")
	}
}

// A symlink named like a block cannot read a file outside the directory.
func TestContentsSymlinkOut(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fuchsia/gen-current-tags.pb")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fuchsia.ReadBytes(data, fuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, make([]byte, s.Nodes.SelfSize.At(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, fuchsiair.ContentsName(fuchsiair.Of(s), s.Nodes.ID.At(0)))); err != nil {
		t.Fatal(err)
	}
	if g, err := fuchsia.ReadBytes(data, fuchsia.Options{ContentsDir: dir}); err == nil && len(fuchsiair.Of(g.Snapshots[0]).Contents) > 0 {
		t.Fatal("a symlink out of the contents directory was followed")
	}
}

// A long packed list of location ids costs a small multiple of its size.
func TestPackedStackBounded(t *testing.T) {
	b := pbBytes(pbHeader(), 4, pbInt(nil, 1, 1))
	ids := bytes.Repeat([]byte{1}, 4<<20)
	b = pbBytes(b, 2, pbBytes(pbBytes(nil, 1, ids), 2, pbVarint(pbVarint(nil, 1), 1)))
	data := gzipped(b)
	if a, _ := allocated(data, fuchsia.Options{}); a > 50*uint64(len(b)) {
		t.Fatalf("%d-byte input (%d decompressed) allocated %d bytes", len(data), len(b), a)
	}
}

// A gzip trailer claiming a big size does not make the reader allocate it.
func TestGzipTrailerHint(t *testing.T) {
	data := gzipped(pbHeader())
	binary.LittleEndian.PutUint32(data[len(data)-4:], 64<<20-1)
	if a, _ := allocated(data, fuchsia.Options{}); a > 1<<20 {
		t.Fatalf("a %d-byte gzip allocated %d bytes", len(data), a)
	}
}

// A sample per process cannot make each of 200,000 processes a snapshot.
func TestManyProcessesBounded(t *testing.T) {
	b := pbHeader()
	b = pbBytes(b, 6, []byte("process_koid"))
	for i := 0; i < 200000; i++ {
		b = pbBytes(b, 2, pbBytes(pbBytes(nil, 2, pbVarint(pbVarint(nil, 1), 1)), 3, pbInt(pbInt(nil, 1, 5), 3, uint64(i))))
	}
	if a, _ := allocated(b, fuchsia.Options{}); a > 50*uint64(len(b)) {
		t.Fatalf("%d bytes allocated %d", len(b), a)
	}
}

// Two locations with one id: the error names the offset of the second.
func TestDuplicateIDOffset(t *testing.T) {
	b := pbBytes(pbBytes(pbHeader(), 4, pbInt(nil, 1, 7)), 4, pbInt(nil, 1, 7))
	var fe *ir.FormatError
	if _, err := fuchsia.ReadBytes(b, fuchsia.Options{}); !errors.As(err, &fe) || fe.Offset <= 0 {
		t.Fatalf("got %v", err)
	}
}
