package v8_test

import (
	"slices"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// v8Unmanaged is a V8 snapshot as writers/v8 makes one of a MoarVM heap:
// the root "", an object holding a native node through an internal edge
// "unmanaged", a native node held otherwise, and the header's mark.
func v8Unmanaged(mark bool) (*ir.File, *ir.Snapshot) {
	f := &ir.File{Format: v8ir.Format}
	n := irtest.Strings(f, "", "Foo", "(unmanaged) Foo", "unmanaged", "backing_store", "buf")
	s := &ir.Snapshot{NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds), Sections: []ir.Section{&v8ir.Snapshot{}}}
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
	v8ir.Of(s).Header = ir.JSON{Kind: ir.JSONObject}
	if mark {
		v8ir.Of(s).Header.Set(v8ir.HeaderFrom, ir.JSONStr(moarvmir.Format))
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
	v8ir.Of(s).Header.Set(v8ir.HeaderFrom, ir.JSONStr(dartir.Format))
	if got := ir.UnmanagedOwners(f, s); got != nil {
		t.Errorf("owners %v through an edge %q in a heap made from Dart", got, v8ir.UnmanagedEdge)
	}
	s.Edges.Name[1] = irtest.Strings(f, v8ir.ExternalEdge)[0]
	if got, want := ir.UnmanagedOwners(f, s), []uint32{ir.NoNode, ir.NoNode, 1, ir.NoNode}; !slices.Equal(got, want) {
		t.Errorf("owners %v through %q in a heap made from Dart, want %v", got, v8ir.ExternalEdge, want)
	}
}

func TestIdentity(t *testing.T) {
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds}
	for _, k := range []string{ir.KindObject, ir.KindNative, ir.KindObject} {
		s.Nodes.Kind = append(s.Nodes.Kind, uint8(slices.Index(ir.V8NodeKinds, k)))
	}
	s.Nodes.ID.AppendAll([]uint64{7, 9, 0})
	v := &v8ir.Snapshot{}
	if v.IdentityKind() != "V8 node ids" {
		t.Errorf("IdentityKind %q", v.IdentityKind())
	}
	for i, want := range []bool{true, false, false} {
		if _, ok := v.Identity(s, i); ok != want {
			t.Errorf("node %d (kind %s): identity %v, want %v (native nodes and id 0 have none)", i, s.NodeKindName(i), ok, want)
		}
	}
	v.Header = ir.JSON{Kind: ir.JSONObject}
	v.Header.Set(v8ir.HeaderFrom, ir.JSON{Kind: ir.JSONString, Str: "dart"})
	if v.IdentityKind() != "" {
		t.Error("a snapshot made from a Dart heap claims V8 ids")
	}
}
