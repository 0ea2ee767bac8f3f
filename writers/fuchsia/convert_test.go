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

	// The weak references counted are those between the objects written:
	// those from or to a synthetic node go with it.
	t.Run("weak edges", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		synthetic := ir.SyntheticNodes(f, s)
		weak, withSynthetic := 0, 0
		for i := range s.Nodes.Len() {
			lo, hi := s.Nodes.EdgeRange(i)
			for e := lo; e < hi; e++ {
				if s.EdgeKindOf(e).Name != ir.EdgeWeak {
					continue
				}
				if synthetic[i] || synthetic[s.Edges.Target[e]] {
					withSynthetic++
				} else {
					weak++
				}
			}
		}
		if weak == 0 || withSynthetic == 0 {
			t.Fatalf("the graph has %d weak edges between objects and %d from or to synthetic nodes: want some of both", weak, withSynthetic)
		}
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossWeakEdges, weak)
	})

	// Node ids: an object without one (id 0, a Dart object without an
	// identity hash) loses none.
	t.Run("ids", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		synthetic := ir.SyntheticNodes(f, s)
		var ids ir.Uints
		with := 0
		for i := range s.Nodes.Len() {
			id := s.Nodes.ID.At(i)
			if i%3 == 0 {
				id = 0
			}
			if id != 0 && !synthetic[i] {
				with++
			}
			ids.Append(id)
		}
		if with == 0 {
			t.Fatal("no object has an id")
		}
		s.Nodes.ID = ids
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossNodeIDs, with)
	})

	// Values: those of the objects written; a synthetic node's goes with
	// it.
	t.Run("values", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		synthetic := ir.SyntheticNodes(f, s)
		var v ir.Values
		objects := 0
		for i := range s.Nodes.Len() {
			if i%4 != 0 {
				continue
			}
			v.Node = append(v.Node, uint32(i))
			v.Kind = append(v.Kind, ir.ValueInt)
			v.Bits = append(v.Bits, uint64(i))
			v.Aux = append(v.Aux, 0)
			if !synthetic[i] {
				objects++
			}
		}
		if objects == v.Len() {
			t.Fatal("no value is a synthetic node's")
		}
		s.Values = v
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossValues, objects)
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
		// The external bytes are in a total, not on the nodes: the total
		// is the one item lost.
		wantLoss(t, loss, ir.LossExternalSizes, 1)
	})

	// External memory: every object that has some, and every external
	// total, of no bytes too (the total is gone all the same).
	t.Run("external sizes", func(t *testing.T) {
		f := graph(t)
		s := f.Snapshots[0]
		synthetic := ir.SyntheticNodes(f, s)
		var sizes ir.Uints
		objects := 0
		for i := range s.Nodes.Len() {
			size := uint64(0)
			if i%5 == 0 {
				size = 100
				if !synthetic[i] {
					objects++
				}
			}
			sizes.Append(size)
		}
		if objects == 0 {
			t.Fatal("no object has external memory")
		}
		s.Nodes.ExternalSize = sizes
		// A total of 0 bytes holds no memory; one of 24 is lost memory.
		s.Totals = []ir.Total{{Name: "extra_native_bytes", Value: 0}}
		loss, _ := convert(t, f)
		wantLoss(t, loss, ir.LossExternalSizes, objects)
		s.Totals[0].Value = 24
		loss, _ = convert(t, f)
		wantLoss(t, loss, ir.LossExternalSizes, objects+1)
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
