package dart_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// TestLoss: the VM's class and field layout is named, and unless the
// target keeps the class table, the library URIs of a Dart file's classes
// (not heapconv's own, which say where a class came from) and its external
// property names.
func TestLoss(t *testing.T) {
	f := &ir.File{Strings: []string{"", "Foo", "package:a/a.dart", dartir.ForeignURI("v8"), "buf", "x"}}
	f.Classes.Name = []uint32{1, 1, 1}
	f.Classes.FieldName = []uint32{5, 5}
	s := &ir.Snapshot{Sections: []ir.Section{&dartir.Snapshot{ClassURI: []uint32{2, 3, 0}, ExternalName: []uint32{4, 4}}}}
	loss := ir.SectionLoss(f, s, ir.Target{Format: "fuchsia", Name: "a pprof profile"})
	if l, _ := loss.Get(dartir.LossSection); l.Count != 3+2+1+2 || len(loss) != 1 { // classes, fields; a URI, two names
		t.Errorf("report %v", loss)
	}
	if l, _ := loss.Get(dartir.LossSection); l.Example != "Foo of package:a/a.dart" {
		t.Errorf("example %q", l.Example)
	}
	loss = ir.SectionLoss(f, s, ir.Target{Format: "v8", Name: "a V8 snapshot", KeepsClasses: true})
	if l, _ := loss.Get(dartir.LossSection); l.Count != 3+2 || len(loss) != 1 {
		t.Errorf("a target that keeps the classes: report %v", loss)
	}
	if loss := ir.SectionLoss(f, s, ir.Target{Format: dartir.Format}); loss != nil {
		t.Errorf("a Dart target loses %v", loss)
	}
}
