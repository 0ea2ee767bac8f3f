package fuchsia_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/internal/gotool"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	"github.com/heapconv/heapconv/writers/fuchsia"
)

// TestGraphV8 writes a V8 snapshot as a profile: pprof -top ranks its
// classes by bytes, with the same totals.
func TestGraphV8(t *testing.T) {
	in, err := os.Open("../../testdata/v8/small/compact.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := rv8.Read(in, rv8.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	loss, err := fuchsia.Write(&out, f, fuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := loss.Get(ir.LossEdges); l.Count != int64(f.Snapshots[0].Edges.Len()) {
		t.Errorf("loss report does not count the %d edges:\n%v", f.Snapshots[0].Edges.Len(), loss)
	}
	p, err := profile.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// One sample per node but the synthetic ones (the root and its
	// categories).
	s := f.Snapshots[0]
	var nodes []int
	var want uint64
	for i := range s.Nodes.Len() {
		if s.NodeKindName(i) != ir.KindSynthetic {
			nodes = append(nodes, i)
			want += s.Nodes.SelfSize.At(i)
		}
	}
	if len(p.Sample) != len(nodes) {
		t.Fatalf("%d samples for %d nodes", len(p.Sample), len(nodes))
	}
	var total int64
	for k, smp := range p.Sample {
		total += smp.Value[1]
		leaf := smp.Location[0].Line[0].Function.Name
		if i := nodes[k]; leaf != analysis.ClassName(f, s, i) {
			t.Fatalf("sample %d: leaf %q, class %q", k, leaf, analysis.ClassName(f, s, i))
		}
	}
	if uint64(total) != want {
		t.Errorf("total %d, want %d", total, want)
	}
	top := gotool.RunPprof(t, out.Bytes(), "-top", "-sample_index=allocated")
	if gotool.UsesTool() && !strings.Contains(top, "flat%") {
		t.Errorf("pprof -top:\n%s", top)
	}
	gotool.RunPprof(t, out.Bytes(), "-raw")
	// Reading it back gives Fuchsia IR whose classes are the V8 classes.
	g, err := rfuchsia.ReadBytes(out.Bytes(), rfuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Snapshots[0].Nodes.SelfSize.Sum() != want {
		t.Error("sizes differ after reading back")
	}
}

// TestGraphMoarVM writes a multi-snapshot MoarVM file: one process per
// snapshot.
func TestGraphMoarVM(t *testing.T) {
	in, err := os.Open("../../testdata/moarvm/nqp-1snap.mvmheap")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := rmoarvm.Read(in, rmoarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := fuchsia.Write(&out, f, fuchsia.Options{NoGzip: true}); err != nil {
		t.Fatal(err)
	}
	if rfuchsia.IsGzip(out.Bytes()) {
		t.Error("NoGzip output is gzipped")
	}
	g, err := rfuchsia.ReadBytes(out.Bytes(), rfuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Snapshots) != len(f.Snapshots) {
		t.Errorf("%d processes for %d snapshots", len(g.Snapshots), len(f.Snapshots))
	}
	gotool.RunPprof(t, out.Bytes(), "-top")
}

// TestGraphRandom converts random graphs of every shape.
func TestGraphRandom(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		f := irtest.Random(seed, irtest.Everything(0, 300))
		var out bytes.Buffer
		if _, err := fuchsia.Write(&out, f, fuchsia.Options{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := profile.Parse(bytes.NewReader(out.Bytes())); err != nil {
			t.Fatalf("seed %d: pprof: %v", seed, err)
		}
		if _, err := rfuchsia.ReadBytes(out.Bytes(), rfuchsia.Options{}); err != nil {
			t.Fatalf("seed %d: read back: %v", seed, err)
		}
	}
}
