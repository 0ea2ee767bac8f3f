package analysis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// node and edge kinds of the heaps below
const (
	tSynthetic = iota
	tObject
)

const (
	tProperty = iota
	tElement
)

// suspectHeap builds a heap of format from named nodes: each node is
// "Class" and its edges "name>target" (a property) or "#>target" (an
// element); node 0 is the synthetic root.
func suspectHeap(format string, nodes []string, sizes []uint64, edges map[int][]string) Heap {
	f := &ir.File{Format: format, Strings: []string{""}}
	s := &ir.Snapshot{NodeKinds: []string{ir.KindSynthetic, ir.KindObject},
		EdgeKinds: []ir.EdgeKind{{Name: "property"}, {Name: "element", Indexed: true}}, Root: 0}
	var built []irtest.Node
	for i, class := range nodes {
		n := irtest.Node{Kind: tObject, Name: irtest.Strings(f, class)[0], Size: sizes[i]}
		if i == 0 {
			n.Kind = tSynthetic
		}
		for k, e := range edges[i] {
			name, target, _ := strings.Cut(e, ">")
			t := 0
			for j, c := range nodes {
				if c == target {
					t = j
				}
			}
			if name == "#" {
				n.Edges = append(n.Edges, irtest.Edge{tElement, uint32(k), uint32(t)})
			} else {
				n.Edges = append(n.Edges, irtest.Edge{tProperty, irtest.Strings(f, name)[0], uint32(t)})
			}
		}
		built = append(built, n)
	}
	irtest.Build(s, built, false)
	f.Snapshots = []*ir.Snapshot{s}
	return Heap{File: f, Snapshot: s}
}

func indexOf(nodes []string, name string) uint32 {
	for i, n := range nodes {
		if n == name {
			return uint32(i)
		}
	}
	panic(name)
}

// TestSuspects checks the grouping of leaked objects by accumulation
// point: three sessions (each with a closure) under one table are one
// suspect whose retained size is that of the set: an older string that
// only two of them hold now counts, though no one session dominates it;
// an object held twice by the global hangs from the global; an object of
// an engine class (MoarVM's specializations) is noise.
func TestSuspects(t *testing.T) {
	nodes := []string{"(root)", "Global", "Table", "S1", "S2", "S3", "C1", "C2", "C3", "Shared", "Other", "X", "StaticFrameSpesh"}
	sizes := []uint64{0, 8, 100, 10, 10, 10, 5, 5, 5, 50, 7, 3, 40}
	h := suspectHeap("moarvm", nodes, sizes, map[int][]string{
		0:  {"global>Global"},
		1:  {"sessions>Table", "other>Other", "x>X", "spesh>StaticFrameSpesh"},
		2:  {"#>S1", "#>S2", "#>S3"},
		3:  {"onChange>C1", "token>Shared"},
		4:  {"onChange>C2", "token>Shared"},
		5:  {"onChange>C3"},
		10: {"x>X"},
	})
	nv, err := NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	var leaked []uint32
	// Shared is old (not leaked) but only the sessions hold it now.
	for _, n := range []string{"S1", "S2", "S3", "C1", "C2", "C3", "X", "StaticFrameSpesh"} {
		leaked = append(leaked, indexOf(nodes, n))
	}
	got, noise := nv.Suspects(leaked, nil, false, 10, 5)
	if noise != 1 {
		t.Errorf("noise %d, want 1 (the specialization)", noise)
	}
	if len(got) != 2 {
		t.Fatalf("%d suspects, want 2: %+v", len(got), got)
	}
	s := got[0]
	if s.Holder.Name != "Table" || s.Count != 6 || s.SelfSize != 45 || s.Retained != 95 {
		t.Errorf("first suspect %s: %d objects, self %d, retained %d; want Table, 6, 45, 95 (the shared string counted)", s.Holder, s.Count, s.SelfSize, s.Retained)
	}
	if want := 95.0 / 98; s.Share < want-1e-9 || s.Share > want+1e-9 {
		t.Errorf("share %f, want %f", s.Share, want)
	}
	if len(s.Path) < 3 || s.Path[s.HolderStep].Node != int(indexOf(nodes, "Table")) || s.Path[s.HolderStep-1].Edge.Name != "sessions" {
		t.Errorf("path %v (holder at %d), want one through the global's sessions to the table", s.Path, s.HolderStep)
	}
	classes := map[string]uint64{}
	for _, g := range s.Classes {
		classes[g.Class] = g.Count
	}
	if classes["S1"] != 1 || classes["C3"] != 1 || len(classes) != 6 {
		t.Errorf("classes %v", classes)
	}
	if x := got[1]; x.Holder.Name != "Global" || x.Count != 1 || x.Retained != 3 {
		t.Errorf("second suspect %s: %d objects, retained %d; want the global's X, 3 bytes", x.Holder, x.Count, x.Retained)
	}
	withNoise, noise := nv.Suspects(leaked, nil, true, 10, 5)
	if noise != 0 || len(withNoise) != 2 || withNoise[1].Retained != 43 {
		t.Errorf("--noise: %d noise, suspects %+v", noise, withNoise)
	}
}

// TestSuspectsThroughUnknown checks that objects without an identity that
// leaked objects hold (a Dart map without an identity hash code in each
// session) are the leak's: one suspect, not one per unidentified object.
func TestSuspectsThroughUnknown(t *testing.T) {
	nodes := []string{"(root)", "Global", "Table", "S1", "S2", "P1", "P2", "I1", "I2"}
	sizes := []uint64{0, 8, 100, 10, 10, 20, 20, 4, 4}
	h := suspectHeap("test", nodes, sizes, map[int][]string{
		0: {"global>Global"},
		1: {"sessions>Table"},
		2: {"#>S1", "#>S2"},
		3: {"prefs>P1"},
		4: {"prefs>P2"},
		5: {"index>I1"},
		6: {"index>I2"},
	})
	nv, err := NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	ids := &fakeIDs{ids: make([]ir.Identity, len(nodes)), has: make([]bool, len(nodes))}
	for i := range nodes {
		ids.ids[i] = ir.Identity{ID: uint64(i + 1)}
		ids.has[i] = nodes[i] != "P1" && nodes[i] != "P2" // the prefs have none
	}
	leaked := []uint32{indexOf(nodes, "S1"), indexOf(nodes, "S2"), indexOf(nodes, "I1"), indexOf(nodes, "I2")}
	got, _ := nv.Suspects(leaked, ids, false, 10, 5)
	if len(got) != 1 || got[0].Holder.Name != "Table" || got[0].Count != 4 || got[0].Retained != 68 {
		t.Errorf("suspects %+v, want one: the table's 4 objects retaining 68 bytes", got)
	}
	// Without the identities, each prefs map is a holder of its own.
	if got, _ := nv.Suspects(leaked, nil, false, 10, 5); len(got) != 3 {
		t.Errorf("%d suspects without identities, want 3", len(got))
	}
}

// TestGrowthSuspects compares heaps without identities: the objects of
// the class that grew are grouped by holder, holders matched by their path
// from the roots; the hash that fills is the suspect, the cache whose
// items did not grow is not.
func TestGrowthSuspects(t *testing.T) {
	heap := func(inHash int) Heap {
		nodes := []string{"(root)", "Hash", "Cache"}
		sizes := []uint64{0, 32, 32}
		edges := map[int][]string{0: {"h>Hash", "c>Cache"}}
		for k := range inHash + 2 {
			name := "Item" + string(rune('a'+k))
			nodes, sizes = append(nodes, name), append(sizes, 16)
			holder := 1
			if k >= inHash {
				holder = 2 // two in the cache, in both heaps
			}
			edges[holder] = append(edges[holder], "#>"+name)
		}
		h := suspectHeap("test", nodes, sizes, edges)
		// One class, Item, for every item.
		item := irtest.Strings(h.File, "Item")[0]
		for i := 3; i < len(nodes); i++ {
			h.Snapshot.Nodes.Name[i] = item
		}
		return h
	}
	c, err := Compare([]Heap{heap(2), heap(5), heap(9)}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.SuspectsBy != "growth" || len(c.Suspects) != 1 {
		t.Fatalf("suspects by %q: %+v", c.SuspectsBy, c.Suspects)
	}
	s := c.Suspects[0]
	if s.Holder.Name != "Hash" || s.Count != 7 || s.Retained != 7*16 || s.Share != 1 {
		t.Errorf("suspect %s: +%d objects, +%d bytes, share %f; want the hash, +7, +112, 1", s.Holder, s.Count, s.Retained, s.Share)
	}
}

// TestHeapSuspects checks a single heap's suspects: the most specific
// objects that keep a tenth of the heap alive each.
func TestHeapSuspects(t *testing.T) {
	nodes := []string{"(root)", "App", "Cache", "Entries", "Small", "Config"}
	sizes := []uint64{0, 10, 10, 700, 5, 150}
	h := suspectHeap("test", nodes, sizes, map[int][]string{
		0: {"app>App", "config>Config"},
		1: {"cache>Cache", "small>Small"},
		2: {"entries>Entries"},
	})
	nv, err := NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	got := nv.HeapSuspects(0.1, 5, 0)
	var names []string
	for _, s := range got {
		names = append(names, s.Holder.Name)
	}
	// Entries (700 of 875) stands for Cache and App above it; Config
	// (150) is a suspect of its own; Small is below a tenth.
	if strings.Join(names, " ") != "Entries Config" {
		t.Errorf("suspects %v, want Entries and Config", names)
	}
	if len(got) == 2 && (got[0].Retained != 700 || got[1].Share != 150.0/875) {
		t.Errorf("figures %+v", got)
	}
}

// TestSuspectsRandom runs Suspects on irtest's random heaps with random
// leaked sets: every leaked object is counted once (in a suspect or as
// noise), shares sum to 1, each path leads to a leaked object through the
// holder, and each exact set retained size equals a brute-force one: what
// a search from the root no longer reaches once the set is removed.
func TestSuspectsRandom(t *testing.T) {
	opts := []irtest.Options{
		{MinNodes: 2, MaxNodes: 80, Kinds: irtest.KindsV8, MaxOutDegree: 3},
		{MinNodes: 2, MaxNodes: 120, Kinds: irtest.KindsMixed, ExternalSizes: true, Snapshots: 1},
		irtest.V8Shaped(1, 100),
	}
	checked := 0
	for oi, o := range opts {
		for seed := int64(0); seed < 80; seed++ {
			f := irtest.Random(seed, o)
			s := f.Snapshots[0]
			nv, err := NewNavigator(Heap{File: f, Snapshot: s})
			if err != nil || nv.Tree() == nil {
				continue
			}
			r := rand.New(rand.NewPCG(uint64(seed), 1))
			var leaked []uint32
			for i := 0; i < nv.n; i++ {
				if r.IntN(3) == 0 {
					leaked = append(leaked, uint32(i))
				}
			}
			name := fmt.Sprintf("options %d seed %d", oi, seed)
			got, noise := nv.Suspects(leaked, nil, false, 1<<30, 1)
			var count uint64
			var share float64
			for _, x := range got {
				count += x.Count
				share += x.Share
				if len(x.Path) > 0 && x.HolderStep >= 0 && x.Path[x.HolderStep].Node != x.Holder.Node {
					t.Errorf("%s: the path's step %d is not the holder %s", name, x.HolderStep, x.Holder)
				}
			}
			if count+noise != uint64(len(leaked)) {
				t.Errorf("%s: %d objects in suspects and %d noise, of %d leaked", name, count, noise, len(leaked))
			}
			if len(got) > 0 && share > 0 && (share < 0.999 || share > 1.001) {
				t.Errorf("%s: shares sum to %f", name, share)
			}
			checked += checkSetRetained(t, name, nv, leaked)
		}
	}
	if checked < 100 {
		t.Errorf("only %d sets checked against the brute force", checked)
	}
}

// checkSetRetained compares setRetained with a brute force for the
// groups of leaked whose holder and objects the root reaches.
func checkSetRetained(t *testing.T, name string, nv *Navigator, leaked []uint32) int {
	h := newLeakHolders(nv, leaked)
	groups := h.groups(leaked, 0)
	seeds, leaves := nv.adopted()
	reach := func(skip func(int) bool) []bool { return nv.reach(seeds, leaves, skip) }
	all := reach(func(int) bool { return false })
	checked := 0
	for _, grp := range groups {
		member := func(i int) bool { return h.inSet[i] && h.group[i] == grp.index }
		if grp.dom < 0 || !all[grp.dom] {
			continue
		}
		ok := true
		for _, x := range leaked {
			if member(int(x)) && !all[x] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		without := reach(member)
		var want uint64
		for v := range all {
			if all[v] && !without[v] && v < nv.n {
				want += nv.ownSize(v)
			}
		}
		var members []uint32
		for _, x := range leaked {
			if member(int(x)) {
				members = append(members, x)
			}
		}
		if got := nv.setRetained(grp.dom, members, member); got != want {
			t.Errorf("%s: the set under node %d (held by %d) retains %d, brute force %d", name, grp.dom, grp.holder, got, want)
		}
		checked++
	}
	return checked
}

// TestSuspectsHeldByLeakedAndRoots checks a leaked object that a root
// grouping and a leaked object hold (a string of a hash's entry that the
// GC's remembered set also lists): its dominator is the root, no object
// outside the leak holds it, so it goes with the object that holds it, to
// the hash's suspect, not to one of its own.
func TestSuspectsHeldByLeakedAndRoots(t *testing.T) {
	nodes := []string{"(root)", "(intergen roots)", "Hash", "E1", "E2", "K1", "K2"}
	sizes := []uint64{0, 0, 32, 16, 16, 8, 8}
	h := suspectHeap("test", nodes, sizes, map[int][]string{
		0: {"#>(intergen roots)", "h>Hash"},
		1: {"#>K1", "#>K2"},
		2: {"#>E1", "#>E2"},
		3: {"key>K1"},
		4: {"key>K2"},
	})
	h.Snapshot.Nodes.Kind[1] = tSynthetic
	nv, err := NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	var leaked []uint32
	for _, n := range []string{"E1", "E2", "K1", "K2"} {
		leaked = append(leaked, indexOf(nodes, n))
	}
	got, _ := nv.Suspects(leaked, nil, false, 10, 5)
	if len(got) != 1 || got[0].Holder.Name != "Hash" || got[0].Count != 4 || got[0].Retained != 48 {
		t.Errorf("suspects %+v, want one: the hash's 4 objects, 48 bytes", got)
	}
}

// TestSuspectsWithoutRootNode: in a heap whose GC roots have no root node
// above them (a native heap's blocks, a MoarVM snapshot's roots), objects
// only the roots hold are dominated by the virtual root the analysis
// adds; their set's retained size is found by a walk from the roots,
// which must not ask the set about the virtual root (it did, past the
// heap's nodes, and panicked).
func TestSuspectsWithoutRootNode(t *testing.T) {
	nodes := []string{"Keep", "L1", "L2", "Child"}
	sizes := []uint64{10, 20, 30, 5}
	h := suspectHeap("test", nodes, sizes, map[int][]string{2: {"c>Child"}})
	s := h.Snapshot
	s.Root = ir.NoNode
	s.Nodes.Kind[0] = tObject
	s.Roots = []ir.RootRef{{Node: 0}, {Node: 1}, {Node: 2}}
	nv, err := NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := nv.Suspects([]uint32{1, 2, 3}, nil, false, 10, 5)
	var retained uint64
	for _, sp := range got {
		retained += sp.Retained
	}
	if len(got) == 0 || retained != 55 {
		t.Errorf("suspects %+v: %d bytes retained in all, want 55 (L1, L2 and L2's child)", got, retained)
	}
}
