package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir"
)

// CompareOptions choose what Compare computes.
type CompareOptions struct {
	// By orders the classes by the growth of their count (ByCount), self
	// size (BySelf, the default) or retained size (ByRetained).
	By string
	// Retained adds each class's retained size in each heap (it needs each
	// heap's dominator tree); ByRetained implies it.
	Retained bool
	// Examples is how many object ids each group of new or leaked objects
	// lists (default 5; negative: none).
	Examples int
	// Suspects is how many leak suspects to find (default 10; negative:
	// none). They need the last heap's dominator tree.
	Suspects int
	// Noise keeps engine noise among the suspects' objects: what a runtime
	// allocates for itself as a program runs (V8's compiled code, object
	// shapes, feedback vectors and what only its own roots reach, such as
	// the strings it interns; the Dart VM's code objects; MoarVM's
	// specializations). It is left out by default.
	Noise bool
}

// ClassChange is one class's figures in each compared heap.
type ClassChange struct {
	Name string `json:"name"`
	// Location is set for a V8 class DevTools splits by allocation
	// location (as in ClassStat).
	Location *SourceLocation `json:"location,omitempty"`
	// Count, SelfSize and Retained hold one figure per heap, in the order
	// given; Retained only when asked for.
	Count    []uint64 `json:"count"`
	SelfSize []uint64 `json:"self_size"`
	Retained []uint64 `json:"retained_size,omitempty"`
}

// Label names the class as heapconv info lists it (ClassStat.Label).
func (c ClassChange) Label() string { return ClassStat{Name: c.Name, Location: c.Location}.Label() }

// ClassChanges puts the classes of heaps side by side: perHeap holds each
// heap's classes (as ClassStats or SummarizeBy give them), in the order
// the heaps were taken. Each class (name and location) gets a row with its
// figures in every heap (0 where it has no objects), with the retained
// sizes when withRetained (from the stats that carry them); the classes
// that grew most by `by` (BySelf, ByCount, ByRetained) come first, then by
// name.
func ClassChanges(perHeap [][]ClassStat, by string, withRetained bool) []ClassChange {
	type key struct {
		name string
		loc  SourceLocation
		has  bool
	}
	rows := map[key]*ClassChange{}
	var order []key
	n := len(perHeap)
	for k, stats := range perHeap {
		for _, st := range stats {
			kk := key{name: st.Name}
			if st.Location != nil {
				kk.loc, kk.has = *st.Location, true
			}
			row := rows[kk]
			if row == nil {
				row = &ClassChange{Name: st.Name, Location: st.Location, Count: make([]uint64, n), SelfSize: make([]uint64, n)}
				if withRetained {
					row.Retained = make([]uint64, n)
				}
				rows[kk] = row
				order = append(order, kk)
			}
			row.Count[k] += st.Count
			row.SelfSize[k] += st.SelfSize
			if withRetained && st.Retained != nil {
				row.Retained[k] += *st.Retained
			}
		}
	}
	out := make([]ClassChange, 0, len(order))
	for _, k := range order {
		out = append(out, *rows[k])
	}
	slices.SortStableFunc(out, func(a, b ClassChange) int {
		if ga, gb := a.Growth(by), b.Growth(by); ga != gb {
			return cmp.Compare(gb, ga)
		}
		if r := strings.Compare(a.Name, b.Name); r != 0 {
			return r
		}
		return locationCompare(a.Location, b.Location)
	})
	return out
}

// Growth returns the change of a figure from the first heap to the last
// (ByCount, BySelf or ByRetained; 0 for retained sizes not computed).
func (c ClassChange) Growth(by string) int64 {
	v := c.SelfSize
	switch by {
	case ByCount:
		v = c.Count
	case ByRetained:
		v = c.Retained
	}
	if len(v) == 0 {
		return 0
	}
	return int64(v[len(v)-1] - v[0])
}

// GrewInEach reports whether the class's count grew from each heap to the
// next: the classes a leak test looks at first.
func (c ClassChange) GrewInEach() bool {
	for k := 1; k < len(c.Count); k++ {
		if c.Count[k] <= c.Count[k-1] {
			return false
		}
	}
	return len(c.Count) > 1
}

// ObjectGroup is a set of objects of one class, and for leaked objects
// one retainer path.
type ObjectGroup struct {
	// Class is the objects' class as the class table lists it
	// (ClassStat.Label: with its location, for a V8 class split by one).
	Class string `json:"class"`
	// Name is, for a suspect's closures, the name most of them are shown
	// by: their function's, as DevTools shows a closure ("onChange()").
	Name  string `json:"name,omitempty"`
	Count uint64 `json:"count"`
	// SelfSize sums the objects' self sizes as the class table counts
	// them (for V8, DevTools' Summary sizes).
	SelfSize uint64 `json:"self_size"`
	// Path is, for leaked objects, the shortest retainer path in the last
	// heap of the group's first object, from the roots. The group's
	// objects share its last 8 steps (the 8 nearest holders, their
	// classes and the edges' names; array indices may differ).
	Path []PathStep `json:"path,omitempty"`
	// IDs are the ids of the group's first objects (CompareOptions.Examples).
	IDs []uint64 `json:"ids,omitempty"`
}

// Comparison is what Compare finds between heaps.
type Comparison struct {
	// Classes are the classes of every heap with their figures in each,
	// sorted by growth (CompareOptions.By) from the first heap to the last,
	// largest first, then by name.
	Classes []ClassChange `json:"classes"`
	// Identity says what objects are matched by between the heaps (see
	// ir.ObjectIdentities); "" when the heaps' format gives objects no
	// identity that persists, and then New and Leaked are nil.
	Identity string `json:"identity"`
	// New are the objects of the second heap that the first did not have,
	// by class, most first: those the class table counts (for V8, those
	// DevTools shows a size for).
	New []ObjectGroup `json:"new"`
	// Leaked, with a third heap, are the objects new in the second heap that
	// the third still has (the objects a leak test looks for: allocated
	// during one phase, still alive after the next), grouped by class and by
	// their shortest retainer path in the third heap.
	Leaked []ObjectGroup `json:"leaked,omitempty"`
	// Step names the heaps New and Leaked compare (indices into the heaps
	// given): of more than three, the last three (the last step); of two,
	// both.
	Step []int `json:"step"`
	// Suspects are the leaks, largest first: the leaked objects (or, of
	// two heaps, the new ones) grouped by their accumulation point, or,
	// where objects have no identity, the holders whose objects of growing
	// classes grew (SuspectsBy says which).
	Suspects []Suspect `json:"suspects"`
	// SuspectsBy is "identity" (suspects of leaked objects) or "growth"
	// (suspects of growth between the first heap and the last); "" for
	// no suspects.
	SuspectsBy string `json:"suspects_by"`
	// Noise is how many of the suspects' candidate objects were left out
	// as engine noise (CompareOptions.Noise).
	Noise uint64 `json:"noise"`
	// last is the navigator Compare made of the last heap, if it made one.
	last *Navigator
}

// Navigator returns the navigator Compare made of the last heap for the
// suspects and the leaked objects' paths (nil when it needed none), so
// that a caller who needs one too does not compute its dominator tree
// again.
func (c *Comparison) Navigator() *Navigator { return c.last }

// Compare compares snapshots of one program, taken one after another:
// per class, the count, self size and (optionally) retained size in each;
// where objects keep identities from one snapshot to the next
// (ir.Identities), the objects of the last step (of three or more heaps,
// the last three) new in its second heap and, with a third, those of them
// still alive in it; and the leak suspects (CompareOptions.Suspects).
func Compare(heaps []Heap, opts CompareOptions) (*Comparison, error) {
	if len(heaps) < 2 {
		return nil, fmt.Errorf("compare takes 2 heaps or more, not %d", len(heaps))
	}
	by := opts.By
	if by == "" {
		by = BySelf
	}
	switch by {
	case BySelf, ByCount, ByRetained:
	default:
		return nil, fmt.Errorf("unknown order %q (want %s, %s or %s)", by, BySelf, ByCount, ByRetained)
	}
	retained := opts.Retained || by == ByRetained
	maxSuspects := opts.Suspects
	if maxSuspects == 0 {
		maxSuspects = 10
	}
	step := []int{len(heaps) - 2, len(heaps) - 1}
	if len(heaps) >= 3 {
		step = []int{len(heaps) - 3, len(heaps) - 2, len(heaps) - 1}
	}
	last := len(heaps) - 1
	ids := make([]ir.ObjectIdentities, len(heaps))
	identified := true
	for _, k := range step {
		ids[k] = ir.Identities(heaps[k].Snapshot)
		if ids[k] == nil || ids[k].IdentityKind() != ids[step[0]].IdentityKind() {
			identified = false
		}
	}
	// The heaps that need a navigator: the last, for the leaked objects'
	// paths and the suspects; without identities, the first too.
	navigate := make([]bool, len(heaps))
	if identified {
		navigate[last] = len(step) == 3 || maxSuspects > 0
	} else if maxSuspects >= 0 {
		navigate[0], navigate[last] = true, true
	}
	// Each heap's classes (and, where needed, its navigator) on a
	// goroutine of its own, two at a time: the dominator trees and class
	// tables of two heaps share the cores better than one, and more would
	// only add their memory. The heaps with a navigator, the longest work,
	// go first, so that the others' tables fill the second core meanwhile
	// instead of leaving it idle at the end.
	tables := make([]*classTable, len(heaps))
	navs := make([]*Navigator, len(heaps))
	errs := make([]error, len(heaps))
	order := make([]int, 0, len(heaps))
	for k := len(heaps) - 1; k >= 0; k-- {
		if navigate[k] {
			order = append(order, k)
		}
	}
	for k := range heaps {
		if !navigate[k] {
			order = append(order, k)
		}
	}
	jobs := make(chan int, len(order))
	for _, k := range order {
		jobs <- k
	}
	close(jobs)
	var wg sync.WaitGroup
	for range min(2, len(order)) {
		wg.Go(func() {
			for k := range jobs {
				h := heaps[k]
				tables[k], errs[k] = newClassTable(h.File, h.Snapshot, retained)
				if errs[k] == nil && navigate[k] {
					navs[k], errs[k] = navigatorOf(h, tables[k])
				}
			}
		})
	}
	wg.Wait()
	perHeap := make([][]ClassStat, len(heaps))
	for k, table := range tables {
		if errs[k] != nil {
			return nil, fmt.Errorf("heap %d: %w", k, errs[k])
		}
		perHeap[k] = table.stats()
	}
	c := &Comparison{Classes: ClassChanges(perHeap, by, retained), Suspects: []Suspect{}, last: navs[last]}
	c.Step = step

	if !identified {
		if maxSuspects < 0 {
			return c, nil
		}
		grown := map[string]bool{}
		for _, row := range c.Classes {
			if row.Count[last] > row.Count[0] {
				grown[row.Label()] = true
			}
		}
		c.Suspects, c.Noise = growthSuspects(navs[0], navs[last], grown, opts.Noise, maxSuspects, opts.Examples)
		if c.Suspects == nil {
			c.Suspects = []Suspect{}
		}
		if len(c.Suspects) > 0 || len(grown) > 0 {
			c.SuspectsBy = "growth"
		}
		return c, nil
	}
	c.Identity = ids[step[0]].IdentityKind()
	examples := opts.Examples
	if examples == 0 {
		examples = 5
	}
	a, b := step[0], step[1]
	newIn := newObjects(heaps[a], heaps[b], ids[a], ids[b])
	c.New = groupByClass(heaps[b], counted(newIn, tables[b]), tables[b], examples)
	leaked, holder := counted(newIn, tables[b]), b
	if len(step) == 3 {
		z := step[2]
		leaked = counted(stillAlive(heaps[b], heaps[z], newIn, ids[b], ids[z]), tables[z])
		holder = z
	}
	nv := navs[holder]
	if len(step) == 3 {
		c.Leaked = groupByPath(nv, leaked, tables[holder].sizes, examples)
	}
	if maxSuspects > 0 {
		c.Suspects, c.Noise = nv.Suspects(leaked, ids[holder], opts.Noise, maxSuspects, examples)
		if c.Suspects == nil {
			c.Suspects = []Suspect{}
		}
		c.SuspectsBy = "identity"
	}
	return c, nil
}

func locationCompare(a, b *SourceLocation) int {
	switch {
	case locationLess(a, b):
		return -1
	case locationLess(b, a):
		return 1
	}
	return 0
}

// identities returns the sorted identities of a heap's objects (its
// synthetic nodes left out), each with its node.
func identities(h Heap, ids ir.ObjectIdentities) []identified {
	s := h.Snapshot
	synthetic := ir.SyntheticNodes(h.File, s)
	out := make([]identified, 0, s.Nodes.Len())
	for i := 0; i < s.Nodes.Len(); i++ {
		if synthetic[i] {
			continue
		}
		if id, ok := ids.Identity(s, i); ok {
			out = append(out, identified{id, uint32(i)})
		}
	}
	slices.SortFunc(out, func(a, b identified) int { return identityCompare(a.id, b.id) })
	return out
}

type identified struct {
	id   ir.Identity
	node uint32
}

func identityCompare(a, b ir.Identity) int {
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return cmp.Compare(a.Qualifier, b.Qualifier)
}

// newObjects returns the nodes of b whose identity a does not have, in
// node order.
func newObjects(a, b Heap, ida, idb ir.ObjectIdentities) []uint32 {
	if out, ok := newObjectsByID(a, b, ida, idb); ok {
		return out
	}
	return newObjectsSorted(a, b, ida, idb)
}

// newObjectsByID is newObjects for identities that are ids alone (no
// qualifier) in a range not much wider than the heaps, V8's node ids
// among them: a bit per id marks a's, and b's nodes are looked up in node
// order, where sorting both heaps' identities took seconds for ten
// million nodes. ok is false when the identities are not of that kind.
func newObjectsByID(a, b Heap, ida, idb ir.ObjectIdentities) (out []uint32, ok bool) {
	sa, sb := a.Snapshot, b.Snapshot
	limit := 64*uint64(sa.Nodes.Len()+sb.Nodes.Len()) + 1<<20
	synthA := ir.SyntheticNodes(a.File, sa)
	var top uint64
	for i := 0; i < sa.Nodes.Len(); i++ {
		if id, has := ida.Identity(sa, i); has && !synthA[i] {
			if id.Qualifier != 0 || id.ID >= limit {
				return nil, false
			}
			top = max(top, id.ID)
		}
	}
	// A second pass rather than a list of a's ids: the lookups are cheap,
	// and the list would be 8 bytes per node.
	seen := make([]uint64, top/64+1)
	for i := 0; i < sa.Nodes.Len(); i++ {
		if id, has := ida.Identity(sa, i); has && !synthA[i] {
			seen[id.ID/64] |= 1 << (id.ID % 64)
		}
	}
	synthB := ir.SyntheticNodes(b.File, sb)
	for i := 0; i < sb.Nodes.Len(); i++ {
		id, has := idb.Identity(sb, i)
		if !has || synthB[i] {
			continue
		}
		if id.Qualifier != 0 {
			return nil, false
		}
		if id.ID > top || seen[id.ID/64]&(1<<(id.ID%64)) == 0 {
			out = append(out, uint32(i))
		}
	}
	return out, true
}

// newObjectsSorted is newObjects for any identities: both heaps' sorted
// and merged.
func newObjectsSorted(a, b Heap, ida, idb ir.ObjectIdentities) []uint32 {
	var old []identified
	done := make(chan struct{})
	go func() {
		old = identities(a, ida)
		close(done)
	}()
	cur := identities(b, idb)
	<-done
	var out []uint32
	j := 0
	for _, x := range cur {
		for j < len(old) && identityCompare(old[j].id, x.id) < 0 {
			j++
		}
		if j < len(old) && old[j].id == x.id {
			continue
		}
		out = append(out, x.node)
	}
	slices.Sort(out)
	return out
}

// stillAlive returns, for the nodes of b listed, the nodes of c with the
// same identity, in node order of c.
func stillAlive(b, c Heap, nodes []uint32, idb, idc ir.ObjectIdentities) []uint32 {
	want := make([]ir.Identity, 0, len(nodes))
	for _, i := range nodes {
		id, _ := idb.Identity(b.Snapshot, int(i))
		want = append(want, id)
	}
	slices.SortFunc(want, identityCompare)
	// Plain ids in a range near the heap's size are looked up with a bit
	// per id; others by binary search. Either way c's nodes are visited in
	// order, not sorted by identity.
	var bits []uint64
	if len(want) > 0 && want[len(want)-1].ID < 64*uint64(c.Snapshot.Nodes.Len())+1<<20 &&
		!slices.ContainsFunc(want, func(id ir.Identity) bool { return id.Qualifier != 0 }) {
		bits = make([]uint64, want[len(want)-1].ID/64+1)
		for _, id := range want {
			bits[id.ID/64] |= 1 << (id.ID % 64)
		}
	}
	s := c.Snapshot
	synthetic := ir.SyntheticNodes(c.File, s)
	var out []uint32
	for i := 0; i < s.Nodes.Len(); i++ {
		id, has := idc.Identity(s, i)
		if !has || synthetic[i] {
			continue
		}
		var alive bool
		if bits != nil {
			alive = id.Qualifier == 0 && id.ID/64 < uint64(len(bits)) && bits[id.ID/64]&(1<<(id.ID%64)) != 0
		} else {
			_, alive = slices.BinarySearchFunc(want, id, identityCompare)
		}
		if alive {
			out = append(out, uint32(i))
		}
	}
	return out
}

// counted keeps the nodes the class table counts (for V8, those DevTools
// shows a size for: an array one object owns is that object's).
func counted(nodes []uint32, table *classTable) []uint32 {
	return slices.DeleteFunc(nodes, func(i uint32) bool { return !table.counted(int(i)) })
}

// groupByClass groups nodes of h by their class in its class table, most
// objects first.
func groupByClass(h Heap, nodes []uint32, table *classTable, examples int) []ObjectGroup {
	byClass := map[int32]*ObjectGroup{}
	var order []int32
	s := h.Snapshot
	for _, i := range nodes {
		c := table.of[i]
		g := byClass[c]
		if g == nil {
			g = &ObjectGroup{Class: table.rows[c].Label()}
			byClass[c] = g
			order = append(order, c)
		}
		g.add(s, int(i), table.sizes.At(int(i)), examples)
	}
	out := make([]ObjectGroup, 0, len(order))
	for _, c := range order {
		out = append(out, *byClass[c])
	}
	sortGroups(out)
	return out
}

func (g *ObjectGroup) add(s *ir.Snapshot, i int, size uint64, examples int) {
	g.Count++
	g.SelfSize = ir.SatAdd(g.SelfSize, size)
	if len(g.IDs) < examples {
		g.IDs = append(g.IDs, s.Nodes.ID.At(i))
	}
}

func sortGroups(gs []ObjectGroup) {
	slices.SortStableFunc(gs, func(a, b ObjectGroup) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		if a.SelfSize != b.SelfSize {
			return cmp.Compare(b.SelfSize, a.SelfSize)
		}
		return strings.Compare(a.Class, b.Class)
	})
}

// pathGroupDepth is how many holders, nearest first, tell leaked objects'
// groups apart: objects held the same way up to there are one group (a
// linked list's nodes are one group, however long the list).
const pathGroupDepth = 8

// groupByPath groups nodes of nv's heap by class and by the last
// pathGroupDepth steps of their shortest retainer path (indices of indexed
// edges, such as array elements, left out), most objects first. A group's
// Path is the whole path of its first object.
func groupByPath(nv *Navigator, nodes []uint32, sizes *ir.Uints, examples int) []ObjectGroup {
	groups := map[string]*ObjectGroup{}
	var order []string
	s := nv.heap.Snapshot
	var b strings.Builder
	for _, i := range nodes {
		b.Reset()
		b.WriteString(nv.label(int(i)))
		cur := int(i)
		for k := 0; k < pathGroupDepth; k++ {
			next := nv.nextHolder(cur)
			if next < 0 {
				break
			}
			ref := nv.reference(int(nv.retEdge[nv.firstRetainer(cur)]), next)
			b.WriteString("\x00" + nv.Class(next) + "\x01" + ref.Kind + "\x01")
			if !ref.Indexed {
				b.WriteString(ref.Name)
			}
			cur = next
		}
		k := b.String()
		g := groups[k]
		if g == nil {
			g = &ObjectGroup{Class: nv.label(int(i)), Path: nv.ShortestPath(int(i))}
			groups[k] = g
			order = append(order, k)
		}
		g.add(s, int(i), sizes.At(int(i)), examples)
	}
	out := make([]ObjectGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	sortGroups(out)
	return out
}
