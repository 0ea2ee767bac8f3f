package report

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// wide is a heap under one root: classes C0…C(classes-1) of perClass
// objects each, object j of a class retaining j+1 chains of Leaf objects
// (a chain of depth Leafs, each holding the next), and one lone Single
// object holding nothing.
func wide(classes, perClass, depth int) analysis.Heap {
	f := &ir.File{Format: "test", Strings: []string{""}}
	s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: 0}
	edge := irtest.Strings(f, "x")[0]
	nodes := []irtest.Node{{Kind: 0, Name: irtest.Strings(f, "root")[0]}}
	add := func(name string, size uint64) uint32 {
		nodes = append(nodes, irtest.Node{Kind: 1, Name: irtest.Strings(f, name)[0], Size: size})
		return uint32(len(nodes) - 1)
	}
	link := func(from, to uint32) { nodes[from].Edges = append(nodes[from].Edges, irtest.Edge{0, edge, to}) }
	for c := 0; c < classes; c++ {
		for j := 0; j < perClass; j++ {
			o := add(fmt.Sprintf("C%d", c), uint64(16+c))
			link(0, o)
			for range j + 1 {
				prev := o
				for range depth {
					l := add("Leaf", 8)
					link(prev, l)
					prev = l
				}
			}
		}
	}
	link(0, add("Single", 24))
	irtest.Build(s, nodes, false)
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

// TestTreemapBound checks the treemap's data: no more nodes than the
// bound, no node with more children than the bound and "other", a node's
// children after it and summing to what it retains beyond itself, and
// with room enough, every object of the heap there.
func TestTreemapBound(t *testing.T) {
	h := wide(30, 20, 3)
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, bound := range []struct{ nodes, per int }{{200, 8}, {50, 40}, {1 << 20, 1 << 20}} {
		tm := buildTreemap(nv, bound.nodes, bound.per)
		if tm == nil {
			t.Fatal("no treemap")
		}
		if len(tm.nodes) > bound.nodes {
			t.Errorf("bound %v: %d nodes", bound, len(tm.nodes))
		}
		kids := make([][]int, len(tm.nodes))
		for i, n := range tm.nodes {
			if i == 0 {
				if n.kind != tmRoot || n.parent != -1 || n.size != nv.Retained(0) {
					t.Fatalf("bound %v: root %+v", bound, n)
				}
				continue
			}
			if n.parent < 0 || n.parent >= i {
				t.Fatalf("bound %v: node %d's parent %d", bound, i, n.parent)
			}
			kids[n.parent] = append(kids[n.parent], i)
		}
		notKept, objects := 0, 0
		for i, n := range tm.nodes {
			switch n.state {
			case tmOpen:
				if len(kids[i]) == 0 || len(kids[i]) > bound.per+1 {
					t.Errorf("bound %v: node %d has %d children", bound, i, len(kids[i]))
				}
				var sum uint64
				for k, c := range kids[i] {
					sum += tm.nodes[c].size
					if tm.nodes[c].kind == tmOther && k != len(kids[i])-1 {
						t.Errorf("bound %v: node %d's other is not last", bound, i)
					}
					if k > 0 && tm.nodes[c].kind != tmOther && tm.nodes[c].size > tm.nodes[kids[i][k-1]].size {
						t.Errorf("bound %v: node %d's children are not largest first", bound, i)
					}
				}
				if want := n.size - n.self; sum != want {
					t.Errorf("bound %v: node %d (%s) retains %d beyond itself, its children %d", bound, i, n.name, want, sum)
				}
			case tmNotKept:
				notKept++
				if len(kids[i]) > 0 {
					t.Errorf("bound %v: node %d has children but says they are left out", bound, i)
				}
			case tmLeaf:
				if len(kids[i]) > 0 || (n.kind == tmObject && n.size != n.self) {
					t.Errorf("bound %v: leaf %d %+v", bound, i, n)
				}
			}
			if n.kind == tmObject {
				objects++
				if n.ref == "" || n.count != 1 {
					t.Errorf("bound %v: object %d %+v", bound, i, n)
				}
			}
			if n.kind == tmGroup && n.count < 2 {
				t.Errorf("bound %v: a group of %d", bound, n.count)
			}
		}
		if bound.nodes < 1000 && notKept == 0 {
			t.Errorf("bound %v: nothing left out", bound)
		}
		if bound.nodes >= 1000 && (notKept != 0 || objects != nv.Nodes()-1) {
			t.Errorf("bound %v: %d left out, %d objects of %d", bound, notKept, objects, nv.Nodes()-1)
		}
		data, err := treemapJSON(tm)
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Names []string
			Nodes [][8]any
		}
		if err := json.Unmarshal(data, &back); err != nil || len(back.Nodes) != len(tm.nodes) {
			t.Fatalf("bound %v: the JSON holds %d nodes (%v)", bound, len(back.Nodes), err)
		}
		if bound.nodes == 200 {
			t.Logf("%d of %d objects, %d nodes in %d bytes", objects, nv.Nodes(), len(tm.nodes), len(data))
		}
	}
	// The single object of a class is an object, not a group of one.
	tm := buildTreemap(nv, 1000, 100)
	found := false
	for _, n := range tm.nodes {
		if n.name == "Single" {
			found = n.kind == tmObject && n.parent == 0 && n.state == tmLeaf && n.ref != ""
		}
	}
	if !found {
		t.Error("the lone Single is not an object of the root's")
	}
}
