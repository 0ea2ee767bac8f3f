package v8

import (
	"bytes"
	"io"
	"math/rand"
	"strconv"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
)

// benchFile builds a V8-shaped snapshot of n nodes (about 3 edges each)
// directly in the IR, the way the reader leaves it.
func benchFile(n int, layout v8ir.Layout) *ir.File {
	r := rand.New(rand.NewSource(1))
	f := &ir.File{Format: v8ir.Format, Strings: []string{"<dummy>"}}
	for i := 1; i < 5000; i++ {
		f.Strings = append(f.Strings, "name"+strconv.Itoa(i))
	}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	nd := &s.Nodes
	nd.FirstEdge = []uint32{0}
	var det ir.Uints
	for i := 0; i < n; i++ {
		nd.Kind = append(nd.Kind, uint8(r.Intn(14)))
		nd.Name = append(nd.Name, uint32(1+r.Intn(4999)))
		nd.ID.Append(uint64(2*i + 1))
		nd.SelfSize.Append(uint64(r.Intn(200)))
		det.Append(0)
		for j := r.Intn(7); j > 0; j-- {
			k := uint8(r.Intn(7))
			s.Edges.Kind = append(s.Edges.Kind, k)
			if k == 1 || k == 4 {
				s.Edges.Name = append(s.Edges.Name, uint32(r.Intn(100)))
			} else {
				s.Edges.Name = append(s.Edges.Name, uint32(1+r.Intn(4999)))
			}
			s.Edges.Target = append(s.Edges.Target, uint32(r.Intn(n)))
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(s.Edges.Len()))
	}
	s.SetSection(v8ir.DefaultSection(s, ""))
	v8ir.Of(s).Layout = layout
	v8ir.Of(s).NodeExtra = []v8ir.Field{{Name: "detachedness", Values: det}}
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func benchmarkWrite(b *testing.B, layout v8ir.Layout) {
	f := benchFile(2_000_000, layout)
	var cw countWriter
	if _, err := Write(&cw, f, Options{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(cw.n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Write(io.Discard, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteCompact measures writing a Node ≥ 24 style file (~110 MB).
func BenchmarkWriteCompact(b *testing.B) { benchmarkWrite(b, v8ir.LayoutCompact) }

// BenchmarkWriteRows measures writing a Node ≤ 22 style file.
func BenchmarkWriteRows(b *testing.B) { benchmarkWrite(b, v8ir.LayoutRows) }

// BenchmarkDartToV8 converts a generated 1 M-object Dart heap (read once,
// outside the timing) to a V8 .heapsnapshot in memory: fromDart, Convert
// and Write.
func BenchmarkDartToV8(b *testing.B) {
	var buf bytes.Buffer
	if _, err := dartgen.Generate(&buf, dartgen.Options{Seed: 1, Objects: 1_000_000}); err != nil {
		b.Fatal(err)
	}
	f, err := rdart.Read(bytes.NewReader(buf.Bytes()), rdart.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var out bytes.Buffer
	for i := 0; i < b.N; i++ {
		out.Reset()
		if _, err := Write(&out, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.Len()), "out-bytes")
}
