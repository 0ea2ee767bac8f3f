//go:build unix

package dart_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/internal/mmap"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
)

// TestReadBytesTruncatedMapping: a mapped file truncated before ReadBytes
// reads it faults where its bytes are gone; ReadBytes returns an error
// with an offset past the new end, on one core and split, and does not
// crash.
func TestReadBytesTruncatedMapping(t *testing.T) {
	heap := generated(t, dartgen.Options{Seed: 4, Objects: 40_000})
	for _, splitMin := range []uint64{math.MaxUint64, 1} {
		name := filepath.Join(t.TempDir(), "heap.dartheap")
		if err := os.WriteFile(name, heap, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		data, unmap, err := mmap.Map(f, int64(len(heap)))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := rdart.ReadBytes(data, rdart.Options{}); err != nil || got.Snapshots[0].Nodes.Len() == 0 {
			t.Fatalf("the mapped file, whole: %v", err)
		}
		cut := int64(len(heap) / 3)
		if err := os.Truncate(name, cut); err != nil {
			t.Fatal(err)
		}
		restore := rdart.SetSplit(splitMin, nil, nil)
		_, err = rdart.ReadBytes(data, rdart.Options{})
		restore()
		var fe *ir.FormatError
		if !errors.As(err, &fe) || fe.Offset < cut || fe.Offset >= int64(len(heap)) {
			t.Errorf("split from %d objects: truncated to %d bytes of %d, ReadBytes: %v", splitMin, cut, len(heap), err)
		}
		unmap()
		f.Close()
	}
}
