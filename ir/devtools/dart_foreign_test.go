package devtools_test

import (
	"bytes"
	"fmt"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir/devtools"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// dartForeignFile is a Dart heap with a VM internal and a dart:core class
// beside classes heapconv made from V8 (library URI heapconv:v8, library
// name a V8 kind) and from MoarVM (heapconv:moarvm, a REPR name or none).
func dartForeignFile() *ir.File {
	f := &ir.File{Format: dartir.Format, Strings: []string{"", "Root", "Code", "(string)", "string", "heapconv:v8",
		"Foo", "object", "(system)", "hidden", "native", "_OneByteString", "dart:core", "Bar", "P6opaque",
		"heapconv:moarvm", "hello", "system / Map", "abc", "main"}}
	type class struct{ name, lib, uri uint32 }
	classes := []class{
		{1, 0, 0},    // 1 Root: the VM's
		{2, 0, 0},    // 2 Code: a VM internal
		{3, 4, 5},    // 3 (string), from V8's strings
		{6, 7, 5},    // 4 Foo, from V8's objects
		{8, 9, 5},    // 5 (system), from V8's hidden nodes
		{6, 10, 5},   // 6 Foo, from V8's natives
		{11, 12, 12}, // 7 _OneByteString
		{13, 14, 15}, // 8 Bar, a MoarVM type
		{2, 0, 15},   // 9 Code, a MoarVM type without a REPR name
	}
	d := &dartir.Snapshot{}
	f.Classes.FirstField = []uint32{0}
	for _, c := range classes {
		f.Classes.Name = append(f.Classes.Name, c.name)
		f.Classes.Library = append(f.Classes.Library, c.lib)
		f.Classes.FirstField = append(f.Classes.FirstField, 0)
		d.ClassFlags.Append(0)
		d.ClassURI = append(d.ClassURI, c.uri)
		d.ClassReserved = append(d.ClassReserved, 0)
	}
	s := &ir.Snapshot{Name: 19, NodeKinds: dartir.NodeKinds, EdgeKinds: dartir.EdgeKinds, Root: 0, Sections: []ir.Section{d}}
	nodes := []struct {
		class uint32
		tag   uint8
		value uint64 // a string index
	}{
		{1, dartir.NoData, 0},
		{2, dartir.NoData, 0},
		{3, dartir.NameData, 16},
		{4, dartir.NoData, 0},
		{5, dartir.NameData, 17},
		{6, dartir.NoData, 0},
		{7, dartir.Latin1Data, 18},
		{8, dartir.NoData, 0},
		{9, dartir.NoData, 0},
	}
	s.Nodes.FirstEdge = []uint32{0}
	for i, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, n.tag)
		s.Nodes.Name = append(s.Nodes.Name, classes[n.class-1].name)
		s.Nodes.Class = append(s.Nodes.Class, n.class)
		s.Nodes.ID.Append(0)
		s.Nodes.SelfSize.Append(16)
		if i > 0 { // the root references everything
			s.Edges.Kind = append(s.Edges.Kind, dartir.Element)
			s.Edges.Name = append(s.Edges.Name, uint32(i-1))
			s.Edges.Target = append(s.Edges.Target, uint32(i))
		}
		if n.tag != dartir.NoData {
			s.Values.Node = append(s.Values.Node, uint32(i))
			s.Values.Kind = append(s.Values.Kind, ir.ValueString)
			s.Values.Bits = append(s.Values.Bits, n.value)
			s.Values.Aux = append(s.Values.Aux, 0)
		}
	}
	s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	for range len(nodes) - 1 {
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	d.ReferenceCount = uint64(s.Edges.Len())
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

// TestDartForeignClasses: the VM's own classes without a library are its
// internals, as DevTools shows them; classes heapconv made from another
// format are not: V8's come back with their kinds and names, the others
// are objects named by their class.
func TestDartForeignClasses(t *testing.T) {
	out, loss := cvConvert(t, dartForeignFile())
	s := out.Snapshots[0]
	want := []string{
		`synthetic "" 0`,
		`synthetic "(GC roots)" 0`,
		`synthetic "(Dart VM roots)" 16`,
		`code "Code" 16`,
		`string "hello" 16`,
		`object "Foo" 16`,
		`hidden "system / Map" 16`,
		`native "Foo" 16`,
		`string "abc" 16`,
		`object "Bar" 16`,
		`object "Code (heapconv:moarvm)" 16`, // qualified: the VM has a Code too
	}
	if s.Nodes.Len() != len(want) {
		t.Fatalf("%d nodes, want %d", s.Nodes.Len(), len(want))
	}
	for i, w := range want {
		if got := mvmNode(out, s, i); got != w {
			t.Errorf("node %d: %s, want %s", i, got, w)
		}
	}
	// Root, Code and _OneByteString are counted as (synthetic), (compiled
	// code) and (string); the classes made from V8 are what DevTools
	// counts their objects under.
	irtest.WantLoss(t, loss, ir.LossClasses, 3, "another class than their Dart class", `"Root" counted as "(synthetic)"`)
}

// TestV8ThroughDart: a V8 graph written as Dart and converted back is the
// same graph: the root (V8's own, not wrapped in another), each node's kind
// and name, and its named edges with their kinds, which the Dart fields
// keep. (A Dart object lists its fields before its indexed references,
// which it numbers from 0: these are numbered so.)
func TestV8ThroughDart(t *testing.T) {
	src := &ir.File{Format: v8ir.Format, Strings: []string{"<dummy>", "", "(GC roots)", "Foo", "hello", "system / Map",
		"a", "map", "w", "Bar"}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	kind, ekind := devtools.V8NodeKind, devtools.V8EdgeKind
	type edge struct {
		kind   string
		name   uint32
		target uint32
	}
	nodes := []struct {
		kind  string
		name  uint32
		edges []edge
	}{
		{ir.KindSynthetic, 1, []edge{{ir.EdgeShortcut, 3, 2}, {ir.EdgeElement, 0, 1}}},
		{ir.KindSynthetic, 2, []edge{{ir.EdgeElement, 0, 2}}},
		{ir.KindObject, 3, []edge{{ir.EdgeProperty, 6, 3}, {ir.EdgeInternal, 7, 4}, {ir.EdgeWeak, 8, 5}, {ir.EdgeElement, 0, 5}}},
		{ir.KindString, 4, nil},
		{ir.KindHidden, 5, nil},
		{ir.KindObject, 9, nil},
	}
	s.Nodes.FirstEdge = []uint32{0}
	for i, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, kind(n.kind))
		s.Nodes.Name = append(s.Nodes.Name, n.name)
		s.Nodes.ID.Append(uint64(2*i + 1))
		s.Nodes.SelfSize.Append(uint64(8 * i))
		for _, e := range n.edges {
			s.Edges.Kind = append(s.Edges.Kind, ekind(e.kind))
			s.Edges.Name = append(s.Edges.Name, e.name)
			s.Edges.Target = append(s.Edges.Target, e.target)
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	src.Snapshots = []*ir.Snapshot{s}

	var b bytes.Buffer
	if _, err := wdart.Write(&b, src, wdart.Options{}); err != nil {
		t.Fatal(err)
	}
	d, err := rdart.Read(bytes.NewReader(b.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cvConvert(t, d)
	o := out.Snapshots[0]
	if o.Nodes.Len() != len(nodes) {
		t.Fatalf("%d nodes, want the %d of the V8 graph", o.Nodes.Len(), len(nodes))
	}
	for i := range nodes {
		want := mvmNode(src, s, i) + fmt.Sprint(cvEdges(src, s, i))
		if got := mvmNode(out, o, i) + fmt.Sprint(cvEdges(out, o, i)); got != want {
			t.Errorf("node %d: %s, want %s", i, got, want)
		}
	}
}
