package moarvm_test

import (
	"slices"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSyntheticNodesMoarVM: MoarVM's root collectables, and objects of a
// type whose REPR name is a synthetic kind (what writers/moarvm makes of a
// V8 synthetic node or of root collectables that went through Dart), are
// not the heap's; objects of a CamelCase REPR, type objects and frames are.
func TestSyntheticNodesMoarVM(t *testing.T) {
	f := &ir.File{Format: moarvmir.Format, Sections: []ir.Section{&moarvmir.File{Version: 3}}}
	n := irtest.Strings(f, "", "Foo", "P6opaque", "(synthetic)", "synthetic", "(permanent roots)", "permanent roots")
	f.Classes.Name = []uint32{n[1], n[3], n[5]}
	f.Classes.Library = []uint32{n[2], n[4], n[6]}
	s := &ir.Snapshot{NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds), Sections: []ir.Section{&moarvmir.Snapshot{}}}
	s.Nodes.Kind = []uint8{moarvmir.Root, moarvmir.PermRoots, moarvmir.CallStackRoots, moarvmir.Object, moarvmir.TypeObject,
		moarvmir.Frame, moarvmir.Object, moarvmir.Object, 0}
	s.Nodes.Class = []uint32{0, 0, 0, 1, 1, 0, 2, 3, 0}
	s.Nodes.Name = make([]uint32, len(s.Nodes.Kind))
	irtest.Edgeless(s, len(s.Nodes.Kind))
	want := []bool{true, true, true, false, false, false, true, true, false}
	if got := ir.SyntheticNodes(f, s); !slices.Equal(got, want) {
		t.Errorf("synthetic %v, want %v", got, want)
	}
	// The same REPR names mark nothing in a snapshot of another format.
	s.Sections = nil
	s.NodeKinds = slices.Clone(ir.V8NodeKinds)
	for i := range s.Nodes.Kind {
		s.Nodes.Kind[i] = 3 // object
	}
	if got := ir.SyntheticNodes(f, s); slices.Contains(got, true) {
		t.Errorf("a V8 snapshot's objects are synthetic: %v", got)
	}
}

// TestMoarVMEdgeKindMark: a kind kept in a MoarVM description parses back;
// MoarVM's own descriptions do not parse as one.
func TestMoarVMEdgeKindMark(t *testing.T) {
	for _, c := range []struct{ kind, name string }{{"weak", "x"}, {"hidden", "3"}, {"internal", "(a) b"}, {"shortcut", ""}} {
		if k, n, ok := moarvmir.ParseEdgeKindMark(moarvmir.EdgeKindMark(c.kind, c.name)); !ok || k != c.kind || n != c.name {
			t.Errorf("%q %q parses back as %q %q %v", c.kind, c.name, k, n, ok)
		}
	}
	for _, desc := range []string{"Type cache entry", "<SC>", "(weak)x", "() x", "((weak) x", ""} {
		if k, n, ok := moarvmir.ParseEdgeKindMark(desc); ok {
			t.Errorf("%q parses as a kind mark: %q %q", desc, k, n)
		}
	}
}
