package dart_test

import (
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestNameValues: a Dart snapshot's name data are names, but for the
// objects of a class heapconv made from another format's nodes of a kind
// whose names are data (a V8 string's contents), unless the name is the
// kind's fixed one; Latin-1 and UTF-16 strings are never names.
func TestNameValues(t *testing.T) {
	tests := []struct {
		uri, library, value string
		name                bool // NameValues' answer for name data of a node of the class
	}{
		{"package:app/main.dart", "", "build", true}, // the VM's own class
		{"", "", "_Closure call", true},
		{dartir.ForeignURI("v8"), ir.KindObject, "Foo", true},
		{dartir.ForeignURI("v8"), ir.KindString, "the contents", false},
		{dartir.ForeignURI("v8"), ir.KindNumber, "42.5", false},
		{dartir.ForeignURI("v8"), ir.KindNumber, "heap number", true},
		{dartir.ForeignURI("moarvm"), "VMString", "text", true},
		{"file:///string.dart", ir.KindString, "not made by heapconv", true},
	}
	for _, tc := range tests {
		f := &ir.File{Format: dartir.Format}
		strs := irtest.Strings(f, "", "C", tc.uri, tc.library, tc.value, "latin")
		f.Classes = ir.Classes{Name: []uint32{strs[1]}, Library: []uint32{strs[3]}, FirstField: []uint32{0, 0}}
		d := &dartir.Snapshot{ClassFlags: ir.UintsOf(0), ClassURI: []uint32{strs[2]}, ClassReserved: []uint32{strs[0]}}
		s := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(dartir.NodeKinds), EdgeKinds: slices.Clone(dartir.EdgeKinds)}
		irtest.Build(s, []irtest.Node{
			{Kind: dartir.NameData, Name: strs[1], Class: 1},
			{Kind: dartir.Latin1Data, Name: strs[1], Class: 1},
			{Kind: dartir.NoData, Name: strs[1], Class: 1},
		}, true)
		s.Values = ir.Values{Node: []uint32{0, 1}, Kind: []ir.ValueKind{ir.ValueString, ir.ValueString},
			Bits: []uint64{uint64(strs[4]), uint64(strs[5])}, Aux: []uint64{0, 0}}
		s.SetSection(d)
		f.Snapshots = []*ir.Snapshot{s}
		got := d.NameValues(f, s)
		if want := []bool{tc.name, false}; !slices.Equal(got, want) {
			t.Errorf("class of URI %q, library %q: name data %q: NameValues %v, want %v", tc.uri, tc.library, tc.value, got, want)
		}
	}
}
