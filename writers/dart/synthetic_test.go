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
		{ir.LossExternalSizes, 0, "24 bytes of external memory"},
		{ir.LossValues, 1, "name data"},
	} {
		irtest.WantLoss(t, loss, want.kind, want.count, want.text)
	}
}
