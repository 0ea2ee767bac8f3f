package moarvm_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	wmoar "github.com/heapconv/heapconv/writers/moarvm"
	wv8 "github.com/heapconv/heapconv/writers/v8"
)

// TestConvertMarksSynthetic: what Convert adds or makes of the source's
// synthetic nodes reads back as synthetic (ir.SyntheticNodes) and nothing
// else does: the Root in front, or the source's synthetic root made the
// Root, and objects of a synthetic V8 node, whose type's REPR is
// "synthetic".
func TestConvertMarksSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rootFirst bool
		want      []bool
	}{
		// The V8 root "" becomes MoarVM's Root.
		{"node 0 is the root", true, []bool{true, false, false, false}},
		// A Root in front, then the source's nodes: "" is a synthetic
		// V8 node, an object of REPR "synthetic".
		{"synthetic root", false, []bool{true, true, false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _, _, _ := writeParse(t, foreignFile(tc.rootFirst))
			g := read(t, b)
			if got := ir.SyntheticNodes(g, g.Snapshots[0]); !slices.Equal(got, tc.want) {
				t.Errorf("synthetic %v, want %v", got, tc.want)
			}
		})
	}
}

// TestConvertNamesWhatItMakes: ids, totals and sizes MoarVM makes in place
// of the source's are named in the loss report: a collectable's id is its
// index (also where every source id was 0), snapmeta's totals are computed
// (also where the source had none), and the unmanaged memory of a node
// above 65535 bytes reads back in its self size, which colusize continues.
func TestConvertNamesWhatItMakes(t *testing.T) {
	f := foreignFile(false)
	s := f.Snapshots[0]
	s.Nodes.ID = ir.Uints{}
	s.Nodes.ID.AppendZeros(s.Nodes.Len())
	loss, err := wmoar.Write(io.Discard, f, wmoar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		kind  string
		count int64
		text  string
	}{
		// Source nodes 0–3 are collectables 1–4: none keeps its id 0;
		// node 0, synthetic, is no object.
		{ir.LossNodeIDs, 3, "a collectable's identity is its index"},
		{ir.LossTotals, int64(len(moarvmir.TotalNames)), "computed: total_heap_size="},
		{ir.LossExternalSizes, 1, "colsize 65535 marks a self size continued in colusize"},
	} {
		irtest.WantLoss(t, loss, want.kind, want.count, want.text)
	}
}

// TestConvertFromV8: a MoarVM heap written as V8 by writers/v8 and read
// back is that heap again: the V8 file's native nodes are folded back into
// their collectables' unmanaged sizes, kinds, types, frames and references
// are MoarVM's, and nothing is reported lost but what V8 never had.
func TestConvertFromV8(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		src := irtest.RandomMoarVM(seed, irtest.Options{MinNodes: 50, MaxNodes: 400, Snapshots: 1}, irtest.MoarVMOptions{BadRefs: seed%2 == 0})
		var v8 bytes.Buffer
		if _, err := wv8.Write(&v8, src, wv8.Options{}); err != nil {
			t.Fatal(err)
		}
		mid, err := rv8.Read(bytes.NewReader(v8.Bytes()), rv8.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _, _, loss := writeParse(t, mid)
		back := read(t, b)
		s, g := src.Snapshots[0], back.Snapshots[0]
		if diff := ir.GraphDiff(src, s, back, g, 5); len(diff) > 0 {
			t.Errorf("seed %d: the heap comes back otherwise:\n%s", seed, strings.Join(diff, "\n"))
		}
		for i := range min(s.Nodes.Len(), g.Nodes.Len()) {
			if s.Nodes.ExternalSize.At(i) != g.Nodes.ExternalSize.At(i) {
				t.Fatalf("seed %d: collectable %d: unmanaged size %d back, was %d", seed, i, g.Nodes.ExternalSize.At(i), s.Nodes.ExternalSize.At(i))
			}
		}
		for _, k := range []string{ir.LossEdges, ir.LossNodeKinds, ir.LossNodeIDs, ir.LossEdgeKinds, ir.LossNodeNames, ir.LossExternalSizes} {
			if l, ok := loss.Get(k); ok {
				t.Errorf("seed %d: a loss that did not happen: %v", seed, l)
			}
		}
	}
}
