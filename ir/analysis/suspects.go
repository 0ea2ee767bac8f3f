package analysis

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Suspect is one leak: leaked objects accumulated under one holder, their
// accumulation point. However many kinds of object a leak is made of (a
// session, its closure, its context, its strings), they hang below the
// same holder (the map the sessions are put in), so one leak is one
// Suspect.
type Suspect struct {
	// Holder is the accumulation point: the nearest object that dominates
	// the leaked objects and is not leaked itself (an array a collection
	// owns counts as the collection, as the class table counts it). Its
	// Node is -1 when nothing below the roots holds them all.
	Holder PathStep `json:"holder"`
	// Holders is, for suspects found by growth (heaps without object
	// identities), how many objects of the last heap are held the way
	// Holder is (the same classes and edge names from the roots), all
	// counted in the suspect's figures; 1 otherwise.
	Holders int `json:"holders"`
	// Count and SelfSize are the leaked objects' number and self sizes (as
	// the class table counts them); for suspects found by growth, their
	// growth from the first heap to the last.
	Count    uint64 `json:"count"`
	SelfSize uint64 `json:"self_size"`
	// Retained is the retained size of the leaked objects as a set: what
	// freeing all of them would free, including what several of them
	// share (more than the sum of each one's retained size); for suspects
	// found by growth, its growth.
	Retained uint64 `json:"retained_size"`
	// Share is Retained's share of all suspects' retained sizes: of the
	// leaked bytes, how much this leak holds (0 to 1).
	Share float64 `json:"share"`
	// Classes are the classes of the leaked objects under the holder, most
	// retained first: count, self size and example ids (for suspects
	// found by growth, the growth of each class's count and size).
	Classes []ObjectGroup `json:"classes"`
	// Path is one retainer path, from the roots through the holder to the
	// leaked object that retains the most; HolderStep is the holder's
	// index in it (-1 when the holder is the roots).
	Path       []PathStep `json:"path"`
	HolderStep int        `json:"holder_step"`
}

// exactSuspects is how many suspects get their set's retained size
// computed exactly (a walk of the holder's dominator subtree each); the
// others keep the sum of their top objects' retained sizes, a lower
// bound.
const exactSuspects = 20

// noiseClasses are the classes of objects a runtime makes for itself as a
// program runs (compiled code, type feedback, specializations): new in
// every snapshot of a program that runs, and never what a program leaks.
var noiseClasses = map[string][]string{
	"v8": {"(compiled code)", "(system)", "(object shape)"},
	"dart": {"Class", "Field", "Script", "Library", "PatchClass", "Namespace", "WeakArray",
		"_Type", "_FunctionType", "_RecordType", "_TypeParameter", "TypeParameters", "TypeArguments",
		"Code", "Instructions", "InstructionsSection", "InstructionsTable", "ObjectPool", "PcDescriptors",
		"CodeSourceMap", "CompressedStackMaps", "ExceptionHandlers", "ICData", "MegamorphicCache", "SubtypeTestCache",
		"LocalVarDescriptors", "ContextScope", "KernelProgramInfo", "WeakSerializationReference", "Bytecode",
		"FfiTrampolineData", "ClosureData", "Function", "MonomorphicSmiableCall", "SingleTargetCache", "UnlinkedCall"},
	"moarvm": {"StaticFrameSpesh", "BOOTStaticFrame", "BOOTCompUnit"},
}

// storageClasses are the classes whose objects are a collection's
// storage (the Dart VM's maps and growable lists keep their entries in a
// _List, their index in a _Uint32List): a holder of them held by nothing
// but its collection is that collection's, as V8's arrays owned by one
// object are (the class table does not count them).
var storageClasses = map[string][]string{
	"dart": {"_List", "_Uint32List"},
}

// noise returns the test by which a heap's object is engine noise: of a
// class in noiseClasses, or, in a V8 heap, reached only from V8's own
// roots (strings the engine interns, its caches). Suspects also counts as
// noise what noise holds and what only the VM's roots hold.
func (nv *Navigator) noise() func(i int) bool {
	format := nv.heap.File.Format
	if nv.devtools {
		format = "v8"
	}
	isNoise := make([]bool, len(nv.classes))
	for c, name := range nv.classes {
		isNoise[c] = NoiseClass(format, name)
	}
	return func(i int) bool {
		if c := nv.classOf[i]; c >= 0 && isNoise[c] {
			return true
		}
		return nv.devtools && nv.dist[i] >= SystemDistance
	}
}

// suspectGroup gathers the leaked objects under one holder.
type suspectGroup struct {
	holder int // -1: the roots
	// dom is the nearest node of the dominator tree that dominates every
	// object of the group (the holder, unless the holder was found among
	// direct retainers), where the set's retained size is computed.
	dom      int
	index    int32
	tops     []uint32
	count    uint64
	self     uint64
	retained uint64
	classes  []leakedClass
}

// leakedClass is the objects of one class under a holder.
type leakedClass struct {
	class    int32
	group    ObjectGroup
	retained uint64            // of its objects that are tops
	names    map[string]uint64 // its closures' names
}

// class returns the group's entry for class c, added if new: a slice
// searched from the end, as groups hold few classes and an object's class
// is often the last one's.
func (g *suspectGroup) class(c int32, label func() string) *leakedClass {
	for k := len(g.classes) - 1; k >= 0; k-- {
		if g.classes[k].class == c {
			return &g.classes[k]
		}
	}
	g.classes = append(g.classes, leakedClass{class: c, group: ObjectGroup{Class: label()}})
	return &g.classes[len(g.classes)-1]
}

// leakHolders finds, for leaked objects of nv's heap, their accumulation
// points (Suspect.Holder).
type leakHolders struct {
	nv    *Navigator
	inSet []bool  // leaked
	top   []int32 // each leaked node's topmost leaked dominator, -1 unknown
	group []int32 // each leaked node's group (groups' order)
	// synthetic marks the snapshot's synthetic nodes (roots, groupings).
	synthetic []bool
	// unknown, when set, reports the objects without an identity, which
	// cannot be told new or old.
	unknown func(i int) bool
}

func newLeakHolders(nv *Navigator, leaked []uint32) *leakHolders {
	h := &leakHolders{nv: nv, inSet: make([]bool, nv.n), top: make([]int32, nv.n), group: make([]int32, nv.n),
		synthetic: ir.SyntheticNodes(nv.heap.File, nv.heap.Snapshot)}
	for _, i := range leaked {
		h.inSet[i] = true
		h.top[i] = -1
	}
	return h
}

// topOf returns the leaked node that dominates leaked node i and is
// dominated by no other leaked node (i itself, often). Chains of leaked
// objects (a linked list's nodes) are walked once.
func (h *leakHolders) topOf(i int) int {
	var chain []int
	cur := i
	t := -1
	for {
		if h.top[cur] >= 0 {
			t = int(h.top[cur])
			break
		}
		chain = append(chain, cur)
		d := h.nv.Dominator(cur)
		// Objects without an identity between leaked ones (a Dart map
		// without an identity hash code in a leaked session) are the
		// leak's too: climb through them to the leaked object above.
		for d >= 0 && !h.inSet[d] && h.unknown != nil && h.unknown(d) {
			d = h.nv.Dominator(d)
		}
		if d < 0 || !h.inSet[d] {
			t = cur
			break
		}
		cur = d
	}
	for _, c := range chain {
		h.top[c] = int32(t)
	}
	return t
}

// holderOf returns the holder of a top leaked node: its dominator, or
// that one's when the class table does not count it (an array a V8
// object owns is that object's); -1 for the roots.
//
// When that is the roots or a grouping of them (a MoarVM snapshot's
// "(intergen roots)", which the GC's remembered set puts above objects a
// collection also holds), the holder is instead the nearest object that
// holds the top object itself and is neither leaked nor synthetic: the
// collection.
func (h *leakHolders) holderOf(top int) int { return h.holderAt(top, 0) }

// holderAt is holderOf, depth leaked holders away from the top asked
// about: a top whose holders are all leaked objects of another top (a
// string held by a hash's entries and by the roots) has that top's holder.
func (h *leakHolders) holderAt(top, depth int) int {
	nv := h.nv
	d := h.lift(nv.Dominator(top))
	if d >= 0 && !h.synthetic[d] {
		return d
	}
	best, bestDist := -1, int32(0)
	leaked, leakedDist := -1, int32(0)
	for r := nv.retFirst[top]; r < nv.retFirst[top+1]; r++ {
		src := int(nv.retSrc[r])
		if !nv.isRetainer(r) || h.synthetic[src] || nv.dist[src] < 0 || src == top {
			continue
		}
		if h.inSet[src] {
			if leaked < 0 || nv.dist[src] < leakedDist {
				leaked, leakedDist = src, nv.dist[src]
			}
			continue
		}
		if best < 0 || nv.dist[src] < bestDist {
			best, bestDist = src, nv.dist[src]
		}
	}
	switch {
	case best >= 0:
		if !nv.table.counted(best) {
			best = h.lift(nv.Dominator(best))
		}
		return best
	case leaked >= 0 && depth < 8:
		if t := h.topOf(leaked); t != top {
			return h.holderAt(t, depth+1)
		}
	}
	return d
}

// lift returns node d, or its nearest dominator the class table counts
// (an array a V8 object owns is that object's) that is not the storage of
// a collection (storage); -1 for the roots.
func (h *leakHolders) lift(d int) int {
	nv := h.nv
	for d >= 0 && (!nv.table.counted(d) || h.storage(d)) {
		up := nv.Dominator(d)
		if up < 0 {
			break
		}
		d = up
	}
	if d >= 0 && d == int(nv.g.Root) {
		return -1
	}
	return d
}

// groups groups leaked nodes by holder, each with its figures and the
// estimate of its set's retained size (the sum of its tops').
func (h *leakHolders) groups(leaked []uint32, examples int) []*suspectGroup {
	nv := h.nv
	byHolder := map[int]*suspectGroup{}
	var order []*suspectGroup
	s := nv.heap.Snapshot
	holders := map[int]int{} // of each top
	for _, x := range leaked {
		t := h.topOf(int(x))
		holder, ok := holders[t]
		if !ok {
			holder = h.holderOf(t)
			holders[t] = holder
		}
		g := byHolder[holder]
		if g == nil {
			g = &suspectGroup{holder: holder, dom: -1, index: int32(len(order))}
			byHolder[holder] = g
			order = append(order, g)
		}
		h.group[x] = g.index
		size := nv.table.sizes.At(int(x))
		g.count++
		g.self = ir.SatAdd(g.self, size)
		lc := g.class(nv.classOf[x], func() string { return nv.label(int(x)) })
		lc.group.add(s, int(x), size, examples)
		if nv.isClosure(int(x)) {
			if lc.names == nil {
				lc.names = map[string]uint64{}
			}
			if len(lc.names) < 64 {
				lc.names[nv.Shown(int(x))]++
			}
		}
		if t == int(x) {
			g.dom = nv.commonDominator(g.dom, int(nv.tree.IDom[x]))
			g.tops = append(g.tops, x)
			r := nv.Retained(int(x))
			g.retained = ir.SatAdd(g.retained, r)
			lc.retained = ir.SatAdd(lc.retained, r)
		}
	}
	return order
}

// domIntervals numbers the dominator tree in preorder: node v's subtree
// is the nodes u with pre[v] <= pre[u] < end[v].
type domIntervals struct {
	pre, end []uint32
}

func (nv *Navigator) intervals() *domIntervals {
	nv.intervalsOnce.Do(func() {
		t := nv.tree
		n := len(t.IDom)
		first := make([]uint32, n+1)
		for v, d := range t.IDom {
			if d != ir.NoNode && int(d) != v {
				first[d+1]++
			}
		}
		for i := 1; i <= n; i++ {
			first[i] += first[i-1]
		}
		next := slices.Clone(first[:n])
		kids := make([]uint32, first[n])
		for v, d := range t.IDom {
			if d != ir.NoNode && int(d) != v {
				kids[next[d]] = uint32(v)
				next[d]++
			}
		}
		iv := &domIntervals{pre: make([]uint32, n), end: make([]uint32, n)}
		num := uint32(0)
		type frame struct{ v, k uint32 }
		stack := []frame{{t.Root, first[t.Root]}}
		iv.pre[t.Root] = num
		num++
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.k < first[f.v+1] {
				c := kids[f.k]
				f.k++
				iv.pre[c] = num
				num++
				stack = append(stack, frame{c, first[c]})
				continue
			}
			iv.end[f.v] = num
			stack = stack[:len(stack)-1]
		}
		nv.domIv = iv
	})
	return nv.domIv
}

// rootSetRetained is setRetained for a set only the root dominates: what
// a search of the whole graph from the root and from the nodes the
// dominator tree adopts (DominatorOptions.Orphans) no longer reaches once
// the set is gone.
func (nv *Navigator) rootSetRetained(member func(i int) bool) uint64 {
	seeds, leaves := nv.adopted()
	reached := nv.reach(seeds, leaves, member)
	var sum uint64
	for v := range reached {
		if !reached[v] && nv.tree.Reachable(v) {
			sum = ir.SatAdd(sum, nv.ownSize(v))
		}
	}
	return sum
}

// retains reports whether edge e retains its target in the dominator
// tree: it is not weak, nor one the tree ignores.
func (nv *Navigator) retains(e int) bool {
	return !nv.weak[nv.g.Edges.Kind[e]] && (nv.table.ignore == nil || !nv.table.ignore(e))
}

// ownSize is node v's own size in the dominator tree's retained sizes:
// its size as the views show it and its external size.
func (nv *Navigator) ownSize(v int) uint64 {
	x := nv.sizes.At(v)
	if ext := &nv.g.Nodes.ExternalSize; v < ext.Len() {
		x = ir.SatAdd(x, ext.At(v))
	}
	return x
}

// reach returns the nodes a search from seeds over retaining edges
// reaches, never entering a node skip names; leaves count as reached, but
// the search does not go on from them.
func (nv *Navigator) reach(seeds, leaves []uint32, skip func(i int) bool) []bool {
	g := nv.g
	// skip is asked of the heap's nodes only: g's virtual root above the
	// GC roots (summaryGraph) is never in a set.
	heapSkip := skip
	skip = func(i int) bool { return i < nv.n && heapSkip(i) }
	seen := make([]bool, g.Nodes.Len())
	for _, v := range leaves {
		seen[v] = true
	}
	var stack []uint32
	for _, v := range seeds {
		if !seen[v] && !skip(int(v)) {
			seen[v] = true
			stack = append(stack, v)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo, hi := g.Nodes.EdgeRange(int(v))
		for e := lo; e < hi; e++ {
			if u := g.Edges.Target[e]; !seen[u] && nv.retains(e) && !skip(int(u)) {
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	return seen
}

// adopted returns the root and the nodes the dominator tree hangs from it
// without a path from it: as seeds, those no other node retains (what
// only they hold hangs below them); as leaves, those a search from the
// seeds does not reach (kept by unreachable cycles), which the tree hangs
// from the root as holding nothing.
func (nv *Navigator) adopted() (seeds, leaves []uint32) {
	g := nv.g
	n := g.Nodes.Len()
	held := make([]bool, n)
	for v := 0; v < n; v++ {
		lo, hi := g.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			if u := g.Edges.Target[e]; int(u) != v && nv.retains(e) {
				held[u] = true
			}
		}
	}
	seeds = []uint32{g.Root}
	for v := 0; v < n; v++ {
		if !held[v] && v != int(g.Root) {
			seeds = append(seeds, uint32(v))
		}
	}
	reached := nv.reach(seeds, nil, func(int) bool { return false })
	for v := 0; v < n; v++ {
		if !reached[v] {
			leaves = append(leaves, uint32(v))
		}
	}
	return seeds, leaves
}

// commonDominator returns the nearest node that dominates both a and b
// (b when a is -1; nodes of the dominator tree, which must be reachable).
func (nv *Navigator) commonDominator(a, b int) int {
	if a < 0 {
		return b
	}
	iv := nv.intervals()
	for {
		if p := iv.pre[b]; iv.pre[a] <= p && p < iv.end[a] {
			return a
		}
		up := int(nv.tree.IDom[a])
		if up == a {
			return a // the root
		}
		a = up
	}
}

// setRetained returns the retained size of a set of leaked objects that
// holder dominates (members lists them, member tells them): the size of
// what holder dominates, but for what holder still reaches without passing
// through the set. That is the members in holder's dominator subtree and
// what they reach there that nothing else holds: the walk starts from the
// members, not from holder, and costs what the set reaches rather than
// what holder dominates (nearly the whole heap when holder is a global).
// When holder is the root, whose subtree also holds what nothing reaches,
// it is rootSetRetained's walk of the whole heap.
//
// It finds, within the subtree, the nodes the members reach without
// passing through holder (the candidates), then drops the candidates that
// a node of the subtree outside the set and the candidates holds (holder
// reaches such a node without passing through the set: every node of the
// subtree the set does not reach is reached from holder by a path inside
// the subtree), and what those reach among the candidates. The candidates
// left are retained by the set alone.
func (nv *Navigator) setRetained(holder int, members []uint32, member func(i int) bool) uint64 {
	if holder == int(nv.tree.Root) {
		return nv.rootSetRetained(member)
	}
	iv := nv.intervals()
	g := nv.g
	lo, hi := iv.pre[holder], iv.end[holder]
	inside := func(t uint32) bool {
		p := iv.pre[t]
		return nv.tree.Reachable(int(t)) && p >= lo && p < hi
	}
	// A bit per node of the subtree, by preorder number: candidates, and
	// of them those dropped.
	words := (hi - lo + 63) / 64
	cand, dropped := make([]uint64, words), make([]uint64, words)
	has := func(bits []uint64, t uint32) bool {
		k := iv.pre[t] - lo
		return bits[k/64]&(1<<(k%64)) != 0
	}
	set := func(bits []uint64, t uint32) {
		k := iv.pre[t] - lo
		bits[k/64] |= 1 << (k % 64)
	}
	var retained uint64
	var stack, found []uint32
	for _, x := range members {
		if int(x) != holder && inside(x) {
			retained = ir.SatAdd(retained, nv.ownSize(int(x)))
			stack = append(stack, x)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		elo, ehi := g.Nodes.EdgeRange(int(v))
		for e := elo; e < ehi; e++ {
			t := g.Edges.Target[e]
			if !nv.retains(e) || int(t) == holder || !inside(t) || member(int(t)) || has(cand, t) {
				continue
			}
			set(cand, t)
			found = append(found, t)
			stack = append(stack, t)
		}
	}
	for _, u := range found {
		for r := nv.retFirst[u]; r < nv.retFirst[u+1]; r++ {
			src := nv.retSrc[r]
			if !nv.retains(int(nv.retEdge[r])) || !inside(src) {
				continue
			}
			if int(src) == holder || (!member(int(src)) && !has(cand, src)) {
				set(dropped, u)
				stack = append(stack, u)
				break
			}
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		elo, ehi := g.Nodes.EdgeRange(int(v))
		for e := elo; e < ehi; e++ {
			t := g.Edges.Target[e]
			if !nv.retains(e) || !inside(t) || !has(cand, t) || has(dropped, t) {
				continue
			}
			set(dropped, t)
			stack = append(stack, t)
		}
	}
	for _, u := range found {
		if !has(dropped, u) {
			retained = ir.SatAdd(retained, nv.ownSize(int(u)))
		}
	}
	return retained
}

// Suspects groups leaked objects of nv's heap (node indices: the objects
// a comparison found new and still alive) by their accumulation point and
// ranks the groups by the retained size of their leaked set, largest
// first, at most max of them. Objects of engine noise (compiled code and
// the like; see CompareOptions.Noise) are left out unless withNoise; noise
// returns how many were.
//
// ids, when not nil, are the heap's identities: objects without one,
// neither new nor old, are the leak's when leaked objects hold them.
func (nv *Navigator) Suspects(leaked []uint32, ids ir.ObjectIdentities, withNoise bool, max, examples int) (suspects []Suspect, noise uint64) {
	var unknown func(i int) bool
	if ids != nil {
		unknown = func(i int) bool {
			_, ok := ids.Identity(nv.heap.Snapshot, i)
			return !ok
		}
	}
	groups, noise := nv.leakGroups(leaked, unknown, withNoise, examples)
	var total uint64
	for _, g := range groups {
		total = ir.SatAdd(total, g.retained)
	}
	for _, g := range groups[:min(len(groups), max)] {
		suspects = append(suspects, nv.suspect(g, total))
	}
	return suspects, noise
}

// leakGroups groups leaked objects by holder, the groups ranked by the
// retained size of their set.
func (nv *Navigator) leakGroups(leaked []uint32, unknown func(i int) bool, withNoise bool, examples int) (groups []*suspectGroup, noise uint64) {
	if nv.tree == nil || len(leaked) == 0 {
		return nil, 0
	}
	var isNoise func(i int) bool
	if !withNoise {
		isNoise = nv.noise()
		kept := make([]uint32, 0, len(leaked))
		for _, x := range leaked {
			if isNoise(int(x)) {
				noise++
			} else {
				kept = append(kept, x)
			}
		}
		leaked = kept
	}
	h := newLeakHolders(nv, leaked)
	h.unknown = unknown
	groups = h.groups(leaked, examples)
	if isNoise != nil {
		// What engine noise holds is the engine's too (the strings of
		// compiled code's constant pools, say), and what only the VM's
		// roots hold, no object of the program, is its bookkeeping (the
		// remembered set of a generational GC, say).
		groups = slices.DeleteFunc(groups, func(g *suspectGroup) bool {
			if g.holder >= 0 && (isNoise(g.holder) || h.synthetic[g.holder]) {
				noise += g.count
				return true
			}
			return false
		})
	}
	byEstimate := func(a, b *suspectGroup) int {
		if a.retained != b.retained {
			return cmp.Compare(b.retained, a.retained)
		}
		return cmp.Compare(b.count, a.count)
	}
	slices.SortStableFunc(groups, byEstimate)
	// The exact retained size of the first groups' sets, each on its own
	// walk (they share nothing but the navigator); a set only the root
	// dominates is a walk of the whole heap, which two sets at most get.
	first := groups[:min(len(groups), exactSuspects)]
	members := make([][]uint32, len(first))
	slot := map[int32]int{}
	for k, g := range first {
		slot[g.index] = k
	}
	for _, x := range leaked {
		if k, ok := slot[h.group[x]]; ok {
			members[k] = append(members[k], x)
		}
	}
	var wg sync.WaitGroup
	wholeHeap := 2
	for k, g := range first {
		if g.dom < 0 {
			continue
		}
		if g.dom == int(nv.tree.Root) {
			if wholeHeap == 0 {
				continue
			}
			wholeHeap--
		}
		wg.Go(func() {
			exact := nv.setRetained(g.dom, members[k], func(i int) bool { return h.inSet[i] && h.group[i] == g.index })
			if exact > g.retained {
				g.retained = exact
			}
		})
	}
	wg.Wait()
	slices.SortStableFunc(groups, byEstimate)
	return groups, noise
}

// suspect describes a group as a Suspect.
func (nv *Navigator) suspect(g *suspectGroup, total uint64) Suspect {
	s := Suspect{Holders: 1, Count: g.count, SelfSize: g.self, Retained: g.retained, HolderStep: -1}
	if total > 0 {
		s.Share = float64(g.retained) / float64(total)
	}
	if g.holder >= 0 {
		s.Holder = nv.Step(g.holder)
	} else {
		s.Holder = PathStep{Node: -1, Class: "(roots)", Name: "(roots)"}
	}
	classes := slices.Clone(g.classes)
	slices.SortFunc(classes, func(a, b leakedClass) int {
		if a.retained != b.retained {
			return cmp.Compare(b.retained, a.retained)
		}
		if a.group.Count != b.group.Count {
			return cmp.Compare(b.group.Count, a.group.Count)
		}
		return strings.Compare(a.group.Class, b.group.Class)
	})
	for _, lc := range classes {
		og := lc.group
		for name, k := range lc.names {
			if 2*k >= og.Count && name != og.Class && (lc.class < 0 || name != nv.classes[lc.class]) && name != "" {
				og.Name = name
			}
		}
		s.Classes = append(s.Classes, og)
	}
	best := -1
	for _, t := range g.tops {
		if best < 0 || nv.Retained(int(t)) > nv.Retained(best) {
			best = int(t)
		}
	}
	if best >= 0 {
		s.Path = nv.ShortestPath(best)
		if g.holder >= 0 && !slices.ContainsFunc(s.Path, func(st PathStep) bool { return st.Node == g.holder }) {
			// The holder holds it directly, but the shortest path goes
			// another way (through the roots' own references): the
			// holder's path and that reference.
			if p := nv.ShortestPath(g.holder); p != nil {
				for _, ref := range nv.Edges(g.holder) {
					if ref.To == best {
						p[len(p)-1].Edge = &ref
						s.Path = append(p, nv.Step(best))
						break
					}
				}
			}
		}
	}
	for k, st := range s.Path {
		if st.Node == g.holder {
			s.HolderStep = k
		}
	}
	return s
}

// growthSuspects finds suspects in heaps whose objects have no identity
// (MoarVM): the candidates in the first and the last heap are the objects
// of the classes grown (by label), grouped by holder in each heap; holders
// are matched between the heaps by their path from the roots (classes and
// edge names, not indices), and a suspect is a path whose objects grew,
// ranked by the growth of their set's retained size.
func growthSuspects(first, last *Navigator, grown map[string]bool, withNoise bool, max, examples int) (suspects []Suspect, noise uint64) {
	type side struct {
		count, self, retained uint64
		classes               map[string]*ObjectGroup
		holders               []*suspectGroup
	}
	gather := func(nv *Navigator) map[string]*side {
		var cands []uint32
		synthetic := ir.SyntheticNodes(nv.heap.File, nv.heap.Snapshot)
		for i := 0; i < nv.n; i++ {
			if !synthetic[i] && nv.table.counted(i) && grown[nv.label(i)] {
				cands = append(cands, uint32(i))
			}
		}
		groups, n := nv.leakGroups(cands, nil, withNoise, examples)
		if nv == last {
			noise = n
		}
		out := map[string]*side{}
		for _, g := range groups {
			key := nv.holderSignature(g.holder)
			sd := out[key]
			if sd == nil {
				sd = &side{classes: map[string]*ObjectGroup{}}
				out[key] = sd
			}
			sd.count += g.count
			sd.self = ir.SatAdd(sd.self, g.self)
			sd.retained = ir.SatAdd(sd.retained, g.retained)
			sd.holders = append(sd.holders, g)
			for _, lc := range g.classes {
				og := lc.group
				c := sd.classes[og.Class]
				if c == nil {
					c = &ObjectGroup{Class: og.Class}
					sd.classes[og.Class] = c
				}
				c.Count += og.Count
				c.SelfSize = ir.SatAdd(c.SelfSize, og.SelfSize)
			}
		}
		return out
	}
	var before, after map[string]*side
	var wg sync.WaitGroup
	wg.Go(func() { before = gather(first) })
	after = gather(last)
	wg.Wait()
	less := func(a, b uint64) uint64 {
		if a > b {
			return a - b
		}
		return 0
	}
	type grownPath struct {
		key string
		s   Suspect
	}
	var found []grownPath
	var total uint64
	for key, a := range after {
		b := before[key]
		if b == nil {
			b = &side{}
		}
		if a.count <= b.count && a.retained <= b.retained {
			continue
		}
		// The holder of the most candidates stands for the path's.
		main := slices.MaxFunc(a.holders, func(x, y *suspectGroup) int { return cmp.Compare(x.retained, y.retained) })
		sus := last.suspect(main, 0)
		sus.Holders = len(a.holders)
		sus.Count, sus.SelfSize, sus.Retained = less(a.count, b.count), less(a.self, b.self), less(a.retained, b.retained)
		sus.Classes = nil
		for name, c := range a.classes {
			var was ObjectGroup
			if bc := b.classes[name]; bc != nil {
				was = *bc
			}
			if c.Count > was.Count {
				sus.Classes = append(sus.Classes, ObjectGroup{Class: name, Count: c.Count - was.Count, SelfSize: less(c.SelfSize, was.SelfSize)})
			}
		}
		slices.SortFunc(sus.Classes, func(x, y ObjectGroup) int {
			if x.SelfSize != y.SelfSize {
				return cmp.Compare(y.SelfSize, x.SelfSize)
			}
			return strings.Compare(x.Class, y.Class)
		})
		total = ir.SatAdd(total, sus.Retained)
		found = append(found, grownPath{key, sus})
	}
	slices.SortFunc(found, func(x, y grownPath) int {
		if x.s.Retained != y.s.Retained {
			return cmp.Compare(y.s.Retained, x.s.Retained)
		}
		if x.s.Count != y.s.Count {
			return cmp.Compare(y.s.Count, x.s.Count)
		}
		return strings.Compare(x.key, y.key)
	})
	for _, f := range found[:min(len(found), max)] {
		if total > 0 {
			f.s.Share = float64(f.s.Retained) / float64(total)
		}
		suspects = append(suspects, f.s)
	}
	return suspects, noise
}

// holderSignature names a holder by its shortest path from the roots: each
// step's class, and the kind and name of the edge to the next (not the
// index of an indexed edge, which changes as collections change), so that
// the holder of one snapshot is found in another.
func (nv *Navigator) holderSignature(holder int) string {
	if holder < 0 {
		return ""
	}
	var b strings.Builder
	for _, st := range nv.ShortestPath(holder) {
		b.WriteString(st.Class)
		if r := st.Edge; r != nil {
			b.WriteString("\x01" + r.Kind + "\x01")
			if !r.Indexed {
				b.WriteString(r.Name)
			}
		}
		b.WriteString("\x00")
	}
	return b.String()
}

// NoiseClass reports whether objects of a class are engine noise in heaps
// of a format (ir.File.Format; "v8" for a V8 heap as DevTools names its
// classes): what the runtime allocates for itself as a program runs, left
// out of leak suspects unless CompareOptions.Noise, and not a class a
// leak test should fail on.
func NoiseClass(format, class string) bool {
	return slices.Contains(noiseClasses[format], class)
}

// storage reports whether node i is a collection's storage: of a class of
// storageClasses, held by its dominator alone, which is no root.
func (h *leakHolders) storage(i int) bool {
	nv := h.nv
	if c := nv.classOf[i]; c < 0 || !slices.Contains(storageClasses[nv.heap.File.Format], nv.classes[c]) {
		return false
	}
	d := nv.Dominator(i)
	if d < 0 || h.synthetic[d] {
		return false
	}
	for r := nv.retFirst[i]; r < nv.retFirst[i+1]; r++ {
		if nv.isRetainer(r) && int(nv.retSrc[r]) != d {
			return false
		}
	}
	return true
}

// isClosure reports whether node i is a closure, which ObjectGroup.Name
// names by its function: a V8 closure, a Dart _Closure.
func (nv *Navigator) isClosure(i int) bool {
	if nv.devtools {
		return nv.heap.Snapshot.NodeKindName(i) == ir.KindClosure
	}
	return dartir.Of(nv.heap.Snapshot) != nil && nv.Class(i) == "_Closure"
}

// HeapSuspects returns the suspects of a single heap, as Eclipse MAT finds
// them: the objects that alone keep at least share (0.1 by default when
// share ≤ 0) of the heap alive, the most specific first — an object whose
// dominated objects include such an object stands aside for it — each
// with the classes of what it keeps alive and its path from the roots.
// Synthetic nodes (roots and their groupings) and engine noise are never
// suspects. Retained is the object's retained size, Share its share of the
// heap's; Count the objects it dominates.
func (nv *Navigator) HeapSuspects(share float64, max, examples int) []Suspect {
	if nv.tree == nil || max <= 0 {
		return nil
	}
	if share <= 0 {
		share = 0.1
	}
	root := nv.tree.Root
	total := nv.tree.Retained[root]
	if total == 0 {
		return nil
	}
	limit := uint64(share * float64(total))
	synthetic := ir.SyntheticNodes(nv.heap.File, nv.heap.Snapshot)
	isNoise := nv.noise()
	big := func(i int) bool {
		return i < nv.n && !synthetic[i] && !isNoise(i) && nv.tree.Retained[i] >= limit && nv.table.counted(i)
	}
	// A candidate with a candidate below it stands aside: mark, bottom up,
	// the nodes with a candidate strictly below them.
	below := make([]bool, len(nv.tree.IDom))
	var cands []int
	for k := len(nv.tree.Order) - 1; k >= 0; k-- {
		v := int(nv.tree.Order[k])
		if big(v) && !below[v] {
			cands = append(cands, v)
		}
		if d := nv.tree.IDom[v]; (big(v) || below[v]) && int(d) != v && d != ir.NoNode {
			below[d] = true
		}
	}
	slices.SortFunc(cands, func(a, b int) int {
		if ra, rb := nv.tree.Retained[a], nv.tree.Retained[b]; ra != rb {
			return cmp.Compare(rb, ra)
		}
		return cmp.Compare(a, b)
	})
	var out []Suspect
	for _, v := range cands[:min(len(cands), max)] {
		out = append(out, nv.heapSuspect(v, total, examples))
	}
	return out
}

// heapSuspect describes object v of a heap as a suspect: what it
// dominates, by class.
func (nv *Navigator) heapSuspect(v int, total uint64, examples int) Suspect {
	iv := nv.intervals()
	s := Suspect{Holder: nv.Step(v), Holders: 1, Retained: nv.tree.Retained[v], HolderStep: -1}
	s.Share = float64(s.Retained) / float64(total)
	lo, hi := iv.pre[v], iv.end[v]
	byClass := map[int32]*ObjectGroup{}
	snap := nv.heap.Snapshot
	for u := 0; u < nv.n; u++ {
		if p := iv.pre[u]; u == v || p <= lo || p >= hi || !nv.tree.Reachable(u) || !nv.table.counted(u) {
			continue
		}
		c := nv.classOf[u]
		g := byClass[c]
		if g == nil {
			g = &ObjectGroup{Class: nv.label(u)}
			byClass[c] = g
		}
		size := nv.table.sizes.At(u)
		g.add(snap, u, size, examples)
		s.Count++
		s.SelfSize = ir.SatAdd(s.SelfSize, size)
	}
	for _, g := range byClass {
		s.Classes = append(s.Classes, *g)
	}
	slices.SortFunc(s.Classes, func(a, b ObjectGroup) int {
		if a.SelfSize != b.SelfSize {
			return cmp.Compare(b.SelfSize, a.SelfSize)
		}
		return strings.Compare(a.Class, b.Class)
	})
	s.Path = nv.ShortestPath(v)
	if len(s.Path) > 0 {
		s.HolderStep = len(s.Path) - 1
	}
	return s
}
