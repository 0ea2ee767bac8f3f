package heapconv_test

import (
	"bytes"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// The IR stream's speed, through the root package's API only, so that
// scripts/bench-ab.sh can run these benchmarks at a commit that predates
// them: a heap of every core feature (three snapshots of 500,000 nodes,
// strings mostly not ASCII), a Fuchsia heap, whose sections are most of
// its columns, and Node 26's heap with allocation tracking (a real V8
// file's strings and sections; small, so its rows vary more).
var irBenchFiles = []struct {
	name string
	make func() *ir.File
}{
	{"v8", func() *ir.File {
		f, err := heapconv.ReadFile("testdata/v8/node26-tracking.heapsnapshot.zst", nil)
		if err != nil {
			panic(err)
		}
		return f
	}},
	{"core", func() *ir.File { return irtest.Random(1, irtest.Everything(500_000, 500_000)) }},
	{"fuchsia", func() *ir.File {
		return irtest.RandomFuchsia(1, irtest.Options{MinNodes: 1_000_000, MaxNodes: 1_000_000}, irtest.FuchsiaEverything())
	}},
}

func BenchmarkIREncode(b *testing.B) {
	for _, c := range irBenchFiles {
		f := c.make()
		b.Run(c.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				cw := &countingWriter{}
				if _, err := heapconv.Write(cw, f, "ir", nil); err != nil {
					b.Fatal(err)
				}
				n = cw.n
			}
			b.SetBytes(n)
		})
	}
}

func BenchmarkIRDecode(b *testing.B) {
	for _, c := range irBenchFiles {
		var buf bytes.Buffer
		if _, err := heapconv.Write(&buf, c.make(), "ir", nil); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := heapconv.Read(bytes.NewReader(buf.Bytes()), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countingWriter counts what is written to it and keeps none of it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
