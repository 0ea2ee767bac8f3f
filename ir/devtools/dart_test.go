package devtools_test

import (
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// dartCountsFile is a Dart VM heap with the VM's pseudo-objects (the root
// and an isolate, which has a port), strings (one the VM truncated, one
// whose contents are a class's name), objects of a class of the program
// and an external property.
func dartCountsFile() *ir.File {
	f := &ir.File{Format: dartir.Format, Strings: []string{"", "Root", "Read-Only Pages", "Isolate", "_OneByteString",
		"dart:core", "Foo", "package:app/app.dart", "hello", "a string the VM cut", "main", "buffer"}}
	classes := []struct{ name, lib, uri uint32 }{
		{1, 0, 0}, // 1 Root, 2 Read-Only Pages, 3 Isolate: the VM's pseudo-classes
		{2, 0, 0},
		{3, 0, 0},
		{4, 5, 5}, // 4 _OneByteString
		{6, 0, 7}, // 5 Foo
	}
	d := &dartir.Snapshot{IdentityHashes: true}
	f.Classes.FirstField = []uint32{0}
	for _, c := range classes {
		f.Classes.Name = append(f.Classes.Name, c.name)
		f.Classes.Library = append(f.Classes.Library, c.lib)
		f.Classes.FirstField = append(f.Classes.FirstField, 0)
		d.ClassFlags.Append(0)
		d.ClassURI = append(d.ClassURI, c.uri)
		d.ClassReserved = append(d.ClassReserved, 0)
	}
	s := &ir.Snapshot{Name: 10, NodeKinds: dartir.NodeKinds, EdgeKinds: dartir.EdgeKinds, Root: 0, Sections: []ir.Section{d}}
	nodes := []struct {
		class uint32
		tag   uint8
		hash  uint64
		kind  ir.ValueKind
		value uint64
		cut   bool // the VM truncated the string
	}{
		{1, dartir.NoData, 0, 0, 0, false},
		{3, dartir.IntData, 0, ir.ValueInt, 7, false}, // its port
		{4, dartir.Latin1Data, 5, ir.ValueString, 8, false},
		{4, dartir.Latin1Data, 6, ir.ValueString, 9, true},
		{4, dartir.Latin1Data, 7, ir.ValueString, 6, false}, // "Foo", as the class is named
		{5, dartir.NoData, 8, 0, 0, false},
		{5, dartir.NoData, 0, 0, 0, false}, // no hash: an id from the top
	}
	s.Nodes.FirstEdge = []uint32{0}
	for i, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, n.tag)
		s.Nodes.Name = append(s.Nodes.Name, classes[n.class-1].name)
		s.Nodes.Class = append(s.Nodes.Class, n.class)
		s.Nodes.ID.Append(n.hash)
		s.Nodes.SelfSize.Append(16)
		if i > 0 { // the root references everything
			s.Edges.Kind = append(s.Edges.Kind, dartir.Element)
			s.Edges.Name = append(s.Edges.Name, uint32(i-1))
			s.Edges.Target = append(s.Edges.Target, uint32(i))
		}
		if n.tag != dartir.NoData {
			aux := uint64(0)
			if n.cut {
				aux = 1
			}
			s.Values.Node = append(s.Values.Node, uint32(i))
			s.Values.Kind = append(s.Values.Kind, n.kind)
			s.Values.Bits = append(s.Values.Bits, n.value)
			s.Values.Aux = append(s.Values.Aux, aux)
		}
	}
	s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	for range len(nodes) - 1 {
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	// The last Foo holds a buffer outside the heap.
	d.ExternalNode = []uint32{6}
	d.ExternalSize.Append(1024)
	d.ExternalName = []uint32{11}
	s.Nodes.ExternalSize.AppendZeros(len(nodes) - 1)
	s.Nodes.ExternalSize.Append(1024)
	d.ReferenceCount = uint64(s.Edges.Len())
	s.Totals = []ir.Total{{Name: dartir.TotalShallowSize, Value: 112}, {Name: dartir.TotalCapacity, Value: 1 << 20},
		{Name: dartir.TotalExternalSize, Value: 1024}}
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

// TestDartLossCounts: the report counts the objects whose names, ids and
// values change, not the VM's pseudo-objects (the root and the isolate,
// renamed and given ids too), and each renamed object once, under the
// kind that says why; the totals lost and the one V8 has instead.
func TestDartLossCounts(t *testing.T) {
	out, loss := cvConvert(t, dartCountsFile())
	s := out.Snapshots[0]
	want := []string{
		`synthetic "" 0`,
		`synthetic "(GC roots)" 0`,
		`synthetic "(Dart VM roots)" 16`,
		`synthetic "(Isolate main port 7)" 16`,
		`string "hello" 16`,
		`string "a string the VM cut..." 16`,
		`string "Foo" 16`,
		`object "Foo" 16`,
		`object "Foo" 16`,
		`native "buffer" 1024`,
	}
	if s.Nodes.Len() != len(want) {
		t.Fatalf("%d nodes, want %d", s.Nodes.Len(), len(want))
	}
	for i, w := range want {
		if got := mvmNode(out, s, i); got != w {
			t.Errorf("node %d: %s, want %s", i, got, w)
		}
	}
	// "hello" and "Foo" (the string) are renamed; the string the VM cut
	// is counted apart; the objects of Foo keep their name.
	irtest.WantLoss(t, loss, ir.LossNodeNames, 2, `"_OneByteString" named "hello"`)
	irtest.WantLoss(t, loss, "dart-truncated-strings", 1)
	// Every object's id changes: a hash h becomes 2h+1, no hash an id
	// from the top.
	irtest.WantLoss(t, loss, ir.LossNodeIDs, 5, "id 5 became 11")
	// The strings' values; the isolate's port is in its name.
	irtest.WantLoss(t, loss, ir.LossValues, 3)
	irtest.WantLoss(t, loss, ir.LossTotals, 4, "not kept: shallowSize=112, capacity=1048576, externalSize=1024; computed: extra_native_bytes=0")
	// The external property stays its object's (the header's externalSize
	// sums the objects' own), and the extra_native_bytes of 0 V8 gets
	// holds no memory: no external memory is lost.
	if l, ok := loss.Get(ir.LossExternalSizes); ok {
		t.Errorf("no external memory is lost: %v", l)
	}
}
