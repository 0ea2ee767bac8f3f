package dart_test

import (
	"bytes"
	"slices"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// TestConvertMarksSynthetic: the Root object Convert adds in front reads
// back as synthetic (ir.SyntheticNodes), as do the objects of the source's
// synthetic nodes, and nothing else: the Root's class has the library name
// "synthetic" and, as the VM's root class, no URI.
func TestConvertMarksSynthetic(t *testing.T) {
	src := foreignFile()
	s := src.Snapshots[0]
	s.Nodes.Kind[0] = uint8(slices.Index(ir.V8NodeKinds, ir.KindSynthetic)) // "hello": a V8 synthetic node
	var b bytes.Buffer
	if _, err := wdart.Write(&b, src, wdart.Options{}); err != nil {
		t.Fatal(err)
	}
	f, err := rdart.Read(bytes.NewReader(b.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := f.Snapshots[0]
	want := []bool{true, true, false, false, false, false, false, false}
	if got := ir.SyntheticNodes(f, g); !slices.Equal(got, want) {
		t.Errorf("synthetic %v, want %v (the Root, then the source's synthetic node)", got, want)
	}
	if k := g.Nodes.Class[0] - 1; f.String(f.Classes.Name[k]) != "Root" || f.String(dartir.Of(g).ClassURI[k]) != "" ||
		f.String(f.Classes.Library[k]) != ir.KindSynthetic {
		t.Errorf("the Root's class is %q of library %q (URI %q), want Root of library synthetic without a URI",
			f.String(f.Classes.Name[k]), f.String(f.Classes.Library[k]), f.String(dartir.Of(g).ClassURI[k]))
	}
}

// TestConvertNamesWhatItMakes: the header figures Dart computes in place of
// the source's totals, the external memory only a total counted, and the
// name data that reads back as values are named in the loss report.
func TestConvertNamesWhatItMakes(t *testing.T) {
	src := foreignFile()
	src.Snapshots[0].Totals = []ir.Total{{Name: "extra_native_bytes", Value: 24}}
	src.Snapshots[0].Nodes.Name[2] = 2 // a Point named "x": its name becomes name data
	_, loss, err := wdart.Convert(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		kind  string
		count int64
		text  string
	}{
		// extra_native_bytes, then shallowSize, capacity, externalSize.
		{ir.LossTotals, 4, "not kept: extra_native_bytes=24; computed: shallowSize=120"},
		{ir.LossExternalSizes, 1, "24 bytes in all"},
		{ir.LossValues, 1, "name data"},
	} {
		irtest.WantLoss(t, loss, want.kind, want.count, want.text)
	}
}

// TestConvertCountsObjects: the names, name data and weak references the
// report counts are the heap's objects', not those of roots and grouping
// nodes (ir.SyntheticNodes), and only names that change count; an external
// total counts once, and one of 0 bytes, which counts no memory, not at
// all.
func TestConvertCountsObjects(t *testing.T) {
	f := &ir.File{Format: "test", Strings: []string{"", "(GC roots)", "A", "B", "w", "x"}}
	f.Classes = ir.Classes{Name: []uint32{2}, Library: []uint32{0}, FirstField: []uint32{0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0,
		Totals: []ir.Total{{Name: "extra_native_bytes", Value: 24}}}
	kind := func(name string) uint32 { return uint32(slices.Index(ir.V8NodeKinds, name)) }
	synthetic, object, str := uint8(kind(ir.KindSynthetic)), uint8(kind(ir.KindObject)), uint8(kind(ir.KindString))
	const element, weak = 1, 6
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: synthetic, Name: 1, Edges: []e{{weak, 4, 1}, {element, 0, 2}}}, // 0: the root; its weak edge is no object's
		{Kind: object, Name: 2, Edges: []e{{weak, 4, 2}, {weak, 4, 3}}},       // 1: A, class A: its name stays; one weak reference to an object
		{Kind: object, Name: 3, Class: 1},                                     // 2: B of class A: named A
		{Kind: synthetic, Name: 5},                                            // 3: a grouping node x: named (synthetic)
		{Kind: str, Name: 5},                                                  // 4: a string x: named (string)
	}, true)
	f.Snapshots = []*ir.Snapshot{s}
	out, loss, err := wdart.Convert(f)
	if err != nil {
		t.Fatal(err)
	}
	irtest.WantLoss(t, loss, ir.LossNodeNames, 2)
	irtest.WantLoss(t, loss, ir.LossValues, 2)
	irtest.WantLoss(t, loss, ir.LossWeakEdges, 1)
	irtest.WantLoss(t, loss, ir.LossExternalSizes, 1, "24 bytes")
	// The synthetic nodes' names are kept as name data all the same.
	if o := out.Snapshots[0]; o.Values.Len() != 4 {
		t.Errorf("%d values of name data, want 4: the root's, B's, x's and the string's", o.Values.Len())
	}

	s.Totals[0].Value = 0
	if _, loss, err = wdart.Convert(f); err != nil {
		t.Fatal(err)
	}
	if l, ok := loss.Get(ir.LossExternalSizes); ok {
		t.Errorf("an external total of 0 bytes is named: %v", l)
	}
}
