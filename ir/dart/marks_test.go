package dart_test

import (
	"slices"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSyntheticNodesDart: the VM's pseudo-objects (classes 1 to 3: Root,
// Read-Only Pages, Isolate, without a library), the Root writers/dart adds
// (library name "synthetic", no URI) and classes it made of another
// format's synthetic nodes (URI heapconv:…, library name "synthetic", or a
// MoarVM root kind's for heapconv:moarvm) are not the heap's; the VM's
// other classes, one of those names past class 3, and a real library that
// happens to be named "synthetic" are.
func TestSyntheticNodesDart(t *testing.T) {
	f := &ir.File{Format: dartir.Format}
	n := irtest.Strings(f, "", "Root", "synthetic", "(synthetic)", dartir.ForeignURI(v8ir.Format), "Foo", "package:a/a.dart",
		"(root)", "root", dartir.ForeignURI(moarvmir.Format), dartir.ForeignURI(fuchsiair.Format),
		"Read-Only Pages", "Isolate")
	// Classes: the VM's Root, Read-Only Pages and Isolate, writers/dart's
	// Root, a V8 synthetic class, a real class, a real library named
	// "synthetic", MoarVM's root through Dart, a Fuchsia class whose
	// library is named "root", a VM class named Isolate past class 3.
	f.Classes.Name = []uint32{n[1], n[11], n[12], n[1], n[3], n[5], n[5], n[7], n[7], n[12]}
	f.Classes.Library = []uint32{n[0], n[0], n[0], n[2], n[2], n[0], n[2], n[8], n[8], n[0]}
	d := &dartir.Snapshot{ClassURI: []uint32{n[0], n[0], n[0], n[0], n[4], n[6], n[6], n[9], n[10], n[0]}}
	s := &ir.Snapshot{NodeKinds: slices.Clone(dartir.NodeKinds), EdgeKinds: slices.Clone(dartir.EdgeKinds), Sections: []ir.Section{d}}
	s.Nodes.Class = []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	s.Nodes.Kind = make([]uint8, 10)
	s.Nodes.Name = make([]uint32, 10)
	irtest.Edgeless(s, 10)
	want := []bool{true, true, true, true, true, false, false, true, false, false}
	if got := ir.SyntheticNodes(f, s); !slices.Equal(got, want) {
		t.Errorf("synthetic %v, want %v", got, want)
	}
}
