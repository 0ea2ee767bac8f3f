package ir_test

import (
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// strs interns strings into a file's string table.
func strs(f *ir.File, ss ...string) []uint32 {
	out := make([]uint32, len(ss))
	for i, s := range ss {
		k := slices.Index(f.Strings, s)
		if k < 0 {
			k = len(f.Strings)
			f.Strings = append(f.Strings, s)
		}
		out[i] = uint32(k)
	}
	return out
}

// chain gives a snapshot n nodes with no edges.
func chain(s *ir.Snapshot, n int) {
	s.Nodes.FirstEdge = make([]uint32, n+1)
	for range n {
		s.Nodes.SelfSize.Append(8)
		s.Nodes.ID.Append(0)
	}
}

// TestSyntheticNodesMoarVM: MoarVM's root collectables, and objects of a
// type whose REPR name is a synthetic kind (what writers/moarvm makes of a
// V8 synthetic node or of root collectables that went through Dart), are
// not the heap's; objects of a CamelCase REPR, type objects and frames are.
func TestSyntheticNodesMoarVM(t *testing.T) {
	f := &ir.File{Format: ir.FormatMoarVM, MoarVM: &ir.MoarVMFile{Version: 3}}
	n := strs(f, "", "Foo", "P6opaque", "(synthetic)", "synthetic", "(permanent roots)", "permanent roots")
	f.Classes.Name = []uint32{n[1], n[3], n[5]}
	f.Classes.Library = []uint32{n[2], n[4], n[6]}
	s := &ir.Snapshot{NodeKinds: slices.Clone(ir.MoarVMNodeKinds), EdgeKinds: slices.Clone(ir.MoarVMEdgeKinds), MoarVM: &ir.MoarVMSnapshot{}}
	s.Nodes.Kind = []uint8{ir.MoarVMRoot, ir.MoarVMPermRoots, ir.MoarVMCallStackRoots, ir.MoarVMObject, ir.MoarVMTypeObject,
		ir.MoarVMFrame, ir.MoarVMObject, ir.MoarVMObject, 0}
	s.Nodes.Class = []uint32{0, 0, 0, 1, 1, 0, 2, 3, 0}
	s.Nodes.Name = make([]uint32, len(s.Nodes.Kind))
	chain(s, len(s.Nodes.Kind))
	want := []bool{true, true, true, false, false, false, true, true, false}
	if got := ir.SyntheticNodes(f, s); !slices.Equal(got, want) {
		t.Errorf("synthetic %v, want %v", got, want)
	}
	// The same REPR names mark nothing in a snapshot of another format.
	s.MoarVM = nil
	s.NodeKinds = slices.Clone(ir.V8NodeKinds)
	for i := range s.Nodes.Kind {
		s.Nodes.Kind[i] = 3 // object
	}
	if got := ir.SyntheticNodes(f, s); slices.Contains(got, true) {
		t.Errorf("a V8 snapshot's objects are synthetic: %v", got)
	}
}

// TestSyntheticNodesDart: the VM's pseudo-objects (classes 1 to 3: Root,
// Read-Only Pages, Isolate, without a library), the Root writers/dart adds
// (library name "synthetic", no URI) and classes it made of another
// format's synthetic nodes (URI heapconv:…, library name "synthetic", or a
// MoarVM root kind's for heapconv:moarvm) are not the heap's; the VM's
// other classes, one of those names past class 3, and a real library that
// happens to be named "synthetic" are.
func TestSyntheticNodesDart(t *testing.T) {
	f := &ir.File{Format: ir.FormatDart}
	n := strs(f, "", "Root", "synthetic", "(synthetic)", ir.DartForeignURI(ir.FormatV8), "Foo", "package:a/a.dart",
		"(root)", "root", ir.DartForeignURI(ir.FormatMoarVM), ir.DartForeignURI(ir.FormatFuchsia),
		"Read-Only Pages", "Isolate")
	// Classes: the VM's Root, Read-Only Pages and Isolate, writers/dart's
	// Root, a V8 synthetic class, a real class, a real library named
	// "synthetic", MoarVM's root through Dart, a Fuchsia class whose
	// library is named "root", a VM class named Isolate past class 3.
	f.Classes.Name = []uint32{n[1], n[11], n[12], n[1], n[3], n[5], n[5], n[7], n[7], n[12]}
	f.Classes.Library = []uint32{n[0], n[0], n[0], n[2], n[2], n[0], n[2], n[8], n[8], n[0]}
	d := &ir.DartSnapshot{ClassURI: []uint32{n[0], n[0], n[0], n[0], n[4], n[6], n[6], n[9], n[10], n[0]}}
	s := &ir.Snapshot{NodeKinds: slices.Clone(ir.DartNodeKinds), EdgeKinds: slices.Clone(ir.DartEdgeKinds), Dart: d}
	s.Nodes.Class = []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	s.Nodes.Kind = make([]uint8, 10)
	s.Nodes.Name = make([]uint32, 10)
	chain(s, 10)
	want := []bool{true, true, true, true, true, false, false, true, false, false}
	if got := ir.SyntheticNodes(f, s); !slices.Equal(got, want) {
		t.Errorf("synthetic %v, want %v", got, want)
	}
}

// v8Unmanaged is a V8 snapshot as writers/v8 makes one of a MoarVM heap:
// the root "", an object holding a native node through an internal edge
// "unmanaged", a native node held otherwise, and the header's mark.
func v8Unmanaged(mark bool) (*ir.File, *ir.Snapshot) {
	f := &ir.File{Format: ir.FormatV8}
	n := strs(f, "", "Foo", "(unmanaged) Foo", "unmanaged", "backing_store", "buf")
	s := &ir.Snapshot{NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds), V8: &ir.V8Snapshot{}}
	kind := func(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }
	edge := func(name string) uint8 {
		return uint8(slices.IndexFunc(ir.V8EdgeKinds, func(k ir.EdgeKind) bool { return k.Name == name }))
	}
	s.Nodes.Kind = []uint8{kind(ir.KindSynthetic), kind(ir.KindObject), kind(ir.KindNative), kind(ir.KindNative)}
	s.Nodes.Name = []uint32{n[0], n[1], n[2], n[5]}
	s.Nodes.FirstEdge = []uint32{0, 1, 3, 3, 3}
	s.Edges.Kind = []uint8{edge(ir.EdgeElement), edge(ir.EdgeInternal), edge(ir.EdgeInternal)}
	s.Edges.Name = []uint32{1, n[3], n[4]}
	s.Edges.Target = []uint32{1, 2, 3}
	for _, x := range []uint64{0, 40, 128, 64} {
		s.Nodes.SelfSize.Append(x)
		s.Nodes.ID.Append(0)
	}
	s.V8.Header = ir.JSON{Kind: ir.JSONObject}
	if mark {
		s.V8.Header.Set(ir.V8HeaderFrom, ir.JSONStr(ir.FormatMoarVM))
	}
	return f, s
}

// TestUnmanagedOwners: in a V8 snapshot whose header says writers/v8 made
// it from a MoarVM heap, a native node held by an internal edge
// "unmanaged" is its holder's unmanaged memory; without the mark, or held
// otherwise, a native node is the heap's.
func TestUnmanagedOwners(t *testing.T) {
	f, s := v8Unmanaged(true)
	if got, want := ir.UnmanagedOwners(f, s), []uint32{ir.NoNode, ir.NoNode, 1, ir.NoNode}; !slices.Equal(got, want) {
		t.Errorf("owners %v, want %v", got, want)
	}
	if got := ir.SyntheticNodes(f, s); !slices.Equal(got, []bool{true, false, false, false}) {
		t.Errorf("synthetic %v: only the root is; unmanaged memory is memory", got)
	}
	f, s = v8Unmanaged(false)
	if got := ir.UnmanagedOwners(f, s); got != nil {
		t.Errorf("owners %v without the header's mark", got)
	}
	// Made from a Dart heap, the edge is "external"; "unmanaged" is not
	// the mark's.
	f, s = v8Unmanaged(true)
	s.V8.Header.Set(ir.V8HeaderFrom, ir.JSONStr(ir.FormatDart))
	if got := ir.UnmanagedOwners(f, s); got != nil {
		t.Errorf("owners %v through an edge %q in a heap made from Dart", got, ir.V8UnmanagedEdge)
	}
	s.Edges.Name[1] = strs(f, ir.V8ExternalEdge)[0]
	if got, want := ir.UnmanagedOwners(f, s), []uint32{ir.NoNode, ir.NoNode, 1, ir.NoNode}; !slices.Equal(got, want) {
		t.Errorf("owners %v through %q in a heap made from Dart, want %v", got, ir.V8ExternalEdge, want)
	}
}

// TestTotalsChanged counts the totals not carried as they are: lost,
// changed (lost and added) and computed.
func TestTotalsChanged(t *testing.T) {
	a := ir.Total{Name: "a", Value: 1}
	for _, c := range []struct {
		from, to []ir.Total
		n        int
		example  string
	}{
		{nil, nil, 0, ""},
		{[]ir.Total{a}, []ir.Total{a}, 0, ""},
		{[]ir.Total{a}, nil, 1, "not kept: a=1"},
		{nil, []ir.Total{a, {Name: "b"}}, 2, "computed: a=1, b=0"},
		{[]ir.Total{a, {Name: "b", Value: 2}}, []ir.Total{{Name: "b", Value: 3}, a}, 2, "not kept: b=2; computed: b=3"},
	} {
		if n, ex := ir.TotalsChanged(c.from, c.to); n != c.n || ex != c.example {
			t.Errorf("TotalsChanged(%v, %v) = %d, %q; want %d, %q", c.from, c.to, n, ex, c.n, c.example)
		}
	}
}

// TestMoarVMEdgeKindMark: a kind kept in a MoarVM description parses back;
// MoarVM's own descriptions do not parse as one.
func TestMoarVMEdgeKindMark(t *testing.T) {
	for _, c := range []struct{ kind, name string }{{"weak", "x"}, {"hidden", "3"}, {"internal", "(a) b"}, {"shortcut", ""}} {
		if k, n, ok := ir.ParseMoarVMEdgeKindMark(ir.MoarVMEdgeKindMark(c.kind, c.name)); !ok || k != c.kind || n != c.name {
			t.Errorf("%q %q parses back as %q %q %v", c.kind, c.name, k, n, ok)
		}
	}
	for _, desc := range []string{"Type cache entry", "<SC>", "(weak)x", "() x", "((weak) x", ""} {
		if k, n, ok := ir.ParseMoarVMEdgeKindMark(desc); ok {
			t.Errorf("%q parses as a kind mark: %q %q", desc, k, n)
		}
	}
}
