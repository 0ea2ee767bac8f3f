package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
)

// Heap is one snapshot of a file: the unit that retainer paths and
// comparisons work on.
type Heap struct {
	File     *ir.File
	Snapshot *ir.Snapshot
}

// Navigator answers the questions one asks of an object of a heap: what
// holds it (its retainers), how far it is from the GC roots, the shortest
// path from them, its dominators and what it keeps alive. It computes the
// distances, the retainer lists and the dominator tree once, so that many
// questions cost little; it does not change the heap, and is safe for
// concurrent use once made.
//
// A V8 heap is navigated as Chrome DevTools navigates it: distances from
// the user roots (the JavaScript globals) first and from the root for the
// rest, over the edges DevTools follows; retainers ordered as its Retainers
// view orders them; retained sizes as its Summary view shows them. Other
// formats' heaps are navigated from their root (a virtual one above their
// GC roots, when the snapshot lists roots without a root node) over every
// edge that is not weak.
type Navigator struct {
	heap  Heap
	g     *ir.Snapshot // the heap, or the heap with a virtual root
	n     int          // the heap's nodes (g may have one more)
	sizes *ir.Uints    // each node's own size as the views show it
	tree  *DominatorTree
	// dist is each node's distance from the roots, -1 when unreachable.
	dist []int32
	// retainers of node t are the edges retEdge[retFirst[t]:retFirst[t+1]]
	// (their sources in retSrc), in DevTools' order (buildRetainers).
	retFirst []uint32
	retEdge  []uint32
	retSrc   []uint32
	// classOf is each node's class, an index into classes and labels
	// (-1: none); labels name the classes with their locations.
	classOf []int32
	classes []string
	labels  []string
	// devtools is true when DevTools' rules apply (a V8 heap).
	devtools bool
	// weak marks the weak edge kinds (by kind index of g).
	weak []bool
	// table is the heap's class table, with retained sizes.
	table *classTable
	// first remembers each node's first retainer (firstRetainer): -2
	// when not looked up yet.
	firstOnce sync.Once
	firstMu   sync.Mutex
	first     []int64
	// shared are the ids more than one node has, sorted (sharedIDs).
	sharedOnce sync.Once
	shared     []uint64
	// domIv numbers the dominator tree for subtree tests (intervals).
	intervalsOnce sync.Once
	domIv         *domIntervals
}

// NoDistance is the distance of a node that no path from the roots reaches.
const NoDistance = -1

// SystemDistance is added to the distance of a V8 heap's objects that only
// V8's own roots reach, as DevTools adds it: they sort after every object
// a JavaScript global reaches.
const SystemDistance = 100_000_000

// NewNavigator computes what a Navigator needs of h: distances, retainers,
// classes and the dominator tree (which makes its time that of `heapconv
// info --by retained`).
func NewNavigator(h Heap) (*Navigator, error) {
	table, err := newClassTable(h.File, h.Snapshot, false)
	if err != nil {
		return nil, err
	}
	return navigatorOf(h, table)
}

// NewNavigatorStaged is NewNavigator for a caller that can answer some
// questions before others: it returns as soon as the heap's classes and
// dominator tree are made (all that Classes, ClassStats, ClassIndex,
// Counted, Class, SelfSize, Retained, Dominator and Tree need, which is
// what `heapconv info --by retained` computes), and makes the retainer
// lists and distances on goroutines of their own. Until done is closed,
// only those methods may be called.
func NewNavigatorStaged(h Heap) (nv *Navigator, done <-chan struct{}, err error) {
	table, err := newClassTable(h.File, h.Snapshot, false)
	if err != nil {
		return nil, nil, err
	}
	nv, err = navigatorBase(h, table)
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan struct{})
	go func() {
		nv.paths()
		close(ch)
	}()
	return nv, ch, nil
}

// navigatorOf makes the navigator of h from its class table, whose
// dominator tree it computes if the table has none yet.
func navigatorOf(h Heap, table *classTable) (*Navigator, error) {
	nv, err := navigatorBase(h, table)
	if err != nil {
		return nil, err
	}
	nv.paths()
	return nv, nil
}

// navigatorBase makes what a navigator has before its retainer lists and
// distances: the graph, the classes and the dominator tree.
func navigatorBase(h Heap, table *classTable) (*Navigator, error) {
	s := h.Snapshot
	nv := &Navigator{heap: h, n: s.Nodes.Len(), devtools: table.devtools, table: table}
	nv.g, nv.sizes = table.graph, table.graphSizes
	nv.weak = make([]bool, len(nv.g.EdgeKinds))
	for k, ek := range nv.g.EdgeKinds {
		nv.weak[k] = ek.Name == ir.EdgeWeak
	}
	tree, err := table.dominators(h.File)
	if err != nil {
		return nil, err
	}
	nv.tree = tree
	nv.classOf = table.of
	nv.classes = make([]string, len(table.rows))
	nv.labels = make([]string, len(table.rows))
	for i, r := range table.rows {
		nv.classes[i], nv.labels[i] = r.Name, r.Label()
	}
	return nv, nil
}

// paths makes the retainer lists and the distances: independent passes
// over memory, so both at once use both cores.
func (nv *Navigator) paths() {
	done := make(chan struct{})
	go func() {
		nv.buildRetainers()
		close(done)
	}()
	nv.distances()
	<-done
}

// ClassStats returns the heap's classes with their counts, self and
// retained sizes (SummarizeBy's, in no particular order), from the class
// table and dominator tree the navigator computed on its way. It is not
// safe to call concurrently with itself.
func (nv *Navigator) ClassStats() ([]ClassStat, error) {
	if err := nv.table.addRetained(nv.heap.File, nv.heap.Snapshot); err != nil {
		return nil, err
	}
	return nv.table.stats(), nil
}

// Classes returns every class of the heap's class table with its count,
// self and retained sizes, indexed as ClassIndex numbers them (a class
// whose nodes DevTools shows no size for has Count 0). It is not safe to
// call concurrently with itself or ClassStats.
func (nv *Navigator) Classes() ([]ClassStat, error) {
	if err := nv.table.addRetained(nv.heap.File, nv.heap.Snapshot); err != nil {
		return nil, err
	}
	return slices.Clone(nv.table.rows), nil
}

// ClassIndex returns the index in Classes of node i's class, or -1.
func (nv *Navigator) ClassIndex(i int) int { return int(nv.classOf[i]) }

// Counted reports whether node i counts in its class: always, but in a V8
// heap, whose Summary leaves out the nodes DevTools shows no size for.
func (nv *Navigator) Counted(i int) bool { return nv.table.counted(i) }

// WeakRetainers returns what holds node i by weak edges only, in the
// snapshot's order: the holders Retainers leaves out, which do not keep i
// alive.
func (nv *Navigator) WeakRetainers(i int) []Reference {
	var out []Reference
	for r := nv.retFirst[i]; r < nv.retFirst[i+1]; r++ {
		src := nv.retSrc[r]
		if int(src) < nv.n && nv.weak[nv.g.Edges.Kind[nv.retEdge[r]]] {
			out = append(out, nv.reference(int(nv.retEdge[r]), int(src)))
		}
	}
	return out
}

// buildRetainers inverts the graph's edges: each node's incoming edges in
// the order DevTools lists a node's retainers before sorting them, which
// is the reverse of the sources' order and of their edges' (it fills each
// node's list from the end).
func (nv *Navigator) buildRetainers() {
	g := nv.g
	n, m := g.Nodes.Len(), g.Edges.Len()
	first := make([]uint32, n+1)
	for _, t := range g.Edges.Target {
		first[t+1]++
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	next := slices.Clone(first[1:])
	edge := make([]uint32, m)
	src := make([]uint32, m)
	for v := 0; v < n; v++ {
		lo, hi := g.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			t := g.Edges.Target[e]
			next[t]--
			edge[next[t]] = uint32(e)
			src[next[t]] = uint32(v)
		}
	}
	nv.retFirst, nv.retEdge, nv.retSrc = first, edge, src
}

// distances computes each node's distance from the roots by breadth-first
// search over edges that are not weak. For a V8 heap it follows DevTools:
// the user roots (the root's children that are not synthetic, and the
// "(Document DOM trees)" root) are at distance 1 and searched first; the
// root then starts at SystemDistance for what they do not reach; and the
// search skips the edges DevTools skips (see devtoolsFollows).
func (nv *Navigator) distances() {
	g := nv.g
	n := g.Nodes.Len()
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = NoDistance
	}
	nv.dist = dist
	if g.Root == ir.NoNode {
		return
	}
	weak := nv.weak
	var follows func(v, e int) bool
	if nv.devtools {
		follows = nv.devtoolsFollows()
	}
	queue := make([]uint32, 0, n)
	bfs := func() {
		for head := 0; head < len(queue); head++ {
			v := queue[head]
			d := dist[v] + 1
			lo, hi := g.Nodes.EdgeRange(int(v))
			for e := lo; e < hi; e++ {
				t := g.Edges.Target[e]
				if weak[g.Edges.Kind[e]] || dist[t] != NoDistance {
					continue
				}
				if follows != nil && !follows(int(v), e) {
					continue
				}
				dist[t] = d
				queue = append(queue, t)
			}
		}
	}
	root := g.Root
	if nv.devtools {
		lo, hi := g.Nodes.EdgeRange(int(root))
		for e := lo; e < hi; e++ {
			t := g.Edges.Target[e]
			if nv.userRoot(int(t)) && dist[t] == NoDistance {
				dist[t] = 1
				queue = append(queue, t)
			}
		}
		bfs()
	}
	dist[root] = 0
	if len(queue) > 0 {
		dist[root] = SystemDistance
	}
	queue = append(queue[:0], root)
	bfs()
}

// userRoot reports whether DevTools starts its distances at node i when
// the root holds it: a node that is not synthetic (a JavaScript global),
// or the root of the page's DOM trees.
func (nv *Navigator) userRoot(i int) bool {
	if nv.g.NodeKindName(i) != ir.KindSynthetic {
		return true
	}
	return nv.heap.File.String(nv.g.Nodes.Name[i]) == "(Document DOM trees)"
}

// devtoolsFollows returns the test by which DevTools' distance search
// skips edges of a V8 heap: a native context's sloppy_function_map; the
// links of a descriptor array that maps may share (every third entry from
// the fourth); and the first of the two internal edges that reach a
// WeakMap's value (from the table and from the key), so that the value's
// distance is the later of the two.
func (nv *Navigator) devtoolsFollows() func(v, e int) bool {
	f, g := nv.heap.File, nv.g
	hidden, array := kindIndex(g.NodeKinds, ir.KindHidden), kindIndex(g.NodeKinds, "array")
	internal := edgeKindIndex(g, "internal")
	pending := map[string]bool{} // WeakMap pairs whose first edge was seen
	return func(v, e int) bool {
		kind := int(g.Nodes.Kind[v])
		switch {
		case kind == hidden && hidden >= 0:
			if nv.edgeName(e) == "sloppy_function_map" && f.String(g.Nodes.Name[v]) == "system / NativeContext" {
				return false
			}
		case kind == array && array >= 0 && f.String(g.Nodes.Name[v]) == "(map descriptors)":
			if i, ok := leadingInt(nv.edgeName(e)); ok {
				return i < 2 || i%3 != 1
			}
			return true
		}
		if int(g.Edges.Kind[e]) == internal && internal >= 0 && !g.EdgeKinds[internal].Indexed {
			name := f.String(g.Edges.Name[e])
			if weakMapEdge.MatchString(name) {
				pair := strings.TrimLeft(name, "0123456789")
				if !pending[pair] {
					pending[pair] = true
					return false
				}
				delete(pending, pair)
			}
		}
		return true
	}
}

// leadingInt parses the decimal digits a string starts with, as
// JavaScript's parseInt does (a sign and leading white space allowed).
func leadingInt(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	end := 0
	for end < len(s) && end < 18 && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0, false
	}
	v, _ := strconv.ParseInt(s[:end], 10, 64)
	if neg {
		v = -v
	}
	return v, true
}

// edgeName returns edge e's name as DevTools shows it: its name, or the
// index of an element (or other indexed) edge in decimal.
func (nv *Navigator) edgeName(e int) string {
	g := nv.g
	if ek := g.EdgeKindOf(e); ek.Indexed {
		return strconv.FormatUint(uint64(g.Edges.Name[e]), 10)
	}
	return nv.heap.File.String(g.Edges.Name[e])
}

// Tree returns the dominator tree the navigator's retained sizes come
// from (indexed by node; with one more node, a virtual root, when the
// snapshot lists GC roots without a root node), or nil for a heap without
// a root. It is shared: do not change it.
func (nv *Navigator) Tree() *DominatorTree { return nv.tree }

// Heap returns the heap the navigator answers for.
func (nv *Navigator) Heap() Heap { return nv.heap }

// Nodes returns the number of nodes of the heap.
func (nv *Navigator) Nodes() int { return nv.n }

// Distance returns node i's distance from the roots (see Navigator), or
// NoDistance when nothing reachable holds it.
func (nv *Navigator) Distance(i int) int { return int(nv.dist[i]) }

// Retained returns the memory node i keeps alive: its retained size in
// the dominator tree, 0 in a heap without a root.
func (nv *Navigator) Retained(i int) uint64 {
	if nv.tree == nil {
		return 0
	}
	return nv.tree.Retained[i]
}

// SelfSize returns node i's own size as the summary shows it (for a V8
// heap, with the sizes of the arrays and hidden nodes it alone owns, as
// DevTools shows it).
func (nv *Navigator) SelfSize(i int) uint64 { return nv.sizes.At(i) }

// label returns node i's class as ClassStat.Label names it.
func (nv *Navigator) label(i int) string {
	if c := nv.classOf[i]; c >= 0 {
		return nv.labels[c]
	}
	return ""
}

// Class returns the class node i is counted under in ClassStats.
func (nv *Navigator) Class(i int) string {
	if c := nv.classOf[i]; c >= 0 {
		return nv.classes[c]
	}
	return ""
}

// Dominator returns node i's immediate dominator, or -1 for the root and
// in a heap without a root. A node nothing reachable holds hangs from the
// root, as DevTools hangs it (DominatorChain).
func (nv *Navigator) Dominator(i int) int {
	if nv.tree == nil || !nv.tree.Reachable(i) {
		return -1
	}
	d := int(nv.tree.IDom[i])
	if d == i || d >= nv.n {
		return -1 // the root, or the virtual root above the GC roots
	}
	return d
}

// Dominated returns the nodes node i immediately dominates, largest
// retained size first. It scans the heap: call it for a few nodes.
func (nv *Navigator) Dominated(i int) []int {
	var out []int
	if nv.tree == nil {
		return nil
	}
	for v := 0; v < nv.n; v++ {
		if v != i && nv.tree.Reachable(v) && int(nv.tree.IDom[v]) == i {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		ra, rb := nv.tree.Retained[a], nv.tree.Retained[b]
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return a - b
	})
	return out
}

// Reference is an edge of the heap seen from one of its ends.
type Reference struct {
	// Edge is the edge's index in the snapshot.
	Edge int `json:"edge"`
	// From holds To by the edge (node indices).
	From int `json:"from"`
	To   int `json:"to"`
	// Kind is the edge kind's name.
	Kind string `json:"kind"`
	// Name is the edge's name, or its index in decimal for an edge named
	// by one (an array element).
	Name string `json:"name"`
	// Indexed is true when Name is an index.
	Indexed bool `json:"indexed"`
}

// Reference describes edge e as held by node from (e's source).
func (nv *Navigator) Reference(e, from int) Reference { return nv.reference(e, from) }

func (nv *Navigator) reference(e, from int) Reference {
	return Reference{Edge: e, From: from, To: int(nv.g.Edges.Target[e]), Kind: nv.g.EdgeKindOf(e).Name, Name: nv.edgeName(e), Indexed: nv.g.EdgeKindOf(e).Indexed}
}

// Edges returns what node i holds, in the snapshot's order.
func (nv *Navigator) Edges(i int) []Reference {
	lo, hi := nv.g.Nodes.EdgeRange(i)
	out := make([]Reference, 0, hi-lo)
	for e := lo; e < hi; e++ {
		if int(nv.g.Edges.Target[e]) < nv.n {
			out = append(out, nv.reference(e, i))
		}
	}
	return out
}

// EdgesPage is Edges a page at a time, for nodes that hold millions (a
// large array): the references node i holds from the offset-th on, at
// most limit of them, and how many it holds.
func (nv *Navigator) EdgesPage(i, offset, limit int) ([]Reference, int) {
	lo, hi := nv.g.Nodes.EdgeRange(i)
	total := hi - lo
	from := lo + min(max(offset, 0), total)
	to := from + min(max(limit, 0), hi-from)
	out := make([]Reference, 0, to-from)
	for e := from; e < to; e++ {
		out = append(out, nv.reference(e, i))
	}
	return out, total
}

// RetainerCounts returns how many references hold node i: those
// Retainers lists and those WeakRetainers does.
func (nv *Navigator) RetainerCounts(i int) (strong, weak int) {
	for r := nv.retFirst[i]; r < nv.retFirst[i+1]; r++ {
		switch src := nv.retSrc[r]; {
		case nv.isRetainer(r):
			strong++
		case int(src) < nv.n && nv.weak[nv.g.Edges.Kind[nv.retEdge[r]]]:
			weak++
		}
	}
	return strong, weak
}

// Retainers returns what holds node i, in the order of DevTools'
// Retainers view: weak edges and the root's own edges left out, the
// nearest holder (smallest distance) first, then by the name DevTools
// shows for the holder, then the later holders and edges of the snapshot
// first, as DevTools lists them. Holders nothing reachable holds come last.
func (nv *Navigator) Retainers(i int) []Reference {
	refs := nv.retainers(i)
	out := make([]Reference, len(refs))
	for k, r := range refs {
		out[k] = nv.reference(int(nv.retEdge[r]), int(nv.retSrc[r]))
	}
	return out
}

// retainers returns the positions in retEdge of node i's retainers, sorted
// as Retainers sorts them.
func (nv *Navigator) retainers(i int) []uint32 {
	var out []uint32
	for r := nv.retFirst[i]; r < nv.retFirst[i+1]; r++ {
		if nv.isRetainer(r) {
			out = append(out, r)
		}
	}
	// Each holder's name once, not once per comparison: a node can have
	// hundreds of thousands of holders, and a name can take work.
	type keyed struct {
		r    uint32
		dist int64
		name string
	}
	ks := make([]keyed, len(out))
	for k, r := range out {
		ks[k] = keyed{r, nv.retainerDistance(r), nv.shownName(int(nv.retSrc[r]))}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if a.dist != b.dist {
			return cmp.Compare(a.dist, b.dist)
		}
		return compareUTF16(a.name, b.name)
	})
	for k := range ks {
		out[k] = ks[k].r
	}
	return out
}

// isRetainer reports whether the edge at position r of the retainer lists
// counts as a retainer: not weak, not the root's own.
func (nv *Navigator) isRetainer(r uint32) bool {
	src := nv.retSrc[r]
	return int(src) < nv.n && src != nv.g.Root && nv.g.EdgeKindOf(int(nv.retEdge[r])).Name != ir.EdgeWeak
}

// retainerDistance is the distance retainers are ordered by: the holder's,
// with holders nothing reachable holds after all others.
func (nv *Navigator) retainerDistance(r uint32) int64 {
	if d := nv.dist[nv.retSrc[r]]; d >= 0 {
		return int64(d)
	}
	return 1 << 40
}

// firstRetainer returns the position in the retainer lists of node i's
// first retainer in Retainers' order, or -1 when it has none. Only the
// nearest holders' names are compared. It is remembered per node, so that
// the paths of many objects through the same holders cost one look each.
func (nv *Navigator) firstRetainer(i int) int64 {
	nv.firstOnce.Do(func() {
		nv.first = make([]int64, nv.n)
		for k := range nv.first {
			nv.first[k] = -2
		}
	})
	nv.firstMu.Lock()
	r := nv.first[i]
	nv.firstMu.Unlock()
	if r != -2 {
		return r
	}
	best, bestDist, bestName := int64(-1), int64(0), ""
	for p := nv.retFirst[i]; p < nv.retFirst[i+1]; p++ {
		if !nv.isRetainer(p) {
			continue
		}
		d := nv.retainerDistance(p)
		if best >= 0 && d > bestDist {
			continue
		}
		name := nv.shownName(int(nv.retSrc[p]))
		if best < 0 || d < bestDist || compareUTF16(name, bestName) < 0 {
			best, bestDist, bestName = int64(p), d, name
		}
	}
	nv.firstMu.Lock()
	nv.first[i] = best
	nv.firstMu.Unlock()
	return best
}

// compareUTF16 orders strings as JavaScript does, by UTF-16 code units:
// a character above U+FFFF (a surrogate pair, 0xD800 and up) sorts before
// U+E000 to U+FFFF, where UTF-8's byte order puts it after.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if c := cmp.Compare(firstUnit(ra), firstUnit(rb)); c != 0 {
				return c
			}
			return cmp.Compare(ra, rb) // a pair's second units, in order
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// firstUnit is a character's first UTF-16 code unit.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// shownName returns the name DevTools shows for node i, by which it orders
// retainers of equal distance: a V8 concatenated string's text (its first
// 1024 units or so), a plain object's properties ("{a, b, …, z}"), else
// the node's name.
func (nv *Navigator) shownName(i int) string {
	f, g := nv.heap.File, nv.g
	name := f.String(g.Nodes.Name[i])
	if !nv.devtools {
		return name
	}
	switch g.NodeKindName(i) {
	case "concatenated string":
		return devtoolsConsString(f, g, i)
	case ir.KindObject:
		if name == "Object" {
			return devtoolsPlainObjectName(f, g, i)
		}
	}
	return name
}

// PathStep is one node of a retainer path or dominator chain.
type PathStep struct {
	// Node is the node's index in the snapshot; ID its id.
	Node int    `json:"node"`
	ID   uint64 `json:"id"`
	// Ref names the node as Navigator.Ref does ("@123", or "#5" for a
	// node whose id others share), for NodesByRef.
	Ref string `json:"ref"`
	// Class is the class ClassStats counts it under; Name its own name
	// in the snapshot.
	Class string `json:"class"`
	Name  string `json:"name"`
	// Shown is the name a person is shown for it (Navigator.Shown): for
	// a V8 heap the text of DevTools' Retainers view (`"some text"`,
	// "onChange()", "{a, b}"), for other formats a string's text, a
	// closure's function name, else its name or class.
	Shown string `json:"shown"`
	// SelfSize and Retained are its own and retained size (as Navigator's
	// SelfSize and Retained).
	SelfSize uint64 `json:"self_size"`
	Retained uint64 `json:"retained_size"`
	// Distance is its distance from the roots.
	Distance int `json:"distance"`
	// Edge is the edge by which it holds the next step's node: its kind
	// and its name (or index, Indexed). The last step, the object the
	// path leads to, and the steps of a dominator chain have none.
	Edge *Reference `json:"edge,omitempty"`
}

// Step describes node i as a step of a path, without an edge.
func (nv *Navigator) Step(i int) PathStep {
	s := nv.heap.Snapshot
	return PathStep{
		Node: i, ID: s.Nodes.ID.At(i), Ref: nv.Ref(i), Class: nv.Class(i), Name: nv.heap.File.String(s.Nodes.Name[i]),
		Shown:    nv.Shown(i),
		SelfSize: nv.SelfSize(i), Retained: nv.Retained(i), Distance: nv.Distance(i),
	}
}

// ShortestPath returns the path by which the roots hold node i, from the
// object nearest the roots down to i: from i, each step goes to its first
// retainer (in Retainers' order, the nearest first: for a V8 heap the one
// DevTools' Retainers view expands first) while that one is nearer the
// roots, so the path ends at an object the root holds. It is nil for a node
// nothing reachable holds.
func (nv *Navigator) ShortestPath(i int) []PathStep {
	if i < 0 || i >= nv.n || nv.dist[i] < 0 {
		return nil
	}
	path := []PathStep{nv.Step(i)}
	for cur := i; ; {
		next := nv.nextHolder(cur)
		if next < 0 {
			break
		}
		st := nv.Step(next)
		ref := nv.reference(int(nv.retEdge[nv.firstRetainer(cur)]), next)
		st.Edge = &ref
		path = append(path, st)
		cur = next
	}
	slices.Reverse(path)
	return path
}

// nextHolder returns the node that holds node i on its shortest path: its
// first retainer, when that is nearer the roots; else -1.
func (nv *Navigator) nextHolder(i int) int {
	r := nv.firstRetainer(i)
	if r < 0 {
		return -1
	}
	src := int(nv.retSrc[r])
	if d := nv.dist[src]; d < 0 || d >= nv.dist[i] {
		return -1
	}
	return src
}

// DominatorChain returns node i's dominators from the root down to i
// itself: the objects whose loss would free i. A node nothing reachable
// holds hangs from the root, as DevTools hangs it for its retained sizes.
// It is nil in a heap without a root.
func (nv *Navigator) DominatorChain(i int) []PathStep {
	if nv.tree == nil || i < 0 || i >= nv.n || !nv.tree.Reachable(i) {
		return nil
	}
	var chain []PathStep
	for cur := i; cur >= 0; cur = nv.Dominator(cur) {
		chain = append(chain, nv.Step(cur))
	}
	slices.Reverse(chain)
	return chain
}

// NodesByID returns the nodes with id, in node order: one in a format
// whose ids are unique (V8, MoarVM), possibly several where they are not
// (Dart identity hash codes, 0 for objects without one).
func (nv *Navigator) NodesByID(id uint64) []int {
	ids := &nv.heap.Snapshot.Nodes.ID
	var out []int
	for i := 0; i < nv.n; i++ {
		if ids.At(i) == id {
			out = append(out, i)
		}
	}
	return out
}

// Ref names node i so that NodesByRef finds it alone: "@" and its id in
// the format's notation ("@123"; a Fuchsia block's address, "@0x2d378d3424"),
// or, when other nodes of the snapshot have the same id (a Dart object
// without an identity hash code, whose id is 0; a Dart hash code two
// objects share; Fuchsia samples of merged blocks), "#" and its index in
// the snapshot ("#1234").
func (nv *Navigator) Ref(i int) string {
	id := nv.heap.Snapshot.Nodes.ID.At(i)
	if _, shared := slices.BinarySearch(nv.sharedIDs(), id); shared {
		return "#" + strconv.Itoa(i)
	}
	return "@" + ir.FormatNodeID(nv.heap.Snapshot, id)
}

// sharedIDs returns the ids more than one node has, sorted: computed once,
// by sorting a copy of the ids.
func (nv *Navigator) sharedIDs() []uint64 {
	nv.sharedOnce.Do(func() {
		if nv.shared = sharedIDsByBits(&nv.heap.Snapshot.Nodes.ID, nv.n); nv.shared != nil {
			return
		}
		ids := make([]uint64, nv.n)
		for i := range ids {
			ids[i] = nv.heap.Snapshot.Nodes.ID.At(i)
		}
		slices.Sort(ids)
		for k := 1; k < len(ids); k++ {
			if ids[k] == ids[k-1] && (len(nv.shared) == 0 || nv.shared[len(nv.shared)-1] != ids[k]) {
				nv.shared = append(nv.shared, ids[k])
			}
		}
	})
	return nv.shared
}

// sharedIDsByBits returns, sorted, the ids that more than one of the
// first n values of ids has, when most of them lie in a range not much
// wider than n (V8's node ids; the few beyond it, such as the ids V8
// derives from small numbers' values, are sorted apart): a bit per id
// marks those seen, another those seen twice, where sorting ten million
// ids took most of a second. It returns nil when the ids are not of that
// kind (and an empty slice when none is shared).
func sharedIDsByBits(ids *ir.Uints, n int) []uint64 {
	limit := 64*uint64(n) + 1<<20
	var top uint64
	var far []uint64
	for i := 0; i < n; i++ {
		id := ids.At(i)
		if id >= limit {
			if far = append(far, id); len(far) > n/8+64 {
				return nil
			}
			continue
		}
		top = max(top, id)
	}
	seen := make([]uint64, top/64+1)
	twice := make([]uint64, top/64+1)
	for i := 0; i < n; i++ {
		id := ids.At(i)
		if id >= limit {
			continue
		}
		w, b := id/64, uint64(1)<<(id%64)
		if seen[w]&b != 0 {
			twice[w] |= b
		}
		seen[w] |= b
	}
	out := []uint64{}
	for w, word := range twice {
		for ; word != 0; word &= word - 1 {
			out = append(out, uint64(w)*64+uint64(bits.TrailingZeros64(word)))
		}
	}
	// Beyond the range: sorted, after every id in it.
	slices.Sort(far)
	for k := 1; k < len(far); k++ {
		if far[k] == far[k-1] && (k == 1 || far[k-1] != far[k-2]) {
			out = append(out, far[k])
		}
	}
	return out
}

// ErrRef is the error of ParseRef and NodesByRef for text that is no
// object reference.
var ErrRef = errors.New(`not an object reference: an id (123457, 0x2d378d3424) or "#" and an index (#1234)`)

// ParseRef reads an object reference as Ref writes it or as a person types
// it: "#" and a node's index in the snapshot (byIndex), or a node id after
// an optional "@", in decimal or in hex after "0x" (as FormatNodeID writes
// a Fuchsia block's address). It returns ErrRef (wrapped) for anything
// else.
func ParseRef(ref string) (v uint64, byIndex bool, err error) {
	text, byIndex := strings.CutPrefix(ref, "#")
	if !byIndex {
		text = strings.TrimPrefix(text, "@")
	}
	base := 10
	if h, ok := strings.CutPrefix(strings.ToLower(text), "0x"); ok && !byIndex {
		text, base = h, 16
	}
	v, err = strconv.ParseUint(text, base, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%q: %w", ref, ErrRef)
	}
	return v, byIndex, nil
}

// NodesByRef returns the nodes ref names (ParseRef): the node of an index
// ("#1234"), none for an index beyond the snapshot's nodes, or the nodes
// with an id (NodesByID).
func (nv *Navigator) NodesByRef(ref string) ([]int, error) {
	v, byIndex, err := ParseRef(ref)
	switch {
	case err != nil:
		return nil, err
	case !byIndex:
		return nv.NodesByID(v), nil
	case v < uint64(nv.n):
		return []int{int(v)}, nil
	}
	return nil, nil
}

// ClassNodes returns the nodes of a class, named as ClassStats names it
// (every location of a V8 class split by allocation location) or as
// heapconv info lists it (ClassStat.Label: one location), largest retained
// size first, at most max of them (all when max < 0).
func (nv *Navigator) ClassNodes(class string, max int) []int {
	if max == 0 {
		return nil
	}
	var want []int32
	for c, name := range nv.classes {
		if name == class || nv.labels[c] == class {
			want = append(want, int32(c))
		}
	}
	var out []int
	for i := 0; i < nv.n && len(want) > 0; i++ {
		if slices.Contains(want, nv.classOf[i]) {
			out = append(out, i)
		}
	}
	// Largest retained size first, then in node order.
	larger := func(a, b int) int {
		if c := cmp.Compare(nv.Retained(b), nv.Retained(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	if max < 0 || max >= len(out)/16 {
		slices.SortFunc(out, larger)
		if max >= 0 && len(out) > max {
			out = out[:max]
		}
		return out
	}
	// A few of many: keep the best max in order as the nodes go by.
	best := make([]int, 0, max+1)
	for _, i := range out {
		if len(best) == max && larger(i, best[max-1]) > 0 {
			continue
		}
		k, _ := slices.BinarySearchFunc(best, i, larger)
		best = slices.Insert(best, k, i)
		if len(best) > max {
			best = best[:max]
		}
	}
	return best
}

// String describes a path step for messages: "Foo @123" (or its Ref).
func (p PathStep) String() string {
	if p.Ref != "" {
		return p.Class + " " + p.Ref
	}
	return fmt.Sprintf("%s @%d", p.Class, p.ID)
}
