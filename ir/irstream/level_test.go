package irstream_test

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestEncodeZstdLevel writes one heap at the fastest and the best level:
// the level must reach the encoder (the best file is smaller), and both
// files must read back as the heap.
func TestEncodeZstdLevel(t *testing.T) {
	f := irtest.Random(7, irtest.Options{MinNodes: 60000, MaxNodes: 60000, Classes: true, RootFirst: true})
	sizes := map[zstd.EncoderLevel]int{}
	for _, level := range []zstd.EncoderLevel{zstd.SpeedFastest, irstream.ArchiveLevel, zstd.SpeedBestCompression} {
		var buf bytes.Buffer
		if err := irstream.EncodeZstdLevel(&buf, f, level); err != nil {
			t.Fatalf("%v: encode: %v", level, err)
		}
		sizes[level] = buf.Len()
		g, err := irstream.Decode(&buf)
		if err != nil {
			t.Fatalf("%v: decode: %v", level, err)
		}
		if d := ir.Diff(f, g, 3); len(d) > 0 {
			t.Fatalf("%v: read back differs: %v", level, d)
		}
	}
	t.Logf("sizes: %v", sizes)
	fast, archive, best := sizes[zstd.SpeedFastest], sizes[irstream.ArchiveLevel], sizes[zstd.SpeedBestCompression]
	if !(best < archive && archive < fast) {
		t.Errorf("compressed sizes: fastest %d, archive %d, best %d bytes; want each level smaller than the one before", fast, archive, best)
	}

	// EncodeZstd writes at ArchiveLevel.
	var def bytes.Buffer
	if err := irstream.EncodeZstd(&def, f); err != nil {
		t.Fatal(err)
	}
	if def.Len() != archive {
		t.Errorf("EncodeZstd wrote %d bytes, EncodeZstdLevel at ArchiveLevel %d", def.Len(), archive)
	}
}
