package fuchsia_test

import (
	"bytes"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/writers/fuchsia"
)

// TestConvertLosses checks that what a graph heap has and a profile does
// not is in the loss report, counted, each under its kind; and that what
// is written reads back as the report says.
func TestConvertLosses(t *testing.T) {
	graph := func(t *testing.T) *ir.File {
		f := irtest.Random(5, irtest.Options{MinNodes: 60, MaxNodes: 90})
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// convert writes f as a profile and reads it back.
	convert := func(t *testing.T, f *ir.File) (ir.LossReport, *ir.File) {
		t.Helper()
		var out bytes.Buffer
		loss, err := fuchsia.Write(&out, f, fuchsia.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := readPprof(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return loss, g
	}
	wantLoss := func(t *testing.T, loss ir.LossReport, kind string, count int) {
		t.Helper()
		if l, ok := loss.Get(kind); !ok || l.Count != int64(count) {
			t.Errorf("want %d × %s in the loss report:\n%v", count, kind, loss)
		}
	}

	t.Run("weak edges", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		weak := 0
		for e := range s.Edges.Len() {
			if s.EdgeKindOf(e).Name == ir.EdgeWeak {
				weak++
			}
		}
		if weak == 0 {
			t.Fatal("the graph has no weak edge")
		}
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossWeakEdges, weak)
	})

	t.Run("synthetic nodes", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		real := 0
		for i := range s.Nodes.Len() {
			if s.NodeKindName(i) != ir.KindSynthetic {
				real++
			}
		}
		if real == s.Nodes.Len() {
			t.Fatal("the graph has no synthetic node")
		}
		loss, g := convert(t, f)
		if n := g.Snapshots[0].Nodes.Len(); n != real {
			t.Errorf("%d samples read back, want one per object: %d", n, real)
		}
		wantLoss(t, loss, ir.LossNodeKinds, s.Nodes.Len())
		if l, _ := loss.Get(ir.LossNodeKinds); !strings.Contains(l.What, "synthetic") {
			t.Errorf("the loss report does not say the synthetic nodes are not written:\n%v", loss)
		}
	})

	// MoarVM's root collectables are roots, not objects (ir.SyntheticNodes),
	// as V8's synthetic nodes are: no sample stands for one.
	t.Run("moarvm roots", func(t *testing.T) {
		f := irtest.RandomMoarVM(5, irtest.Options{MinNodes: 60, MaxNodes: 90, Snapshots: 1}, irtest.MoarVMOptions{})
		s := f.Snapshots[0]
		roots := 0
		for i := range s.Nodes.Len() {
			if k := s.Nodes.Kind[i]; k >= moarvmir.PermRoots && k != moarvmir.Frame {
				roots++
			}
		}
		if roots == 0 {
			t.Fatal("the heap has no root collectable")
		}
		loss, g := convert(t, f)
		if n := g.Snapshots[0].Nodes.Len(); n != s.Nodes.Len()-roots {
			t.Errorf("%d samples read back, want one per collectable but the %d roots: %d", n, roots, s.Nodes.Len()-roots)
		}
		if l, _ := loss.Get(ir.LossNodeKinds); !strings.Contains(l.What, "synthetic") {
			t.Errorf("the loss report does not say the roots are not written:\n%v", loss)
		}
	})

	t.Run("roots", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		cat := uint32(len(f.Strings))
		f.Strings = append(f.Strings, "(Handle scope)")
		s.Roots = []ir.RootRef{{Node: 1, Category: cat}, {Node: 2, Category: cat}}
		loss, g := convert(t, f)
		b := g.Snapshots[0]
		// Read back, every sample is a root: that is what the report
		// counts.
		if len(b.Roots) != b.Nodes.Len() {
			t.Fatalf("%d roots read back for %d samples", len(b.Roots), b.Nodes.Len())
		}
		wantLoss(t, loss, ir.LossGCRoots, b.Nodes.Len())
	})

	t.Run("totals", func(t *testing.T) {
		f := graph(t)
		f.Snapshots[0].Totals = []ir.Total{{Name: "capacity", Value: 1 << 20}, {Name: "extra_native_bytes", Value: 24}}
		loss, g := convert(t, f)
		if len(g.Snapshots[0].Totals) != 0 || ir.ExternalSize(g.Snapshots[0]) != 0 {
			t.Fatal("a profile holds totals: the test is wrong")
		}
		wantLoss(t, loss, ir.LossTotals, 2)
		// The external bytes are in a total, not on the nodes: 0 nodes.
		wantLoss(t, loss, ir.LossExternalSizes, 0)
	})

	t.Run("classes without objects", func(t *testing.T) {
		f := irtest.Random(5, irtest.Options{MinNodes: 60, MaxNodes: 90, Classes: true})
		c := &f.Classes
		if c.Len() == 0 {
			t.Fatal("the graph has no class table")
		}
		name := uint32(len(f.Strings))
		f.Strings = append(f.Strings, "Unused")
		c.Name = append(c.Name, name)
		c.Library = append(c.Library, 0)
		c.FirstField = append(c.FirstField, c.FirstField[len(c.FirstField)-1])
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		used := map[uint32]bool{}
		for _, s := range f.Snapshots {
			for i, k := range s.Nodes.Class {
				if k > 0 && s.NodeKindName(i) != ir.KindSynthetic {
					used[k] = true
				}
			}
		}
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossClasses, c.Len()-len(used))
	})
}
