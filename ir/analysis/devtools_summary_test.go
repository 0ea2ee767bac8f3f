package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
)

// testHeap builds small V8-shaped snapshots: node 0 is the root, and every
// other node hangs from it by an element edge.
type testHeap struct {
	strs  []string
	index map[string]uint32
	nodes []testNode
}

type testNode struct {
	kind, name string
	size       uint64
	det        uint64
	edges      []testEdge
}

type testEdge struct {
	kind, name string
	to         int
}

func newTestHeap() *testHeap {
	return &testHeap{nodes: []testNode{{kind: ir.KindSynthetic}}, index: map[string]uint32{}}
}

// add adds a node and returns its index.
func (h *testHeap) add(kind, name string, size uint64) int {
	h.nodes = append(h.nodes, testNode{kind: kind, name: name, size: size})
	i := len(h.nodes) - 1
	h.nodes[0].edges = append(h.nodes[0].edges, testEdge{ir.EdgeElement, "", i})
	return i
}

// object adds a plain object with property edges of these names (to the
// root, which is as good a target as any).
func (h *testHeap) object(props ...string) int {
	o := h.add(ir.KindObject, "Object", 16)
	for _, p := range props {
		h.nodes[o].edges = append(h.nodes[o].edges, testEdge{ir.EdgeProperty, p, 0})
	}
	return o
}

func (h *testHeap) str(s string) uint32 {
	if i, ok := h.index[s]; ok {
		return i
	}
	h.index[s] = uint32(len(h.strs))
	h.strs = append(h.strs, s)
	return uint32(len(h.strs) - 1)
}

// build makes the file; a V8 section with a detachedness column and
// locations (object, script, line, column) when locations is not nil.
func (h *testHeap) build(locations []uint64) (*ir.File, *ir.Snapshot) {
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	s.Nodes.FirstEdge = []uint32{0}
	var det ir.Uints
	for i, n := range h.nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, uint8(slices.Index(ir.V8NodeKinds, n.kind)))
		s.Nodes.Name = append(s.Nodes.Name, h.str(n.name))
		s.Nodes.ID.Append(uint64(2*i + 1))
		s.Nodes.SelfSize.Append(n.size)
		det.Append(n.det)
		for k, e := range n.edges {
			kind := slices.IndexFunc(ir.V8EdgeKinds, func(x ir.EdgeKind) bool { return x.Name == e.kind })
			name := uint32(k)
			if !ir.V8EdgeKinds[kind].Indexed {
				name = h.str(e.name)
			}
			s.Edges.Kind = append(s.Edges.Kind, uint8(kind))
			s.Edges.Name = append(s.Edges.Name, name)
			s.Edges.Target = append(s.Edges.Target, uint32(e.to))
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	if locations != nil {
		meta := ir.JSON{Kind: ir.JSONObject}
		meta.Set("location_fields", ir.JSONStrs("object_index", "script_id", "line", "column"))
		header := ir.JSON{Kind: ir.JSONObject}
		header.Set("meta", meta)
		s.SetSection(&v8ir.Snapshot{Header: header, NodeExtra: []v8ir.Field{{Name: "detachedness", Values: det}}})
		v8ir.Of(s).Locations.AppendAll(locations)
	}
	f := &ir.File{Format: v8ir.Format, Strings: h.strs, Snapshots: []*ir.Snapshot{s}}
	return f, s
}

// classesOf returns the Summary class of every node.
func classesOf(f *ir.File, s *ir.Snapshot) []string {
	classes, of := devtoolsClasses(f, s, nil)
	out := make([]string, len(of))
	for i, c := range of {
		out[i] = classes[c].Name
		if l := classes[c].Location; l != nil {
			out[i] = fmt.Sprintf("%d,%d,%d,%s", l.ScriptID, l.Line, l.Column, out[i])
		}
	}
	return out
}

func TestFormatPropertyName(t *testing.T) {
	lone := string(ir.AppendWTF8(nil, 0xD800))
	for _, c := range []struct{ in, want string }{
		{"id", "id"},
		{"a b", "a b"},
		{"", ""},
		{"line\nbreak", "line\nbreak"}, // nothing ambiguous: as it is
		{lone, lone},
		{"a,b", `"a,b"`},
		{`say "hi"`, `"say \"hi\""`},
		{"it's", `"it's"`},
		{"{x}", `"{x}"`},
		{`back\slash,`, `"back\\slash,"`},
		{"tab\t,\x01", `"tab\t,\u0001"`},
		{lone + ",", `"\ud800,"`},
		{"é,☃", `"é,☃"`},
	} {
		if got := formatPropertyName(c.in); got != c.want {
			t.Errorf("formatPropertyName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestInferInterfaces: the interfaces of a small heap, their order, and the
// objects each names.
func TestInferInterfaces(t *testing.T) {
	h := newTestHeap()
	var want []string // per node, from 1
	obj := func(class string, props ...string) {
		h.object(props...)
		want = append(want, class)
	}
	for range 3 {
		obj("{id, label, tags, el}", "id", "label", "tags", "el")
	}
	// The same properties in another order: a candidate of its own, less
	// popular, so the more popular one with the same properties names
	// its objects too.
	for range 2 {
		obj("{id, label, tags, el}", "el", "id", "label", "tags")
	}
	// __proto__ is not part of a shape.
	for range 2 {
		obj("{x, y}", "__proto__", "x", "y")
	}
	obj("{x, y}", "y", "x")
	// Most properties matched wins: this one has both {x, y} and
	// {id, label, tags, el} and more; the four-property interface names it.
	obj("{id, label, tags, el}", "x", "y", "tags", "el", "id", "label", "z")
	// Only one object has this shape: no interface.
	obj("Object", "lonely")
	obj("Object")
	// An object with a property twice matches an interface that has it
	// twice only if it has it twice too.
	for range 2 {
		obj("{k, k}", "k", "k")
	}
	obj("Object", "k")
	// Two interfaces of two properties match: the more popular (earlier)
	// one names it.
	obj("{x, y}", "k", "x", "k", "y")
	// Other kinds and names are left alone.
	fn := h.add(ir.KindClosure, "f", 32)
	h.nodes[fn].edges = append(h.nodes[fn].edges, testEdge{ir.EdgeProperty, "x", 0}, testEdge{ir.EdgeProperty, "y", 0})
	want = append(want, "Function")
	other := h.add(ir.KindObject, "Point", 16)
	h.nodes[other].edges = append(h.nodes[other].edges, testEdge{ir.EdgeProperty, "x", 0}, testEdge{ir.EdgeProperty, "y", 0})
	want = append(want, "Point")

	f, s := h.build(nil)
	props := newPropTable(f)
	defs := inferInterfaces(f, s, props)
	var names []string
	var counts []int
	for _, d := range defs {
		names = append(names, d.name)
		counts = append(counts, d.count)
	}
	// By popularity; "{y, x}" (one object) and "{lonely}" miss the
	// threshold, "{x, y}" counts the objects with __proto__.
	wantNames := []string{"{id, label, tags, el}", "{el, id, label, tags}", "{x, y}", "{k, k}"}
	if !slices.Equal(names, wantNames) || !slices.Equal(counts, []int{3, 2, 2, 2}) {
		t.Errorf("interfaces %q counts %v, want %q [3 2 2 2]", names, counts, wantNames)
	}
	got := classesOf(f, s)[1:]
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d: class %q, want %q", i+1, got[i], want[i])
		}
	}
}

// TestInterfaceThresholds: an interface must name two objects, and at
// least one plain object in a thousand.
func TestInterfaceThresholds(t *testing.T) {
	for _, c := range []struct {
		plain int // objects without properties besides the shapes'
		want  []string
	}{
		{0, []string{"{a}", "{b}"}},    // 5 objects: 2 suffice
		{1995, []string{"{a}", "{b}"}}, // 2000: 2 still suffice
		{1996, []string{"{a}"}},        // 2001: more than 2 needed
		{2995, []string{"{a}"}},        // 3000: 3 suffice
		{2996, []string{}},             // 3001: more than 3 needed
	} {
		h := newTestHeap()
		for range 3 {
			h.object("a")
		}
		for range 2 {
			h.object("b")
		}
		for range c.plain {
			h.object()
		}
		f, s := h.build(nil)
		names := []string{}
		for _, d := range inferInterfaces(f, s, newPropTable(f)) {
			names = append(names, d.name)
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("%d plain objects: interfaces %q, want %q", c.plain+5, names, c.want)
		}
	}
}

// TestInterfaceNameLimit: properties go into the name while it stays within
// 120 UTF-16 units (separators and the closing brace not counted); the
// first always does; the rest of the object's properties still match.
func TestInterfaceNameLimit(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	a, b, c := long("a", 28), long("b", 28), long("c", 28)
	// "{" and three names of 28 with two separators: 89 units.
	at120 := long("é", 31)  // 89 + 31 = 120: in (counted in UTF-16 units, not bytes)
	at121 := long("h", 32)  // 89 + 32 = 121: out
	astral := long("😀", 16) // 32 units: out
	first := long("f", 130) // longer than the limit, but first
	h := newTestHeap()
	for range 2 {
		h.object(a, b, c, at120, "z")
		h.object(a, b, c, at121, "y")
		h.object(a, b, c, astral)
		h.object(first, "x")
		h.object("", "w") // an empty first name adds nothing, not even a separator
		// …so "{" and 100 units leave room for 19 more.
		h.object("", long("m", 100), long("n", 19), "o")
	}
	f, s := h.build(nil)
	var names []string
	for _, d := range inferInterfaces(f, s, newPropTable(f)) {
		names = append(names, d.name)
	}
	want := []string{
		"{" + a + ", " + b + ", " + c + "}", // the two cut shapes share a name: 4 objects
		"{" + a + ", " + b + ", " + c + ", " + at120 + "}",
		"{" + first + "}",
		"{w}",
		"{" + long("m", 100) + ", " + long("n", 19) + "}",
	}
	if !slices.Equal(names, want) {
		t.Errorf("interfaces\n%q\nwant\n%q", names, want)
	}
	if got := ir.UTF16Len(want[1]); got != 123 {
		t.Errorf("the longest name has %d units, want 123", got)
	}
	// The cut names' objects match them; the first object with a name
	// gave its (cut) properties.
	got := classesOf(f, s)[1:]
	for i, w := range []string{want[1], want[0], want[0], want[2], want[3], want[4]} {
		if got[i] != w || got[i+6] != w {
			t.Errorf("objects %d and %d: classes %q and %q, want %q", i+1, i+7, got[i], got[i+6], w)
		}
	}
}

// TestDevToolsDetachedAndLocations: detached native nodes are "Detached …"
// (their state spread to native nodes of unknown state, not through hidden
// or weak edges nor through JavaScript objects), and objects, not
// functions, are split by allocation location, the last entry of a node
// counting.
func TestDevToolsDetachedAndLocations(t *testing.T) {
	h := newTestHeap()
	link := func(from int, kind string, to int) {
		h.nodes[from].edges = append(h.nodes[from].edges, testEdge{kind, "e", to})
	}
	native := func(name string, det uint64) int {
		n := h.add(ir.KindNative, name, 8)
		h.nodes[n].det = det
		return n
	}
	attached := native(`<div id="app">`, 1)       // 1
	detached := native(`<div id="old">`, 2)       // 2
	viaAttached := native("<span>", 0)            // 3: attached wins
	viaDetached := native("<p class=x>", 0)       // 4
	throughHidden := native("<b>", 0)             // 5
	throughWeak := native("<i>", 0)               // 6
	wrapper := h.add(ir.KindObject, "Wrapper", 8) // 7
	behindJS := native("<em>", 0)                 // 8
	second := native("Text", 0)                   // 9: two native steps away
	link(attached, ir.EdgeInternal, viaAttached)
	link(detached, ir.EdgeInternal, viaAttached)
	link(detached, ir.EdgeProperty, viaDetached)
	link(viaDetached, ir.EdgeInternal, second)
	link(detached, ir.EdgeHidden, throughHidden)
	link(detached, ir.EdgeWeak, throughWeak)
	link(detached, ir.EdgeInternal, wrapper)
	link(wrapper, ir.EdgeProperty, behindJS)
	foo1 := h.add(ir.KindObject, "Foo", 8) // 10
	foo2 := h.add(ir.KindObject, "Foo", 8) // 11
	foo3 := h.add(ir.KindObject, "Foo", 8) // 12
	fn := h.add(ir.KindClosure, "f", 8)    // 13
	loc := []uint64{
		uint64(foo1), 3, 10, 4,
		uint64(foo2), 3, 10, 4,
		uint64(foo3), 3, 10, 4,
		uint64(foo3), 5, 1, 2, // the later entry counts
		uint64(fn), 3, 10, 4,
	}
	f, s := h.build(loc)
	want := []string{"(synthetic)", "<div>", "Detached <div>", "<span>", "Detached <p>", "<b>", "<i>", "Wrapper",
		"<em>", "Detached Text", "3,10,4,Foo", "3,10,4,Foo", "5,1,2,Foo", "Function"}
	if got := classesOf(f, s); !slices.Equal(got, want) {
		t.Errorf("classes\n%q\nwant\n%q", got, want)
	}
	// ClassStats: one row per (name, location); the root has no size and
	// so no row.
	stats := ClassStats(f, s)
	rows := map[string]uint64{}
	for _, c := range stats {
		key := c.Name
		if c.Location != nil {
			key = fmt.Sprintf("%s@%d:%d:%d", c.Name, c.Location.ScriptID, c.Location.Line, c.Location.Column)
		}
		rows[key] = c.Count
	}
	if rows["Foo@3:10:4"] != 2 || rows["Foo@5:1:2"] != 1 || rows["Function"] != 1 || len(rows) != len(want)-2 {
		t.Errorf("rows %v", rows)
	}
	// Without the V8 section nothing is detached or located.
	s.Sections = nil
	if got := classesOf(f, s); got[2] != "<div>" || got[10] != "Foo" {
		t.Errorf("without a V8 section: %q", got)
	}
}

// BenchmarkDevToolsClasses names the classes of a heap of a million nodes,
// most of them plain objects: shapes shared by many, shapes of their own
// (unique property names), DOM nodes with states, and located objects.
func BenchmarkDevToolsClasses(b *testing.B) {
	const n = 1 << 20
	h := newTestHeap()
	h.nodes = slices.Grow(h.nodes, n)
	var locations []uint64
	for i := 1; len(h.nodes) < n; i++ {
		switch i % 8 {
		case 0, 1, 2:
			h.object("id", "label", "tags", "el")
		case 3:
			h.object("x", "y", fmt.Sprint("k", i)) // a shape of its own
		case 4:
			h.object("el", "id", "label", "tags", "extra")
		case 5:
			d := h.add(ir.KindNative, "<div class=a>", 40)
			h.nodes[d].det = uint64(i % 3)
			h.nodes[d].edges = append(h.nodes[d].edges, testEdge{ir.EdgeInternal, "child", max(d-8, 0)})
		case 6:
			o := h.add(ir.KindObject, "Item", 32)
			locations = append(locations, uint64(o), uint64(i%7), uint64(i%100), 0)
		default:
			h.add(ir.KindString, "s", 16)
		}
	}
	f, s := h.build(locations)
	b.ResetTimer()
	for range b.N {
		devtoolsClasses(f, s, nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Nodes.Len()), "ns/node")
}
