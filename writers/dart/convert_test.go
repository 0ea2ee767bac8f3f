package dart_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// foreignFile is a small V8-like graph: a root (node 1, so a synthetic Dart
// root goes in front) with GC roots, two "Point" objects that agree on their
// fields x and y, two "Bag" objects that do not (one with a weak edge), a
// string with a value and an external size.
func foreignFile() *ir.File {
	f := &ir.File{Format: "test", Strings: []string{"", "Point", "x", "y", "Bag", "a", "b", "hello", "(roots)", "root", "lib"}}
	f.Classes = ir.Classes{Name: []uint32{1}, Library: []uint32{10}, FirstField: []uint32{0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 1}
	const object, str = 3, 2
	prop, elem, weak := uint32(2), uint32(1), uint32(6)
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: object, Name: 7, Size: 8}, // 0: a "hello" object without a value
		{Kind: object, Name: 9, Edges: []e{{elem, 0, 2}, {elem, 1, 3}, {elem, 2, 4}, {elem, 3, 5}}}, // 1: root
		{Kind: object, Name: 1, Class: 1, Size: 16, Edges: []e{{prop, 2, 6}, {prop, 3, 6}}},         // 2: Point
		{Kind: object, Name: 1, Class: 1, Size: 16, Edges: []e{{prop, 2, 6}, {prop, 3, 0}}},         // 3: Point
		{Kind: object, Name: 4, Size: 24, Edges: []e{{prop, 5, 6}, {weak, 6, 0}}},                   // 4: Bag
		{Kind: object, Name: 4, Size: 24, Edges: []e{{prop, 6, 6}, {prop, 5, 2}}},                   // 5: Bag (other names)
		{Kind: str, Name: 7, Size: 32}, // 6: a string
	}, true)
	s.Nodes.ExternalSize.AppendAll([]uint64{0, 0, 0, 0, 4096, 0, 0})
	s.Values = ir.Values{Node: []uint32{6}, Kind: []ir.ValueKind{ir.ValueString}, Bits: []uint64{7}, Aux: []uint64{0}}
	s.Roots = []ir.RootRef{{Node: 2, Category: 8}}
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

func TestConvert(t *testing.T) {
	src := foreignFile()
	var b bytes.Buffer
	loss, err := wdart.Write(&b, src, wdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := rdart.Read(bytes.NewReader(b.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatalf("the converted file does not read back: %v", err)
	}
	s := f.Snapshots[0]
	if s.Nodes.Len() != 8 {
		t.Fatalf("%d objects, want a synthetic root and the 7 nodes", s.Nodes.Len())
	}
	class := func(i int) string { return f.String(f.Classes.Name[s.Nodes.Class[i]-1]) }
	// fields lists the fields of object i's class, with the kinds their
	// reserved strings keep.
	fields := func(i int) []string {
		k := s.Nodes.Class[i] - 1
		var out []string
		for j := f.Classes.FirstField[k]; j < f.Classes.FirstField[k+1]; j++ {
			out = append(out, f.String(f.Classes.FieldName[j])+"/"+f.String(dartir.Of(s).FieldReserved[j]))
		}
		return out
	}
	if class(0) != "Root" || s.Nodes.SelfSize.At(0) != 0 {
		t.Errorf("object 1 is %q of size %d, want the synthetic Root", class(0), s.Nodes.SelfSize.At(0))
	}
	if got := strings.Join(fields(3), ","); got != "x/,y/" || s.Nodes.Class[3] != s.Nodes.Class[4] {
		t.Errorf("Point fields %q, want x,y in one class (its objects agree)", got)
	}
	// The Bags disagree: a class each, both named Bag, so that every
	// reference keeps its name and kind.
	bag1, bag2 := strings.Join(fields(5), ","), strings.Join(fields(6), ",")
	if bag1 != "a/,b/weak" || bag2 != "b/,a/" || class(5) != "Bag" || class(6) != "Bag" {
		t.Errorf("Bag classes %q %q with fields %q and %q, want Bag a,b (weak) and Bag b,a", class(5), class(6), bag1, bag2)
	}
	if class(7) != "(string)" || s.Nodes.Kind[7] != dartir.Latin1Data {
		t.Errorf("the string is %q with tag %d, want (string) with Latin-1 data", class(7), s.Nodes.Kind[7])
	}
	if l, ok := loss.Get(ir.LossEdgeNames); ok {
		t.Errorf("edge names lost: %v", l)
	}
	if class(1) != "hello" {
		t.Errorf("an object without class is in class %q, want its name", class(1))
	}
	if s.Nodes.ID.At(3) != 5 || s.Nodes.SelfSize.At(3) != 16 {
		t.Errorf("Point 1: hash %d size %d, want the source's id 5 and size 16", s.Nodes.ID.At(3), s.Nodes.SelfSize.At(3))
	}
	if d := dartir.Of(s); len(d.ExternalNode) != 1 || d.ExternalNode[0] != 5 || d.ExternalSize.At(0) != 4096 {
		t.Errorf("external properties %v, want one of 4096 bytes on the first Bag", d.ExternalNode)
	}
	// The root's references: the source root, then the GC root.
	lo, hi := s.Nodes.EdgeRange(0)
	if hi-lo != 2 || s.Edges.Target[lo] != 2 || s.Edges.Target[lo+1] != 3 {
		t.Errorf("root references %v, want the source root and its GC root", s.Edges.Target[lo:hi])
	}
	for _, want := range []struct {
		kind  string
		count int64
	}{
		{ir.LossGCRoots, 1},
		{ir.LossWeakEdges, 1},
		{ir.LossNodeKinds, 5}, // the nodes without a class
	} {
		if l, ok := loss.Get(want.kind); !ok || l.Count != want.count {
			t.Errorf("loss report does not count %d of %s:\n%v", want.count, want.kind, loss)
		}
	}
}

// TestConvertClassesOfKinds: nodes without a class get the class DevTools
// counts them under, one per kind, marked as made from another format
// (library URI "heapconv:<format>", library name the kind), so that
// converting back to V8 does not take them for VM internals; the names the
// classes replace are kept as name data and counted.
func TestConvertClassesOfKinds(t *testing.T) {
	f := &ir.File{Format: "test", Strings: []string{"", "Foo", "<div class=x>", "hello", "world", "system / Map", "bar", "Point", "lib"}}
	f.Classes = ir.Classes{Name: []uint32{7}, Library: []uint32{8}, FirstField: []uint32{0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	kind := func(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }
	nodes := []struct {
		kind        string
		name, class uint32
	}{
		{ir.KindSynthetic, 0, 0}, // 0: the root
		{ir.KindObject, 1, 0},    // Foo
		{ir.KindNative, 1, 0},    // Foo, a native: a class of its own kind
		{ir.KindObject, 2, 0},    // <div class=x>: DevTools' class <div>
		{ir.KindString, 3, 0},    // hello
		{ir.KindString, 4, 0},    // world: the same class
		{ir.KindHidden, 5, 0},    // (system)
		{ir.KindClosure, 6, 0},   // Function
		{ir.KindObject, 7, 1},    // a Point of the class table
	}
	s.Nodes.FirstEdge = []uint32{0}
	for i, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, kind(n.kind))
		s.Nodes.Name = append(s.Nodes.Name, n.name)
		s.Nodes.Class = append(s.Nodes.Class, n.class)
		s.Nodes.ID.Append(uint64(2*i + 1))
		s.Nodes.SelfSize.Append(8)
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, 0)
	}
	f.Snapshots = []*ir.Snapshot{s}

	var b bytes.Buffer
	loss, err := wdart.Write(&b, f, wdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := rdart.Read(bytes.NewReader(b.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatalf("the converted file does not read back: %v", err)
	}
	o, d := g.Snapshots[0], dartir.Of(g.Snapshots[0])
	want := []string{"(synthetic) synthetic", "Foo object", "Foo native", "<div> object", "(string) string", "(string) string",
		"(system) hidden", "Function closure", "Point lib"}
	if o.Nodes.Len() != len(want) {
		t.Fatalf("%d objects, want %d", o.Nodes.Len(), len(want))
	}
	for i, w := range want {
		k := o.Nodes.Class[i] - 1
		got := g.String(g.Classes.Name[k]) + " " + g.String(g.Classes.Library[k])
		if got != w || g.String(d.ClassURI[k]) != "heapconv:test" {
			t.Errorf("object %d: class %q, library URI %q; want %q, heapconv:test", i+1, got, g.String(d.ClassURI[k]), w)
		}
	}
	if g.Classes.Len() != len(want)-1 {
		t.Errorf("%d classes, want %d (the strings share one)", g.Classes.Len(), len(want)-1)
	}
	// Names unlike their class's are kept as name data: <div class=x>,
	// hello, world, system / Map, bar (and the root's "", which is no
	// object's name, so not counted).
	var kept []string
	for j := range o.Values.Node {
		if o.Nodes.Kind[o.Values.Node[j]] == dartir.NameData {
			kept = append(kept, g.String(uint32(o.Values.Bits[j])))
		}
	}
	if got := strings.Join(kept, ","); got != ",<div class=x>,hello,world,system / Map,bar" {
		t.Errorf("name data %q", got)
	}
	if l, _ := loss.Get(ir.LossNodeNames); l.Count != 5 {
		t.Errorf("node-names loss %v, want 5 names of objects replaced by their class", l)
	}
	if l, _ := loss.Get(ir.LossValues); l.Count != 5 {
		t.Errorf("values loss %v, want the 5 objects' name data", l)
	}
	if l, _ := loss.Get(ir.LossNodeKinds); l.Count != 8 {
		t.Errorf("node-kinds loss %v, want the 8 nodes without a class", l)
	}
}

// TestConvertFoldsOnlyPlainNatives: of a V8 file made from a Dart heap, a
// native node held by an internal edge "external" becomes its holder's
// external property only when that is all it is (held once, holding
// nothing, its holder an object); other native nodes stay objects, with
// their edges, so nothing is dropped.
func TestConvertFoldsOnlyPlainNatives(t *testing.T) {
	f := &ir.File{Format: v8ir.Format, Strings: []string{"", "A", "B", v8ir.ExternalEdge, "n1", "n2", "n3", "n4", "x"}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0, Sections: []ir.Section{&v8ir.Snapshot{Header: ir.JSON{Kind: ir.JSONObject}}}}
	v8ir.Of(s).Header.Set(v8ir.HeaderFrom, ir.JSONStr(dartir.Format))
	kind := func(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }
	synthetic, object, native := kind(ir.KindSynthetic), kind(ir.KindObject), kind(ir.KindNative)
	const element, property, internal = 1, 2, 3
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: synthetic, Edges: []e{{element, 1, 1}, {element, 2, 2}}},                                     // 0: the root
		{Kind: object, Name: 1, Size: 16, Edges: []e{{internal, 3, 3}, {internal, 3, 5}, {internal, 3, 6}}}, // 1: A holds n1, n3, n4
		{Kind: object, Name: 2, Size: 16, Edges: []e{{property, 8, 6}}},                                     // 2: B points to n4
		{Kind: native, Name: 4, Size: 100, Edges: []e{{internal, 3, 4}}},                                    // 3: n1 holds n2
		{Kind: native, Name: 5, Size: 200},                                                                  // 4: n2
		{Kind: native, Name: 6, Size: 300},                                                                  // 5: n3, plain
		{Kind: native, Name: 7, Size: 400},                                                                  // 6: n4, B's too
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	out, _, err := wdart.Convert(f)
	if err != nil {
		t.Fatal(err)
	}
	o := out.Snapshots[0]
	var objects []string
	for i := range o.Nodes.Len() {
		objects = append(objects, out.String(out.Classes.Name[o.Nodes.Class[i]-1]))
	}
	d := dartir.Of(o)
	var props []string
	for k, node := range d.ExternalNode {
		props = append(props, objects[node]+" "+out.String(d.ExternalName[k]))
	}
	// n1 holds something and n4 is held by B's property too: objects. n2
	// and n3 are their holders' external properties.
	if want := []string{"(synthetic)", "A", "B", "n1", "n4"}; !slices.Equal(objects, want) {
		t.Errorf("objects %q, want %q", objects, want)
	}
	if want := []string{"A n3", "n1 n2"}; !slices.Equal(props, want) {
		t.Errorf("external properties %q, want %q", props, want)
	}
	if got, want := o.Edges.Len(), s.Edges.Len()-2; got != want {
		t.Errorf("%d edges, want %d: only those holding n2 and n3 go", got, want)
	}
}
