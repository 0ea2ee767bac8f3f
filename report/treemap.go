package report

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"slices"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// The treemap's bounds: how much of the dominator tree the page embeds.
const (
	// DefaultTreemapNodes is how many rectangles the treemap's data holds
	// at most (Options.TreemapNodes).
	DefaultTreemapNodes = 3000
	// DefaultTreemapChildren is how many of a rectangle's children the
	// data holds at most, the largest; the rest is one "other" rectangle
	// (Options.TreemapChildren).
	DefaultTreemapChildren = 40
	// treemapName is how many characters of a class's name the data keeps.
	treemapName = 120
)

// The kinds of the treemap's nodes.
const (
	tmRoot   = 0 // the dominator tree's root
	tmGroup  = 1 // the objects of one class a node dominates
	tmObject = 2 // one object
	tmOther  = 3 // the smaller children of a node, folded
)

// The states of a treemap node's children.
const (
	tmLeaf    = 0 // it has none (an object dominating nothing, "other")
	tmOpen    = 1 // they are in the data
	tmNotKept = 2 // it has some, left out by the bound on the data
)

// tmNode is one rectangle of the zoomable treemap: the root, a group of
// objects of one class that one node dominates, one object, or the folded
// rest of a node's children.
type tmNode struct {
	name    string
	size    uint64 // retained
	self    uint64 // an object's own size
	count   int    // objects it stands for
	ref     string // an object's reference (Navigator.Ref)
	kind    int
	parent  int
	state   int
	node    int     // the root's or object's node in the dominator tree
	members []int32 // a group's objects
}

// treemap is the treemap's data: nodes in the order they were added (a
// node's children are consecutive, largest first, "other" last).
type treemap struct {
	nodes []tmNode
}

// domChildren lists each node's children in the dominator tree t, as
// offsets into one array (first[v]:first[v+1] are v's).
func domChildren(t *analysis.DominatorTree) (first, kids []int32) {
	n := len(t.IDom)
	first = make([]int32, n+1)
	for v, d := range t.IDom {
		if d != ir.NoNode && int(d) != v {
			first[d+1]++
		}
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	kids = make([]int32, first[n])
	next := slices.Clone(first[:n])
	for v, d := range t.IDom {
		if d != ir.NoNode && int(d) != v {
			kids[next[d]] = int32(v)
			next[d]++
		}
	}
	return first, kids
}

// bySize is a max-heap of treemap nodes to expand, largest first.
type bySize struct {
	tm  *treemap
	ids []int
}

func (q *bySize) Len() int { return len(q.ids) }
func (q *bySize) Less(i, j int) bool {
	return q.tm.nodes[q.ids[i]].size > q.tm.nodes[q.ids[j]].size
}
func (q *bySize) Swap(i, j int) { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *bySize) Push(x any)    { q.ids = append(q.ids, x.(int)) }
func (q *bySize) Pop() any {
	x := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return x
}

// buildTreemap takes from nv's dominator tree what the zoomable treemap
// shows, bounded: below the root, a node's dominated objects grouped by
// class (a class of one object is that object), below a group its
// objects, below an object again what it dominates grouped by class, and
// so on down. Of each node's children it keeps the perLevel largest (by
// retained size) and folds the rest into one "other"; it expands the
// largest nodes first, and stops when maxNodes nodes are kept. A node whose
// children the bound left out says so (tmNotKept). It returns nil for a
// heap without a root or that retains nothing.
func buildTreemap(nv *analysis.Navigator, maxNodes, perLevel int) *treemap {
	t := nv.Tree()
	if t == nil || t.Retained[t.Root] == 0 {
		return nil
	}
	first, kids := domChildren(t)
	className := func(v int32) string {
		if int(v) < nv.Nodes() {
			return cutName(nv.Class(int(v)))
		}
		return "(root)"
	}
	tm := &treemap{}
	root := tmNode{name: className(int32(t.Root)), size: t.Retained[t.Root], count: 1, kind: tmRoot, parent: -1, state: tmNotKept, node: int(t.Root)}
	if int(t.Root) < nv.Nodes() {
		root.self, root.ref = nv.SelfSize(int(t.Root)), nv.Ref(int(t.Root))
	}
	tm.nodes = append(tm.nodes, root)
	object := func(v int32, parent int) tmNode {
		o := tmNode{name: className(v), size: t.Retained[v], count: 1, kind: tmObject, parent: parent, node: int(v)}
		if int(v) < nv.Nodes() {
			o.self, o.ref = nv.SelfSize(int(v)), nv.Ref(int(v))
		}
		if first[v+1] > first[v] {
			o.state = tmNotKept
		}
		return o
	}
	// children returns node id's children as the data keeps them: the
	// perLevel largest, then "other" for the rest.
	children := func(id int) []tmNode {
		p := tm.nodes[id]
		var keep []tmNode
		other := tmNode{name: "(other)", kind: tmOther, parent: id}
		fold := func(c tmNode) {
			if len(keep) < perLevel && c.size > 0 {
				keep = append(keep, c)
				return
			}
			other.size += c.size
			other.count += c.count
		}
		if p.kind == tmGroup {
			// A group's objects, largest first; only the kept become nodes.
			slices.SortStableFunc(p.members, func(a, b int32) int { return cmp.Compare(t.Retained[b], t.Retained[a]) })
			for _, v := range p.members {
				if r := t.Retained[v]; len(keep) < perLevel && r > 0 {
					keep = append(keep, object(v, id))
				} else {
					other.size += t.Retained[v]
					other.count++
				}
			}
		} else {
			var groups []tmNode
			byClass := map[string]int{}
			for _, v := range kids[first[p.node]:first[p.node+1]] {
				name := className(v)
				k, ok := byClass[name]
				if !ok {
					k = len(groups)
					byClass[name] = k
					groups = append(groups, tmNode{name: name, kind: tmGroup, parent: id, state: tmNotKept})
				}
				g := &groups[k]
				g.size += t.Retained[v]
				g.count++
				g.members = append(g.members, v)
			}
			slices.SortStableFunc(groups, func(a, b tmNode) int { return cmp.Compare(b.size, a.size) })
			for _, g := range groups {
				if g.count == 1 {
					g = object(g.members[0], id)
				}
				fold(g)
			}
		}
		if other.size > 0 {
			keep = append(keep, other)
		}
		return keep
	}
	q := &bySize{tm: tm, ids: []int{0}}
	for q.Len() > 0 && len(tm.nodes) < maxNodes {
		id := heap.Pop(q).(int)
		keep := children(id)
		if len(keep) == 0 {
			tm.nodes[id].state = tmLeaf
			continue
		}
		if len(tm.nodes)+len(keep) > maxNodes {
			tm.nodes[id].members = nil
			continue // stays tmNotKept
		}
		tm.nodes[id].state = tmOpen
		tm.nodes[id].members = nil
		for _, c := range keep {
			tm.nodes = append(tm.nodes, c)
			if c.state == tmNotKept {
				heap.Push(q, len(tm.nodes)-1)
			}
		}
	}
	for i := range tm.nodes {
		tm.nodes[i].members = nil
	}
	return tm
}

// cutName shortens a class's name for the treemap's data.
func cutName(s string) string { return cut(s, treemapName) }

// treemapJSON is the treemap's data as the page's script reads it:
// {"names": [...], "nodes": [[name, retained, self, count, ref, kind,
// parent, state], ...]}, name an index into names (each class's name
// once), ref "" for all but objects.
func treemapJSON(tm *treemap) ([]byte, error) {
	var names []string
	index := map[string]int{}
	rows := make([][8]any, len(tm.nodes))
	for i, n := range tm.nodes {
		k, ok := index[n.name]
		if !ok {
			k = len(names)
			index[n.name] = k
			names = append(names, n.name)
		}
		rows[i] = [8]any{k, n.size, n.self, n.count, n.ref, n.kind, n.parent, n.state}
	}
	return json.Marshal(struct {
		Names []string `json:"names"`
		Nodes [][8]any `json:"nodes"`
	}{names, rows})
}
