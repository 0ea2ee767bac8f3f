package analysis

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heapconv/heapconv/ir"
)

// ErrNoRoot is returned by Dominators for a snapshot without a root node:
// dominance is only defined relative to a root.
var ErrNoRoot = errors.New("the snapshot has no root node")

// DominatorOptions choose which edges retain their target and what a node's
// own size is.
type DominatorOptions struct {
	// Ignore, when non-nil, reports further edges (by edge index) that do not
	// retain their target. Weak edges (kind name "weak") never retain, so
	// Ignore is only asked about the others, once each, before the work
	// starts. Formats disagree on which other edges to skip (DevTools, for
	// example, drops some shortcut edges), so that choice is the caller's.
	Ignore func(edge int) bool
	// IncludeExternal counts Nodes.ExternalSize in a node's own size, for
	// views that attribute memory outside the managed heap to its owner.
	IncludeExternal bool
	// SelfSizes, when set, replaces Nodes.SelfSize as each node's own size
	// (DevTools, for one, moves the sizes of owned arrays to their owners:
	// DevToolsSelfSizes).
	SelfSizes *ir.Uints
	// Orphans makes the root hold what it cannot reach, as Chrome DevTools
	// does, so that every node counts: each node other than the root that
	// no other node retains (it has no edges in, or only weak, ignored or
	// self edges) becomes a child of the root, with what only it keeps
	// alive below it; nodes still unreached then (those kept only by
	// unreachable cycles) become children of the root that retain only
	// their self size (with IncludeExternal their external size counts for
	// the root alone, as DevTools' separate native nodes do). Without
	// Orphans unreachable nodes have no dominator and retain nothing.
	Orphans bool
}

// DominatorTree is the dominator tree of a snapshot's graph from its root
// and the retained size of every node. IDom and Retained are indexed by node.
type DominatorTree struct {
	// Root is the node the tree was computed from.
	Root uint32
	// IDom is each node's immediate dominator: the nearest node that every
	// path from Root to it passes through. The root's is the root itself;
	// nodes not reachable from the root (counting the orphans it adopts with
	// DominatorOptions.Orphans) have NoNode.
	IDom []uint32
	// Retained is each node's retained size: its own size plus the retained
	// sizes of the nodes it immediately dominates, i.e. the memory freed if it
	// were gone. Sums saturate at 2^64-1; unreachable nodes retain 0.
	Retained []uint64
	// Order lists the reachable nodes in depth-first preorder from the root.
	// A node's immediate dominator comes before it, so a forward pass visits
	// the tree top-down and a backward pass bottom-up.
	Order []uint32
}

// Reachable reports whether node i is reachable from the root through
// retaining edges (or adopted by it, with DominatorOptions.Orphans).
func (t *DominatorTree) Reachable(i int) bool {
	return i >= 0 && i < len(t.IDom) && t.IDom[i] != ir.NoNode
}

// Dominators computes the dominator tree of the snapshot's graph from
// s.Root, ignoring weak edges and those opts.Ignore names, and the retained
// size of every node.
//
// The algorithm is semi-NCA: Lengauer and Tarjan's semidominators, with
// their balanced ("sophisticated") link-eval forest, then each immediate
// dominator as a nearest common ancestor. Heap graphs have tens of millions
// of nodes and reference chains millions deep, so every loop is iterative
// and all state lives in flat arrays: about 32 bytes per node and 8 per edge
// at the peak (during the search), of which the result keeps 16 bytes per
// node. Walking a large graph is mostly waiting for memory, so the work is
// arranged around that: the search reads a copy of the graph in which each
// edge leads straight to its target's edge list, the predecessor lists are
// built on a second goroutine during the search and streamed to the
// semidominator loop in the order it reads them, loads that would wait one
// after another are issued together, and the balanced forest keeps the
// paths that eval walks short.
func Dominators(s *ir.Snapshot, opts DominatorOptions) (*DominatorTree, error) {
	if err := checkDominatorInput(s, opts); err != nil {
		return nil, err
	}
	n := uint32(s.Nodes.Len())
	g := &domGraph{n: n, fe: s.Nodes.FirstEdge, tg: s.Edges.Target, kinds: s.Edges.Kind}
	for k, ek := range s.EdgeKinds {
		if k < len(g.weak) && ek.Name == ir.EdgeWeak {
			g.weak[k] = true
		}
	}
	if opts.Ignore != nil {
		g.skip = make([]uint64, (len(g.tg)+63)/64)
		for e, k := range g.kinds {
			if g.weak[k] || opts.Ignore(e) {
				g.skip[e>>6] |= 1 << (e & 63)
			}
		}
	}

	// The predecessor lists do not depend on the search, so they are built
	// on another goroutine meanwhile: both are bound by memory latency, and
	// the search cannot be split.
	var rv domPreds
	var rerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rerr = rv.build(g)
	}()
	d, err := g.search(s.Root)
	wg.Wait()
	if err == nil {
		err = rerr
	}
	if err == nil && opts.Orphans {
		g.adoptOrphans(d, &rv, s.Root)
	}
	g.packed = nil // the search's copy of the graph
	if err != nil {
		return nil, err
	}

	// Predecessors by number rather than node index, on both cores: random
	// lookups that overlap well in a plain loop.
	half := len(rv.src) / 2
	wg.Add(1)
	go func() {
		defer wg.Done()
		numberPreds(rv.src[half:], d.node)
	}()
	numberPreds(rv.src[:half], d.node)
	wg.Wait()
	d.node, d.end = nil, nil // no longer needed

	semi := d.semidominators(&rv)
	rv = domPreds{}  // let the lists go before the result is allocated
	idom := d.parent // becomes the immediate dominators, by number
	for w := uint32(2); w <= d.N; w++ {
		// The nearest common ancestor of w's parent and its semidominator
		// is the first dominator of the parent numbered no higher than the
		// semidominator. Lower numbers are done first, so each idom[x]
		// read here is final.
		sd, x := semi[w], idom[w]
		for x > sd {
			x = idom[x]
		}
		idom[w] = x
	}

	t := &DominatorTree{Root: s.Root, Order: d.vertex[1 : d.N+1 : d.N+1]}
	wg.Add(1)
	go func() {
		defer wg.Done()
		out := d.cursor[:n:n] // the search's cursors are no longer needed
		for i := range out {
			out[i] = ir.NoNode
		}
		out[s.Root] = s.Root
		for w := uint32(2); w <= d.N; w++ {
			out[d.vertex[w]] = d.vertex[idom[w]]
		}
		t.IDom = out
	}()
	ext := opts.IncludeExternal && s.Nodes.ExternalSize.Len() > 0
	self := &s.Nodes.SelfSize
	if opts.SelfSizes != nil {
		self = opts.SelfSizes
	}
	t.Retained = d.retained(n, idom, self, &s.Nodes.ExternalSize, ext)
	wg.Wait()
	if opts.Orphans && d.N < n {
		// DevTools numbers the nodes no search reached under the root, each
		// alone: they retain themselves and count in the root's size.
		r := s.Root
		order := make([]uint32, len(t.Order), n)
		copy(order, t.Order)
		for i := uint32(0); i < n; i++ {
			if t.IDom[i] != ir.NoNode {
				continue
			}
			t.IDom[i] = r
			own := self.At(int(i))
			t.Retained[i] = own
			if ext {
				// DevTools holds external memory in native nodes of its
				// own, which it hangs from the root too.
				own = ir.SatAdd(own, s.Nodes.ExternalSize.At(int(i)))
			}
			t.Retained[r] = ir.SatAdd(t.Retained[r], own)
			order = append(order, i)
		}
		t.Order = order
	}
	return t, nil
}

// checkDominatorInput checks what Dominators relies on, so that a snapshot
// that skipped Validate gives an error rather than a panic. Edge targets are
// checked where they are read.
func checkDominatorInput(s *ir.Snapshot, opts DominatorOptions) error {
	n := s.Nodes.Len()
	if s.Root == ir.NoNode {
		return ErrNoRoot
	}
	if int64(s.Root) >= int64(n) {
		return fmt.Errorf("ir: dominators: root node %d out of range (%d nodes)", s.Root, n)
	}
	// Numbers 1..n must fit in a uint32 with 0 left free as "none".
	if uint64(n) >= uint64(ir.NoNode) {
		return fmt.Errorf("ir: dominators: %d nodes are too many", n)
	}
	m := len(s.Edges.Target)
	if uint64(m) > math.MaxUint32 {
		return fmt.Errorf("ir: dominators: %d edges are too many", m)
	}
	if len(s.Edges.Kind) != m {
		return fmt.Errorf("ir: dominators: %d edge kinds for %d edge targets", len(s.Edges.Kind), m)
	}
	fe := s.Nodes.FirstEdge
	if len(fe) != n+1 || fe[0] != 0 || int(fe[n]) != m {
		return fmt.Errorf("ir: dominators: edge offsets do not cover the %d edges of %d nodes", m, n)
	}
	for i := 0; i < n; i++ {
		if fe[i] > fe[i+1] {
			return fmt.Errorf("ir: dominators: edge offsets decrease at node %d", i+1)
		}
	}
	if s.Nodes.SelfSize.Len() != n {
		return fmt.Errorf("ir: dominators: %d self sizes for %d nodes", s.Nodes.SelfSize.Len(), n)
	}
	if opts.SelfSizes != nil && opts.SelfSizes.Len() != n {
		return fmt.Errorf("ir: dominators: %d self sizes given for %d nodes", opts.SelfSizes.Len(), n)
	}
	if c := s.Nodes.ExternalSize.Len(); opts.IncludeExternal && c != 0 && c != n {
		return fmt.Errorf("ir: dominators: %d external sizes for %d nodes", c, n)
	}
	return nil
}

// domGraph is the snapshot's edge structure and which edges retain.
type domGraph struct {
	n     uint32
	fe    []uint32 // Nodes.FirstEdge
	tg    []uint32 // Edges.Target
	kinds []uint8  // Edges.Kind
	weak  [256]bool
	skip  []uint64 // with an Ignore option: bit e set when edge e does not retain
	// packed is the graph as the search reads it (see pack).
	packed []uint32
}

// packedSkip marks an edge of the packed lists that does not retain.
const packedSkip = ^uint32(0)

// pack lays the retaining edges out for the search: node v's list starts at
// fe[v]+2v with v itself and its edge count, followed by one word per edge
// holding where the target's list starts (packedSkip for edges that do not
// retain). The search thus goes from an edge straight to the target's list,
// one wait for memory per node where going through the node's first-edge
// entry took two, and tells seen targets by their list position alone. It
// is built on two goroutines: every word is a lookup anywhere in fe, and
// independent lookups overlap.
func (g *domGraph) pack() error {
	n, fe, tg := g.n, g.fe, g.tg
	if uint64(2)*uint64(n)+uint64(len(tg)) >= uint64(packedSkip) {
		return fmt.Errorf("ir: dominators: %d nodes and %d edges are too many", n, len(tg))
	}
	g.packed = make([]uint32, 2*uint64(n)+uint64(len(tg)))
	fill := func(lo, hi uint32) error {
		p := g.packed
		for v := lo; v < hi; v++ {
			at := fe[v] + 2*v
			p[at] = v
			p[at+1] = fe[v+1] - fe[v]
			at += 2 - fe[v]
			for e := fe[v]; e < fe[v+1]; e++ {
				t := tg[e]
				switch {
				case t >= n:
					return targetError(e, t, n)
				case g.retains(e):
					p[at+e] = fe[t] + 2*t
				default:
					p[at+e] = packedSkip
				}
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	var err2 error
	// Split where half the edges are, so that both halves take as long.
	mid := uint32(sort.Search(int(n), func(v int) bool { return fe[v] >= fe[n]/2 }))
	wg.Add(1)
	go func() {
		defer wg.Done()
		err2 = fill(mid, n)
	}()
	err := fill(0, mid)
	wg.Wait()
	if err == nil {
		err = err2
	}
	return err
}

// retains reports whether edge e keeps its target alive.
func (g *domGraph) retains(e uint32) bool {
	if g.skip != nil {
		return g.skip[e>>6]&(1<<(e&63)) == 0
	}
	return !g.weak[g.kinds[e]]
}

func targetError(e, t, n uint32) error {
	return fmt.Errorf("ir: dominators: edge %d: target node %d out of range (%d nodes)", e, t, n)
}

// domSearch is the depth-first search's result, indexed by search number
// (1 for the root, 0 for "none") except node and seen.
type domSearch struct {
	N      uint32   // nodes reached
	node   []uint32 // node index -> its number (0 when unreached)
	vertex []uint32 // number -> node
	parent []uint32 // number -> parent's number
	cursor []uint32 // number -> next packed edge to look at; free after the search
	end    []uint32 // number -> end of its packed edges; free after the search
	sink   uint32   // keeps the search's loads ahead from being optimised away
	// seen has a bit per packed word, set at the start of each numbered
	// node's list: the test the search makes for every edge, small enough
	// to stay in cache.
	seen []uint64
}

// search numbers the nodes reachable from root in depth-first preorder.
func (g *domGraph) search(root uint32) (*domSearch, error) {
	if err := g.pack(); err != nil {
		return nil, err
	}
	n := g.n
	d := &domSearch{
		node:   make([]uint32, n+1),
		vertex: make([]uint32, n+1),
		parent: make([]uint32, n+1),
		cursor: make([]uint32, n+1),
		end:    make([]uint32, n+1),
		seen:   make([]uint64, (len(g.packed)+63)/64),
	}
	d.N = 1
	g.enter(d, 1, root, 0)
	g.walk(d, 1)
	return d, nil
}

// enter numbers node v k, as a child of number parent, for the search to
// go on from.
func (g *domGraph) enter(d *domSearch, k, v, parent uint32) {
	at := g.fe[v] + 2*v
	d.seen[at>>6] |= 1 << (at & 63)
	d.node[v] = k
	d.vertex[k] = v
	d.parent[k] = parent
	d.cursor[k] = at + 2
	d.end[k] = at + 2 + g.packed[at+1]
}

// adoptOrphans numbers, as further children of the root, the nodes that
// no edge retains and the nodes only they reach (DominatorOptions.Orphans).
// An orphan has no predecessors, so the root as its search parent is all
// the semidominator loop needs to treat it as the root's child.
func (g *domGraph) adoptOrphans(d *domSearch, rv *domPreds, root uint32) {
	for x := uint32(0); x < g.n; x++ {
		if x == root || d.node[x] != 0 || rv.off[x] != rv.off[x+1] {
			continue
		}
		d.N++
		g.enter(d, d.N, x, 1)
		// Backing up from x reaches the root, whose edges are all visited
		// by now: it scans the rest of them again and stops.
		g.walk(d, d.N)
	}
}

// walk continues the depth-first search from number cur until it backs up
// past the root. The path from the root is the parent chain and each path
// node's position in its packed list is its cursor, so there is no separate
// stack. Targets were checked by pack.
func (g *domGraph) walk(d *domSearch, cur uint32) {
	p := g.packed
	node, vertex, parent, cursor, end, seen := d.node, d.vertex, d.parent, d.cursor, d.end, d.seen
	last := d.N
	var sink uint32
	for cur != 0 {
		e, stop := cursor[cur], end[cur]
		next := parent[cur] // back up, unless a new node turns up
		for ; e < stop; e++ {
			at := p[e]
			if at == packedSkip || seen[at>>6]&(1<<(at&63)) != 0 {
				continue
			}
			// A new node: number it and go down to it.
			seen[at>>6] |= 1 << (at & 63)
			v, count := p[at], p[at+1]
			last++
			node[v] = last
			vertex[last] = v
			parent[last] = cur
			cursor[last] = at + 2
			end[last] = at + 2 + count
			cursor[cur] = e + 1
			next = last
			// Load the lists of its targets not seen yet, together: the
			// loop needs them one after another, each likely a cache miss.
			for _, t := range p[at+2 : at+2+count] {
				if t != packedSkip && seen[t>>6]&(1<<(t&63)) == 0 {
					sink += p[t]
				}
			}
			break
		}
		cur = next
	}
	d.N = last
	d.sink += sink
}

// domPreds holds every node's retaining predecessors, by node index until
// numberPreds rewrites them to search numbers: the predecessors of node v
// are src[off[v]:off[v+1]].
type domPreds struct {
	off []uint32
	src []uint32
}

// build fills the lists with one counting pass and one placing pass.
func (r *domPreds) build(g *domGraph) error {
	n, fe, tg := g.n, g.fe, g.tg
	// Self edges are left out: they never decide a dominator, and a node
	// that only refers to itself is an orphan (DominatorOptions.Orphans).
	off := make([]uint32, n+2)
	for v := uint32(0); v < n; v++ {
		for e := fe[v]; e < fe[v+1]; e++ {
			if t := tg[e]; g.retains(e) && t != v {
				if t >= n {
					return targetError(e, t, n)
				}
				off[t+2]++
			}
		}
	}
	// Prefix sums leave off[t+1] at the start of t's list; placing an entry
	// advances it, so that it ends at the start of t+1's.
	for i := 2; i < len(off); i++ {
		off[i] += off[i-1]
	}
	src := make([]uint32, off[n+1])
	for v := uint32(0); v < n; v++ {
		for e := fe[v]; e < fe[v+1]; e++ {
			if t := tg[e]; g.retains(e) && t != v {
				src[off[t+1]] = v
				off[t+1]++
			}
		}
	}
	r.off, r.src = off, src
	return nil
}

// semidominators returns every reached node's semidominator, by number.
//
// Nodes are processed in decreasing number, each reading its predecessors'
// forest state. The predecessor lists are kept by node index, so in this
// order each one is somewhere else in memory; a second goroutine copies them
// through a small ring in the order of use, so that this loop reads them
// sequentially, and can look ahead in the ring to load the forest state of
// the predecessors coming next.
func (d *domSearch) semidominators(rv *domPreds) []uint32 {
	N, vertex, parent := d.N, d.vertex, d.parent
	ring := newPredRing()
	go ring.produce(d, rv)

	// The link-eval forest (Lengauer and Tarjan's balanced version), one
	// entry per number, its four words side by side: eval and link read
	// them together, so one cache miss brings them all.
	f := make([]forestNode, N+1)
	for i := range f {
		f[i] = forestNode{ls: uint32(i), size: 1}
	}
	f[0].size = 0
	semi := make([]uint32, N+1)

	c := ring.consumer()
	defer c.close() // on a panic too, so that the other goroutine ends
	for w := N; w >= 2; w-- {
		preds := c.next()
		c.lookahead(f)
		if preds == nil { // too long for the ring
			preds = rv.src[rv.off[vertex[w]]:rv.off[vertex[w]+1]]
			for j, v := range preds {
				if v == 0 {
					preds[j] = w // unreached: a self-loop, which changes nothing
				}
			}
		}
		sd := parent[w]
		for _, v := range preds {
			if v <= w {
				// Not yet processed: v itself is the candidate.
				sd = min(sd, v)
				continue
			}
			// eval(v): the least semidominator on v's forest path.
			a := f[v].anc
			if a == 0 {
				sd = min(sd, f[v].ls)
				continue
			}
			if f[a].anc != 0 {
				compress(v, f)
				a = f[v].anc
			}
			sd = min(sd, f[v].ls, f[a].ls)
		}
		semi[w] = sd
		f[w].ls = sd
		link(parent[w], w, f)
	}
	f[0].anc = c.sink // keeps the lookahead loads alive; f[0].anc is not read
	<-ring.done
	return semi
}

// numberPreds rewrites predecessors from node indices to numbers (0 for
// unreached nodes).
func numberPreds(src []uint32, node []uint32) {
	for j, u := range src {
		src[j] = node[u]
	}
}

// predRing carries predecessor lists to the semidominator loop: for each
// number, from N down, its list's length and then its entries. A list too
// long for the ring is sent as ringLong alone and read in place by the loop.
// A list never wraps around the end of the ring (ringWrap skips to the
// start instead), so the loop can use it where it lies. Each side publishes
// its position every ringBatch entries and before it waits, so neither waits
// for the other forever.
type predRing struct {
	buf  []uint32
	w, r atomic.Uint64 // entries written, entries consumed
	stop atomic.Bool   // the consumer has stopped: the producer need not finish
	done chan struct{} // closed when the producer returns
	sink uint32        // written by the producer, never read
}

const (
	ringSize  = 1 << 18 // entries: 1 MB, small enough to stay in cache
	ringBatch = 1 << 10
	ringLong  = ^uint32(0)
	ringWrap  = ringLong - 1
)

func newPredRing() *predRing {
	return &predRing{buf: make([]uint32, ringSize), done: make(chan struct{})}
}

// produce sends every list, from number N down to 2.
func (q *predRing) produce(d *domSearch, rv *domPreds) {
	defer close(q.done)
	const mask = ringSize - 1
	buf, vertex, off, src := q.buf, d.vertex, rv.off, rv.src
	var w, published, room uint64
	var sink uint32
	for x := d.N; x >= 2; x-- {
		// Each list is two dependent loads from anywhere in memory (its
		// offset, then its entries): start both a few lists ahead, so that
		// they overlap instead of waiting one after another.
		if x > produceAhead {
			sink += off[vertex[x-produceAhead]]
			if o := off[vertex[x-produceAhead/2]]; int(o) < len(src) {
				sink += src[o]
			}
		}
		u := vertex[x]
		list := src[off[u]:off[u+1]]
		need := 1 + uint64(len(list))
		if need > ringSize/2 {
			need = 1
		}
		var pad uint64
		if w&mask+need > ringSize {
			pad = ringSize - w&mask
		}
		if w+pad+need > room {
			q.w.Store(w)
			published = w
			// Full. This side is the faster one, so rather than spin (which
			// on a hyperthread slows the loop it waits for) it sleeps until
			// half the ring is free.
			for {
				if room = q.r.Load() + ringSize; w+max(pad+need, ringSize/2) <= room {
					break
				}
				if q.stop.Load() {
					return
				}
				time.Sleep(200 * time.Microsecond)
			}
		}
		if pad > 0 {
			buf[w&mask] = ringWrap
			w += pad
		}
		if need == 1 && len(list) != 0 {
			buf[w&mask] = ringLong
			w++
		} else {
			buf[w&mask] = uint32(len(list))
			w++
			for _, k := range list {
				if k == 0 {
					k = x // unreached: a self-loop, which changes nothing
				}
				buf[w&mask] = k
				w++
			}
		}
		if w-published >= ringBatch {
			q.w.Store(w)
			published = w
		}
	}
	q.w.Store(w)
	q.sink = sink // keeps the loads above from being optimised away
}

// produceAhead is how many numbers ahead of its list the producer starts
// loading a list's offset (and half as far ahead, its entries).
const produceAhead = 64

// ringConsumer reads lists from a predRing.
type ringConsumer struct {
	q            *predRing
	r, published uint64
	avail        uint64
	ahead        uint64 // ring position up to which lookahead has loaded
	sink         uint32
}

// ringAhead is how many ring entries ahead of its use the semidominator
// loop loads each predecessor's forest state.
const ringAhead = 256

// lookahead loads the forest state (anc, ls) of predecessors a little
// further on in the ring. The loop reads them one list at a time, each read
// likely a cache miss that the next depends on; loaded early and together
// they overlap. What is loaded may change before its use; the loop reads it
// again then, so this only affects speed.
func (c *ringConsumer) lookahead(f []forestNode) {
	const mask = ringSize - 1
	if c.ahead > c.r+ringAhead/2 {
		return // load in batches: more misses in flight at once
	}
	end := min(c.r+ringAhead, c.avail)
	buf := c.q.buf
	sink := c.sink
	for x := max(c.ahead, c.r); x < end; x++ {
		// Length words are loaded too, as if they were numbers: harmless.
		if v := buf[x&mask]; int(v) < len(f) {
			sink += f[v].anc
		}
	}
	c.sink = sink
	c.ahead = end
}

func (q *predRing) consumer() *ringConsumer { return &ringConsumer{q: q} }

// next returns the next number's list, or nil when it is too long for
// the ring. The slice is valid until the next call.
func (c *ringConsumer) next() []uint32 {
	const mask = ringSize - 1
	q := c.q
	// The previous list is done with now, so its room can be handed back.
	if c.r-c.published >= ringBatch {
		q.r.Store(c.r)
		c.published = c.r
	}
	for c.r >= c.avail {
		q.r.Store(c.r)
		c.published = c.r
		if c.avail = q.w.Load(); c.r >= c.avail {
			runtime.Gosched()
		}
	}
	n := q.buf[c.r&mask]
	if n == ringWrap {
		c.r += ringSize - c.r&mask
		n = q.buf[0]
	}
	c.r++
	if n == ringLong {
		return nil
	}
	start := c.r & mask
	c.r += uint64(n)
	return q.buf[start : start+uint64(n)]
}

func (c *ringConsumer) close() {
	c.q.r.Store(c.r)
	c.q.stop.Store(true)
}

// forestNode is a number's state in the link-eval forest: anc is its
// forest link (0 for a root), ls the least semidominator on its compressed
// path (its own number until it is processed), child and size the
// balancing state.
type forestNode struct {
	anc, ls, child, size uint32
}

// compress shortens v's forest path so that every node on it links to the
// node just below the root, carrying the path minimum down. It walks up once
// reversing the links and down once setting them, so no stack is needed
// however long the path is. Requires f[f[v].anc].anc != 0.
func compress(v uint32, f []forestNode) {
	var prev uint32 // 0 ends the reversed chain
	x := v
	for {
		a := f[x].anc
		if f[a].anc == 0 {
			break
		}
		f[x].anc = prev
		prev, x = x, a
	}
	for c := prev; c != 0; {
		down := f[c].anc
		if f[x].ls < f[c].ls {
			f[c].ls = f[x].ls
		}
		f[c].anc = f[x].anc
		x, c = c, down
	}
}

// link adds processed node w under its parent p in the forest, keeping the
// forest's trees balanced (Lengauer and Tarjan's LINK) so that eval paths
// stay short even when the search tree is millions deep.
func link(p, w uint32, f []forestNode) {
	s := w
	lw := f[w].ls
	for lw < f[f[s].child].ls {
		cs := f[s].child
		if uint64(f[s].size)+uint64(f[f[cs].child].size) >= 2*uint64(f[cs].size) {
			f[cs].anc = s
			f[s].child = f[cs].child
		} else {
			f[cs].size = f[s].size
			f[s].anc = cs
			s = cs
		}
	}
	f[s].ls = lw
	f[p].size += f[w].size
	if uint64(f[p].size) < 2*uint64(f[w].size) {
		s, f[p].child = f[p].child, s
	}
	for s != 0 {
		f[s].anc = p
		s = f[s].child
	}
}

// retained sums each node's own size over the dominator tree, by node index.
// A node's number is higher than its dominator's, so one backward pass over
// the numbers adds every subtree before its root is added to its parent.
// The sums are kept by number, where a node and its dominator are usually
// close: only gathering the sizes and scattering the results touch memory
// by node index, and those loads and stores do not wait for each other.
func (d *domSearch) retained(n uint32, idom []uint32, self, external *ir.Uints, ext bool) []uint64 {
	N, vertex := d.N, d.vertex
	byNum := make([]uint64, N+1)
	order := vertex[1 : N+1]
	addSizes(byNum[1:], order, self)
	if ext {
		addSizes(byNum[1:], order, external)
	}
	for w := N; w >= 2; w-- {
		p := idom[w]
		byNum[p] = ir.SatAdd(byNum[p], byNum[w])
	}
	ret := make([]uint64, n)
	for w, v := range order {
		ret[v] = byNum[w+1]
	}
	return ret
}

// addSizes adds column c's value of each node of order to sum, in order.
func addSizes(sum []uint64, order []uint32, c *ir.Uints) {
	if s, ok := c.U64(); ok {
		for i, v := range order {
			sum[i] = ir.SatAdd(sum[i], s[v])
		}
	} else if s, ok := c.U32(); ok {
		for i, v := range order {
			sum[i] = ir.SatAdd(sum[i], uint64(s[v]))
		}
	} else if s, ok := c.U8(); ok {
		for i, v := range order {
			sum[i] = ir.SatAdd(sum[i], uint64(s[v]))
		}
	}
}
