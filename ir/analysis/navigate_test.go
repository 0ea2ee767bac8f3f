package analysis_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// navGraph is a small heap of no format DevTools knows:
//
//	0 root -> 1 A, 2 B
//	1 A -x-> 3 C
//	2 B -y-> 3 C, -weak-> 4 D
//	3 C -z-> 4 D
//	5 E -w-> 3 C        (nothing holds E)
func navGraph() analysis.Heap {
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "root", "A", "B", "C", "D", "E", "x", "y", "z", "w", "r")
	root, a, b, c, d, e, x, y, z, w, r := str[0], str[1], str[2], str[3], str[4], str[5], str[6], str[7], str[8], str[9], str[10]
	s := &ir.Snapshot{NodeKinds: []string{"root", "obj"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}, {Name: ir.EdgeWeak}}, Root: 0}
	irtest.Build(s, []irtest.Node{
		{Kind: 0, Name: root, Edges: []irtest.Edge{{0, r, 1}, {0, r, 2}}},
		{Kind: 1, Name: a, Size: 10, Edges: []irtest.Edge{{0, x, 3}}},
		{Kind: 1, Name: b, Size: 20, Edges: []irtest.Edge{{0, y, 3}, {1, w, 4}}},
		{Kind: 1, Name: c, Size: 30, Edges: []irtest.Edge{{0, z, 4}}},
		{Kind: 1, Name: d, Size: 40},
		{Kind: 1, Name: e, Size: 50, Edges: []irtest.Edge{{0, w, 3}}},
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

func pathText(p []analysis.PathStep) string {
	var parts []string
	for _, st := range p {
		t := st.Name
		if st.Edge != nil {
			t += " -" + st.Edge.Name + "->"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

func TestNavigator(t *testing.T) {
	nv, err := analysis.NewNavigator(navGraph())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := []int{nv.Distance(0), nv.Distance(1), nv.Distance(2), nv.Distance(3), nv.Distance(4), nv.Distance(5)}, []int{0, 1, 1, 2, 3, analysis.NoDistance}; !slices.Equal(got, want) {
		t.Errorf("distances %v, want %v", got, want)
	}
	// C's retainers: the nearest first, by name on a tie; E, which nothing
	// holds, last; the weak edge to D is no retainer.
	var holders []int
	for _, r := range nv.Retainers(3) {
		holders = append(holders, r.From)
	}
	if want := []int{1, 2, 5}; !slices.Equal(holders, want) {
		t.Errorf("C's retainers %v, want %v", holders, want)
	}
	if n := len(nv.Retainers(4)); n != 1 {
		t.Errorf("D has %d retainers, want 1 (the weak edge holds nothing)", n)
	}
	for _, tc := range []struct {
		node       int
		path, doms string
	}{
		{4, "A -x-> C -z-> D", "root C D"},
		{3, "A -x-> C", "root C"},
		{1, "A", "root A"},
		{5, "", "root E"}, // unreachable: no path; hung from the root, as DevTools does
	} {
		if got := pathText(nv.ShortestPath(tc.node)); got != tc.path {
			t.Errorf("path to %d: %q, want %q", tc.node, got, tc.path)
		}
		if got := pathText(nv.DominatorChain(tc.node)); got != tc.doms {
			t.Errorf("dominators of %d: %q, want %q", tc.node, got, tc.doms)
		}
	}
	if got := nv.Retained(3); got != 70 {
		t.Errorf("C retains %d, want 70 (itself and D)", got)
	}
	if got := nv.Dominated(0); !slices.Equal(got, []int{3, 5, 2, 1}) {
		t.Errorf("the root dominates %v, want [3 5 2 1] (largest retained first)", got)
	}
	if got := nv.Dominator(4); got != 3 {
		t.Errorf("D's dominator %d, want 3", got)
	}
	if got := nv.NodesByID(7); !slices.Equal(got, []int{3}) {
		t.Errorf("NodesByID(7) = %v, want [3]", got)
	}
	if got := nv.ClassNodes("(obj)", 2); !slices.Equal(got, []int{3, 5}) {
		t.Errorf("ClassNodes(obj, 2) = %v, want [3 5]", got)
	}
	if got := nv.ClassNodes("(obj)", -1); !slices.Equal(got, []int{3, 5, 4, 2, 1}) {
		t.Errorf("ClassNodes(obj, all) = %v, want [3 5 4 2 1]", got)
	}
	if got := nv.ClassNodes("(obj)", 0); got != nil {
		t.Errorf("ClassNodes(obj, 0) = %v, want none", got)
	}
}

// v8Heap builds a V8-shaped heap with a V8 section, so that its node ids
// are identities: a root holding an array that holds objects of class
// Thing with the given ids (and a synthetic node that is in every heap).
func v8Heap(ids ...uint64) analysis.Heap {
	f := &ir.File{Format: v8ir.Format, Strings: []string{""}}
	str := irtest.Strings(f, "", "Array", "Thing", "(GC roots)")
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	ek := func(k string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k }))
	}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	nodes := []irtest.Node{
		{Kind: kind(ir.KindSynthetic), Name: str[0], Edges: []irtest.Edge{{ek("shortcut"), str[1], 2}, {ek("element"), 1, 1}}},
		{Kind: kind(ir.KindSynthetic), Name: str[3]},
		{Kind: kind(ir.KindObject), Name: str[1], Size: 16},
	}
	for k := range ids {
		nodes[2].Edges = append(nodes[2].Edges, irtest.Edge{ek("element"), uint32(k), uint32(3 + k)})
		nodes = append(nodes, irtest.Node{Kind: kind(ir.KindObject), Name: str[2], Size: 32})
	}
	irtest.Build(s, nodes, false)
	var all ir.Uints
	all.AppendAll([]uint64{1, 3, 5})
	all.AppendAll(ids)
	s.Nodes.ID = all
	s.SetSection(&v8ir.Snapshot{})
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

func TestCompareIdentities(t *testing.T) {
	old := v8Heap(11, 13)
	cur := v8Heap(11, 13, 15, 17, 19)
	later := v8Heap(11, 15, 19)
	c, err := analysis.Compare([]analysis.Heap{old, cur, later}, analysis.CompareOptions{By: analysis.ByCount, Retained: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity != "V8 node ids" {
		t.Errorf("identity %q", c.Identity)
	}
	row := c.Classes[0]
	if row.Name != "Thing" || !slices.Equal(row.Count, []uint64{2, 5, 3}) || !slices.Equal(row.SelfSize, []uint64{64, 160, 96}) || row.Growth(analysis.ByCount) != 1 {
		t.Errorf("first class %+v, want Thing with counts 2, 5, 3", row)
	}
	if row.GrewInEach() {
		t.Error("Thing did not grow in each snapshot")
	}
	if len(c.New) != 1 || c.New[0].Class != "Thing" || c.New[0].Count != 3 || !slices.Equal(c.New[0].IDs, []uint64{15, 17, 19}) {
		t.Errorf("new %+v, want the 3 Things 15, 17, 19", c.New)
	}
	if len(c.Leaked) != 1 || c.Leaked[0].Count != 2 || !slices.Equal(c.Leaked[0].IDs, []uint64{15, 19}) {
		t.Fatalf("leaked %+v, want Things 15 and 19 in one group", c.Leaked)
	}
	// Thing 15 is the array's element 1 in the later heap: the group's path
	// is its own, and Thing 19's differs only in the index.
	if got := pathText(c.Leaked[0].Path); got != "Array -1-> Thing" {
		t.Errorf("leaked objects' path %q, want Array -1-> Thing", got)
	}
}

func TestCompareWithoutIdentity(t *testing.T) {
	a, b := navGraph(), navGraph()
	c, err := analysis.Compare([]analysis.Heap{a, b}, analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity != "" || c.New != nil || c.Leaked != nil {
		t.Errorf("a heap without identities compared by identity: %q %v %v", c.Identity, c.New, c.Leaked)
	}
	for _, row := range c.Classes {
		if row.Growth(analysis.BySelf) != 0 || row.Retained != nil {
			t.Errorf("%+v: an unchanged heap grew, or retained sizes were computed unasked", row)
		}
	}
	if _, err := analysis.Compare([]analysis.Heap{a}, analysis.CompareOptions{}); err == nil {
		t.Error("Compare of one heap did not fail")
	}
	if _, err := analysis.Compare([]analysis.Heap{a, b}, analysis.CompareOptions{By: "size"}); err == nil {
		t.Error("Compare by an unknown order did not fail")
	}
}

func ExampleNavigator_ShortestPath() {
	nv, err := analysis.NewNavigator(navGraph())
	if err != nil {
		panic(err)
	}
	for _, st := range nv.ShortestPath(4) {
		fmt.Printf("%s (retains %d)", st.Name, st.Retained)
		if st.Edge != nil {
			fmt.Printf(" holds by %q", st.Edge.Name)
		}
		fmt.Println()
	}
	// Output:
	// A (retains 10) holds by "x"
	// C (retains 70) holds by "z"
	// D (retains 40)
}

// Compare three snapshots of one program: the classes that grew, the
// objects allocated between the first two that the third still has, by
// the path that holds them, and the leak suspects.
func ExampleCompare() {
	before, after, later := v8Heap(11, 13), v8Heap(11, 13, 15, 17, 19), v8Heap(11, 15, 19)
	c, err := analysis.Compare([]analysis.Heap{before, after, later}, analysis.CompareOptions{By: analysis.ByCount})
	if err != nil {
		panic(err)
	}
	top := c.Classes[0]
	fmt.Printf("%s: %v objects\n", top.Name, top.Count)
	fmt.Printf("matched by %s\n", c.Identity)
	for _, g := range c.Leaked {
		fmt.Printf("leaked: %d × %s, ids %v, held by %s\n", g.Count, g.Class, g.IDs, pathText(g.Path))
	}
	// The leak as one item: the object that accumulates the leaked ones.
	s := c.Suspects[0]
	fmt.Printf("suspect: %s holds %d objects, %d bytes (%.0f%%)\n", s.Holder, s.Count, s.Retained, 100*s.Share)
	// Output:
	// Thing: [2 5 3] objects
	// matched by V8 node ids
	// leaked: 2 × Thing, ids [15 19], held by Array -1-> Thing
	// suspect: Array @5 holds 2 objects, 64 bytes (100%)
}

// chainHeap is a V8-shaped heap whose root holds a linked list of n
// objects of class Link, with ids 101, 103, …: a path as deep as the heap.
func chainHeap(n int) analysis.Heap {
	f := &ir.File{Format: v8ir.Format, Strings: []string{""}}
	str := irtest.Strings(f, "", "Link", "next")
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	prop := uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == "property" }))
	shortcut := uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == "shortcut" }))
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	nodes := []irtest.Node{{Kind: kind(ir.KindSynthetic), Name: str[0], Edges: []irtest.Edge{{shortcut, str[2], 1}}}}
	for i := 0; i < n; i++ {
		nd := irtest.Node{Kind: kind(ir.KindObject), Name: str[1], Size: 24}
		if i+1 < n {
			nd.Edges = []irtest.Edge{{prop, str[2], uint32(i + 2)}}
		}
		nodes = append(nodes, nd)
	}
	irtest.Build(s, nodes, false)
	var ids ir.Uints
	ids.Append(1)
	for i := 0; i < n; i++ {
		ids.Append(uint64(101 + 2*i))
	}
	s.Nodes.ID = ids
	s.SetSection(&v8ir.Snapshot{})
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

// TestCompareDeepChain: objects leaked along a chain 60,000 deep are one
// group (held the same way), found without walking each one's whole path
// (which would take hours: the test is a guard against that, not a timing).
func TestCompareDeepChain(t *testing.T) {
	const n = 60_000
	c, err := analysis.Compare([]analysis.Heap{chainHeap(10), chainHeap(n), chainHeap(n)}, analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The largest of many: a selection, not a sort of them all.
	nv, err := analysis.NewNavigator(chainHeap(n))
	if err != nil {
		t.Fatal(err)
	}
	if got := nv.ClassNodes("Link", 3); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("the 3 Links that retain the most: %v, want the list's head [1 2 3]", got)
	}
	if len(c.Leaked) != 1 || c.Leaked[0].Count != n-10 || len(c.Leaked[0].Path) < 10 {
		t.Fatalf("leaked %d groups; the first: %d objects, a path of %d steps", len(c.Leaked), c.Leaked[0].Count, len(c.Leaked[0].Path))
	}
}

func TestCompareUTF16(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"a", "b", -1}, {"ab", "a", 1}, {"", "", 0},
		{"\U0001F600", "\uFFFD", -1}, // a surrogate pair before U+FFFD, as JavaScript sorts
		{"\uE000", "\U00010000", 1},
		{"\U0001F600", "\U0001F601", -1},
	} {
		if got := analysis.CompareUTF16(tc.a, tc.b); got != tc.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestNavigatorVirtualRoot: a snapshot that lists its GC roots without a
// root node (MoarVM's, Fuchsia's) is navigated from a virtual root above
// them, which no path or chain shows.
func TestNavigatorVirtualRoot(t *testing.T) {
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "A", "B", "C", "x", "y", "roots")
	s := &ir.Snapshot{NodeKinds: []string{"obj"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: ir.NoNode}
	irtest.Build(s, []irtest.Node{
		{Kind: 0, Name: str[0], Size: 1, Edges: []irtest.Edge{{0, str[3], 2}}},
		{Kind: 0, Name: str[1], Size: 2, Edges: []irtest.Edge{{0, str[4], 2}}},
		{Kind: 0, Name: str[2], Size: 4},
	}, false)
	s.Roots = []ir.RootRef{{Node: 0, Category: str[5]}, {Node: 1, Category: str[5]}}
	f.Snapshots = []*ir.Snapshot{s}
	nv, err := analysis.NewNavigator(analysis.Heap{File: f, Snapshot: s})
	if err != nil {
		t.Fatal(err)
	}
	if nv.Nodes() != 3 || nv.Distance(0) != 1 || nv.Distance(2) != 2 {
		t.Errorf("%d nodes, distances %d and %d, want 3 nodes, A at 1, C at 2", nv.Nodes(), nv.Distance(0), nv.Distance(2))
	}
	if got := pathText(nv.ShortestPath(2)); got != "A -x-> C" {
		t.Errorf("path to C: %q", got)
	}
	if got := pathText(nv.DominatorChain(2)); got != "C" {
		t.Errorf("C's dominators: %q, want C alone (the virtual root is no node)", got)
	}
	if nv.Dominator(2) != -1 || nv.Retained(2) != 4 {
		t.Errorf("C's dominator %d, retained %d", nv.Dominator(2), nv.Retained(2))
	}
	if got := len(nv.Edges(0)); got != 1 {
		t.Errorf("A holds %d, want 1", got)
	}
	if got := len(nv.Retainers(0)); got != 0 {
		t.Errorf("A, a GC root, has %d retainers (the virtual root's edges are none)", got)
	}
}

// TestRefs: a node whose id no other node has is named "@" and its id; one
// whose id others share (0, as a Dart object without an identity hash code
// has) by "#" and its index; NodesByRef finds each alone, and takes an id
// as people type it.
func TestRefs(t *testing.T) {
	h := navGraph()
	ids := &h.Snapshot.Nodes.ID
	ids.Set(2, 0)
	ids.Set(4, 0)
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"@1", "@3", "#2", "@7", "#4", "@11"}
	for i, w := range want {
		if got := nv.Ref(i); got != w {
			t.Errorf("node %d is %q, want %q", i, got, w)
		}
		if nodes, err := nv.NodesByRef(w); err != nil || !slices.Equal(nodes, []int{i}) {
			t.Errorf("%q names %v (%v), want node %d", w, nodes, err, i)
		}
	}
	if st := nv.Step(2); st.Ref != "#2" || st.String() != st.Class+" #2" {
		t.Errorf("step %+v, %q", st, st)
	}
	for ref, nodes := range map[string][]int{"7": {3}, "0x7": {3}, "0X7": {3}, "@0x7": {3}, "0": {2, 4}, "#6": nil, "@5": nil} {
		if got, err := nv.NodesByRef(ref); err != nil || !slices.Equal(got, nodes) {
			t.Errorf("%q names %v (%v), want %v", ref, got, err, nodes)
		}
	}
	for _, bad := range []string{"", "abc", "#", "#x", "#0x1", "@", "-1", "1.5", "0x", "#-1"} {
		if _, err := nv.NodesByRef(bad); !errors.Is(err, analysis.ErrRef) {
			t.Errorf("%q: %v, want ErrRef", bad, err)
		}
	}
}

// TestEdgesPageAndRetainerCounts: EdgesPage pages through Edges, and
// RetainerCounts counts what Retainers and WeakRetainers list, on every
// node of random heaps.
func TestEdgesPageAndRetainerCounts(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		f := irtest.Random(seed, irtest.Options{MinNodes: 20, MaxNodes: 200, RootFirst: true})
		nv, err := analysis.NewNavigator(analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range nv.Nodes() {
			all := nv.Edges(i)
			var paged []analysis.Reference
			for off := 0; ; off += 3 {
				page, total := nv.EdgesPage(i, off, 3)
				if total != len(all) {
					t.Fatalf("seed %d node %d: EdgesPage total %d, Edges %d", seed, i, total, len(all))
				}
				if len(page) == 0 {
					break
				}
				paged = append(paged, page...)
			}
			if !reflect.DeepEqual(paged, all) && len(all) > 0 {
				t.Fatalf("seed %d node %d: pages %v, Edges %v", seed, i, paged, all)
			}
			if page, total := nv.EdgesPage(i, 1<<62, 1<<62); len(page) != 0 || total != len(all) {
				t.Fatalf("seed %d node %d: a page past the end holds %d", seed, i, len(page))
			}
			if page, _ := nv.EdgesPage(i, 0, int(^uint(0)>>1)); len(page) != len(all) {
				t.Fatalf("seed %d node %d: the largest limit gives %d of %d", seed, i, len(page), len(all))
			}
			strong, weak := nv.RetainerCounts(i)
			if strong != len(nv.Retainers(i)) || weak != len(nv.WeakRetainers(i)) {
				t.Fatalf("seed %d node %d: counts %d, %d; lists %d, %d", seed, i, strong, weak, len(nv.Retainers(i)), len(nv.WeakRetainers(i)))
			}
		}
	}
}
