package explore

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// APIVersion is the version of the JSON API, the "v1" of its paths. A
// change that removes or renames a field or an endpoint makes a new one.
const APIVersion = 1

// Paging: a request's limit when it gives none, and the most it may ask.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// api adds the API's endpoints to mux.
func (s *Server) api(mux *http.ServeMux) {
	const p = "GET /api/v1/heaps"
	mux.HandleFunc(p, s.listHeaps)
	// The Summary's endpoints answer as soon as the classes are counted.
	mux.HandleFunc(p+"/{heap}", s.withSummary(s.heapInfo))
	mux.HandleFunc(p+"/{heap}/kinds", s.withSummary(s.kinds))
	mux.HandleFunc(p+"/{heap}/classes", s.withSummary(s.classList))
	mux.HandleFunc(p+"/{heap}/classes/{class}/objects", s.withHeap(s.classObjects))
	mux.HandleFunc(p+"/{heap}/objects/{node}", s.withObject(s.object))
	mux.HandleFunc(p+"/{heap}/objects/{node}/fields", s.withObject(s.fields))
	mux.HandleFunc(p+"/{heap}/objects/{node}/retainers", s.withObject(s.retainers))
	mux.HandleFunc(p+"/{heap}/objects/{node}/dominators", s.withObject(s.dominators))
	mux.HandleFunc(p+"/{heap}/objects/{node}/dominated", s.withObject(s.dominated))
	mux.HandleFunc(p+"/{heap}/objects/{node}/path", s.withObject(s.path))
	mux.HandleFunc(p+"/{heap}/dominator-tree", s.withHeap(s.treeTops))
	mux.HandleFunc(p+"/{heap}/search", s.withHeap(s.search))
	mux.HandleFunc("GET /api/v1/compare", s.compare)
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, r *http.Request) {
		httpError(w, r, http.StatusNotFound, "%s: no such endpoint (docs/api.md lists them)", r.URL.Path)
	})
}

// httpError answers with status and a message: as JSON ({"error": ...})
// for the API, as text otherwise.
func httpError(w http.ResponseWriter, r *http.Request, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if strings.HasPrefix(r.URL.Path, "/api/") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": msg})
		return
	}
	http.Error(w, msg, status)
}

// reply writes v as the JSON answer.
func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// index reads a number of a path or a cursor: decimal digits only, as the
// API writes them (no sign, no leading zero), so that one object has one
// address.
func index(text string) (int, bool) {
	if text == "" || len(text) > 1 && text[0] == '0' {
		return 0, false
	}
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}

// withSummary resolves the {heap} of a path for the Summary's questions,
// which its classes and dominator tree answer.
func (s *Server) withSummary(f func(w http.ResponseWriter, r *http.Request, h *heapView)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		k, ok := index(r.PathValue("heap"))
		if !ok || k >= len(s.heaps) {
			httpError(w, r, http.StatusNotFound, "heap %q: no such heap (there are %d, numbered from 0)", r.PathValue("heap"), len(s.heaps))
			return
		}
		f(w, r, s.heaps[k])
	}
}

// withHeap resolves the {heap} of a path for any question, waiting for
// the heap's retainer lists and distances if they are still being made.
func (s *Server) withHeap(f func(w http.ResponseWriter, r *http.Request, h *heapView)) http.HandlerFunc {
	return s.withSummary(func(w http.ResponseWriter, r *http.Request, h *heapView) {
		select {
		case <-h.ready:
		case <-r.Context().Done():
			return
		}
		f(w, r, h)
	})
}

// withObject resolves the {heap} and {node} (a node's index) of a path.
func (s *Server) withObject(f func(w http.ResponseWriter, r *http.Request, h *heapView, i int)) http.HandlerFunc {
	return s.withHeap(func(w http.ResponseWriter, r *http.Request, h *heapView) {
		i, ok := index(r.PathValue("node"))
		if !ok || i >= h.nv.Nodes() {
			httpError(w, r, http.StatusNotFound, "object %q: no such node in %s (it has %d, numbered from 0; the search endpoint finds one by id)", r.PathValue("node"), h.name, h.nv.Nodes())
			return
		}
		f(w, r, h, i)
	})
}

// page is a request's paging: the offset its cursor names and its limit.
type page struct{ offset, limit int }

// paging reads limit and cursor; false (and an error answered) for bad ones.
func paging(w http.ResponseWriter, r *http.Request) (page, bool) {
	p := page{limit: DefaultLimit}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			httpError(w, r, http.StatusBadRequest, "limit %q: want 1 to %d", v, MaxLimit)
			return p, false
		}
		p.limit = n
	}
	if v := q.Get("cursor"); v != "" {
		n, ok := index(v)
		if !ok {
			httpError(w, r, http.StatusBadRequest, "cursor %q: not a cursor this API gave", v)
			return p, false
		}
		p.offset = n
	}
	return p, true
}

// window returns the part of n items p asks for, and the cursor of the
// next page ("" at the end).
func (p page) window(n int) (lo, hi int, next string) {
	lo = min(p.offset, n)
	hi = min(lo+p.limit, n)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next
}

// Heap is the answer of /heaps/{heap}: what the heap is and holds.
type Heap struct {
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Format  string `json:"format"`
	Nodes   int    `json:"nodes"`
	Edges   int    `json:"edges"`
	Objects uint64 `json:"objects"`
	// SelfSize is the sum of the counted objects' self sizes, Classes the
	// number of classes with objects.
	SelfSize uint64 `json:"self_size"`
	Classes  int    `json:"classes"`
	// Stacks is true when objects have allocation stacks.
	Stacks bool `json:"stacks"`
}

func (h *heapView) info() Heap {
	out := Heap{Index: h.index, Name: h.name, Format: h.heap.File.Format, Nodes: h.nv.Nodes(), Edges: h.heap.Snapshot.Edges.Len(), Stacks: h.stacks != nil}
	for _, c := range h.classes {
		if c.Count > 0 {
			out.Classes++
			out.Objects += c.Count
			out.SelfSize = ir.SatAdd(out.SelfSize, c.SelfSize)
		}
	}
	return out
}

func (s *Server) listHeaps(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Version int    `json:"version"`
		Heaps   []Heap `json:"heaps"`
	}{Version: APIVersion}
	for _, h := range s.heaps {
		out.Heaps = append(out.Heaps, h.info())
	}
	reply(w, out)
}

func (s *Server) heapInfo(w http.ResponseWriter, r *http.Request, h *heapView) { reply(w, h.info()) }

// Kind is a row of the statistics by node kind: how many objects of the
// kind (code, strings, arrays, native memory, …) the heap has, and their
// self and external sizes (memory outside the managed heap they hold).
type Kind struct {
	Kind         string `json:"kind"`
	Count        uint64 `json:"count"`
	SelfSize     uint64 `json:"self_size"`
	ExternalSize uint64 `json:"external_size"`
}

// kinds answers the statistics by node kind, the largest self size
// first: the heap's objects counted as the Summary counts them.
func (s *Server) kinds(w http.ResponseWriter, r *http.Request, h *heapView) {
	h.kindsOnce.Do(func() { h.kindRows = h.countKinds() })
	reply(w, Page[Kind]{Total: len(h.kindRows), Items: h.kindRows})
}

// countKinds counts the objects the Summary counts by node kind.
func (h *heapView) countKinds() []Kind {
	snap := h.heap.Snapshot
	rows := make([]Kind, len(snap.NodeKinds)+1)
	ext := snap.Nodes.ExternalSize.Len() > 0
	for i := range h.nv.Nodes() {
		if !h.nv.Counted(i) || h.nv.ClassIndex(i) < 0 {
			continue
		}
		k := min(int(snap.Nodes.Kind[i]), len(rows)-1)
		rows[k].Count++
		rows[k].SelfSize = ir.SatAdd(rows[k].SelfSize, h.nv.SelfSize(i))
		if ext {
			rows[k].ExternalSize = ir.SatAdd(rows[k].ExternalSize, snap.Nodes.ExternalSize.At(i))
		}
	}
	out := []Kind{}
	for k, row := range rows {
		if row.Count == 0 {
			continue
		}
		row.Kind = "(unknown)"
		if k < len(snap.NodeKinds) {
			row.Kind = snap.NodeKinds[k]
		}
		out = append(out, row)
	}
	slices.SortStableFunc(out, func(a, b Kind) int { return cmp.Compare(b.SelfSize, a.SelfSize) })
	return out
}

// Class is a row of the Summary: a class with its count and sizes.
type Class struct {
	// Index names the class in /classes/{class}/objects.
	Index    int    `json:"index"`
	Name     string `json:"name"`
	Label    string `json:"label"`
	Count    uint64 `json:"count"`
	SelfSize uint64 `json:"self_size"`
	Retained uint64 `json:"retained_size"`
}

// Page is a page of a list: the items, how many the whole list has, and
// the cursor of the next page (absent on the last).
type Page[T any] struct {
	Total int    `json:"total"`
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// classList answers the Summary: the classes with objects, filtered by a
// substring of their label (filter, case-insensitive) and sorted by sort
// (retained, the default; self; count; name).
func (s *Server) classList(w http.ResponseWriter, r *http.Request, h *heapView) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	rows := h.classRows(q.Get("filter"))
	var by func(a, b Class) int
	switch q.Get("sort") {
	case "", "retained":
		by = func(a, b Class) int { return cmp.Compare(b.Retained, a.Retained) }
	case "self":
		by = func(a, b Class) int { return cmp.Compare(b.SelfSize, a.SelfSize) }
	case "count":
		by = func(a, b Class) int { return cmp.Compare(b.Count, a.Count) }
	case "name":
		by = func(a, b Class) int { return strings.Compare(a.Label, b.Label) }
	default:
		httpError(w, r, http.StatusBadRequest, "sort %q: want retained, self, count or name", q.Get("sort"))
		return
	}
	slices.SortStableFunc(rows, func(a, b Class) int {
		if c := by(a, b); c != 0 {
			return c
		}
		return strings.Compare(a.Label, b.Label)
	})
	lo, hi, next := p.window(len(rows))
	reply(w, Page[Class]{Total: len(rows), Items: nonNil(rows[lo:hi]), Next: next})
}

// classRows returns the Summary's rows of the classes with objects whose
// label holds filter (in any case; every class for "").
func (h *heapView) classRows(filter string) []Class {
	filter = strings.ToLower(filter)
	var rows []Class
	for k, c := range h.classes {
		if c.Count == 0 || filter != "" && !strings.Contains(strings.ToLower(c.Label()), filter) {
			continue
		}
		row := Class{Index: k, Name: c.Name, Label: c.Label(), Count: c.Count, SelfSize: c.SelfSize}
		if c.Retained != nil {
			row.Retained = *c.Retained
		}
		rows = append(rows, row)
	}
	return rows
}

// replyObjects answers page p of nodes, as objects.
func (h *heapView) replyObjects(w http.ResponseWriter, p page, nodes []uint32) {
	lo, hi, next := p.window(len(nodes))
	items := make([]Object, 0, hi-lo)
	for _, v := range nodes[lo:hi] {
		items = append(items, h.object(int(v)))
	}
	reply(w, Page[Object]{Total: len(nodes), Items: items, Next: next})
}

// Object is an object as the views list it.
type Object struct {
	Node     int    `json:"node"`
	Ref      string `json:"ref"`
	ID       uint64 `json:"id"`
	Class    string `json:"class"`
	Kind     string `json:"kind"`
	Shown    string `json:"shown"`
	SelfSize uint64 `json:"self_size"`
	Retained uint64 `json:"retained_size"`
	// Distance is the object's distance from the roots, -1 when nothing
	// reachable holds it.
	Distance int `json:"distance"`
}

func (h *heapView) object(i int) Object {
	s := h.heap.Snapshot
	return Object{
		Node: i, Ref: h.nv.Ref(i), ID: s.Nodes.ID.At(i), Class: h.nv.Class(i), Kind: s.NodeKindName(i),
		Shown: h.nv.Shown(i), SelfSize: h.nv.SelfSize(i), Retained: h.nv.Retained(i), Distance: h.nv.Distance(i),
	}
}

// classObjects lists a class's objects, the largest retained size first.
func (s *Server) classObjects(w http.ResponseWriter, r *http.Request, h *heapView) {
	c, ok := index(r.PathValue("class"))
	if !ok || c >= len(h.classes) {
		httpError(w, r, http.StatusNotFound, "class %q: no such class in %s", r.PathValue("class"), h.name)
		return
	}
	p, ok := paging(w, r)
	if !ok {
		return
	}
	nodes := h.classInstances(c, p.offset+p.limit)
	h.replyObjects(w, p, nodes)
}

// largerFirst orders nodes by retained size, the largest first, then by
// index.
func (h *heapView) largerFirst(a, b uint32) int {
	if c := cmp.Compare(h.nv.Retained(int(b)), h.nv.Retained(int(a))); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// classInstances returns class c's counted nodes with the first upTo of
// them (at least) in order: largest retained size first, then by index.
// The first call lists every class's nodes in one pass over the heap; a
// class's are ordered only as far as they are asked for (a class can have
// millions, and a person reads the first pages), the order's prefix
// doubling each time it must grow.
func (h *heapView) classInstances(c, upTo int) []uint32 {
	h.classOnce.Do(func() {
		h.classFirst, h.classNodes = bucket(h.nv.Nodes(), len(h.classes), func(i int) int {
			if !h.nv.Counted(i) {
				return -1
			}
			return h.nv.ClassIndex(i)
		})
		h.classOrdered = make([]int, len(h.classes))
	})
	nodes := h.classNodes[h.classFirst[c]:h.classFirst[c+1]]
	h.mu.Lock()
	defer h.mu.Unlock()
	done := h.classOrdered[c]
	if upTo <= done || done == len(nodes) {
		return nodes
	}
	want := min(len(nodes), max(upTo, 2*done, 1024))
	// The rest, with their sizes beside them: the largest want-done of
	// them are selected to its front, then ordered.
	rest := nodes[done:]
	ks := make([]ranked, len(rest))
	for k, i := range rest {
		ks[k] = ranked{h.nv.Retained(int(i)), i}
	}
	selectFirst(ks, want-done)
	slices.SortFunc(ks[:want-done], compareRanked)
	for k := range ks {
		rest[k] = ks[k].node
	}
	h.classOrdered[c] = want
	return nodes
}

// ranked is a node with its retained size, for ordering.
type ranked struct {
	retained uint64
	node     uint32
}

// compareRanked orders the largest retained size first, then by index.
func compareRanked(a, b ranked) int {
	if a.retained != b.retained {
		return cmp.Compare(b.retained, a.retained)
	}
	return cmp.Compare(a.node, b.node)
}

// selectFirst moves the k first of ks in compareRanked's order to its
// front, in no particular order (quickselect: linear time on average).
func selectFirst(ks []ranked, k int) {
	lo, hi := 0, len(ks)
	for hi-lo > 1 && k > lo && k < hi {
		// The median of three as pivot, moved to the end.
		m := lo + (hi-lo)/2
		if compareRanked(ks[m], ks[lo]) < 0 {
			ks[m], ks[lo] = ks[lo], ks[m]
		}
		if compareRanked(ks[hi-1], ks[lo]) < 0 {
			ks[hi-1], ks[lo] = ks[lo], ks[hi-1]
		}
		if compareRanked(ks[m], ks[hi-1]) < 0 {
			ks[m], ks[hi-1] = ks[hi-1], ks[m]
		}
		pivot := ks[hi-1]
		p := lo
		for j := lo; j < hi-1; j++ {
			if compareRanked(ks[j], pivot) < 0 {
				ks[p], ks[j] = ks[j], ks[p]
				p++
			}
		}
		ks[p], ks[hi-1] = ks[hi-1], ks[p]
		switch {
		case p == k || p+1 == k:
			return
		case p > k:
			hi = p
		default:
			lo = p + 1
		}
	}
}

// ObjectDetail is the answer of /objects/{node}: the object, its names
// and value, its immediate dominator, how many fields, retainers and
// dominated objects it has, and its allocation stack where the heap has
// one.
type ObjectDetail struct {
	Object
	Heap int `json:"heap"`
	// Name is the object's own name in the snapshot.
	Name string `json:"name"`
	// ClassIndex names its class in /classes/{class}/objects (-1: none).
	ClassIndex int `json:"class_index"`
	// Dominator is its immediate dominator (absent for the root and in a
	// heap without one).
	Dominator *Object `json:"dominator,omitempty"`
	Fields    int     `json:"fields"`
	Retainers int     `json:"retainers"`
	// WeakRetainers counts the holders by weak edges, which do not keep
	// it alive.
	WeakRetainers int `json:"weak_retainers"`
	Dominated     int `json:"dominated"`
	// Stack is its allocation stack, innermost frame first.
	Stack []Frame `json:"stack,omitempty"`
}

// Frame is a frame of an allocation stack.
type Frame struct {
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Line   int64  `json:"line,omitempty"`
	Column int64  `json:"column,omitempty"`
}

func (s *Server) object(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	d := ObjectDetail{Object: h.object(i), Heap: h.index, ClassIndex: h.nv.ClassIndex(i)}
	d.Name = h.heap.File.String(h.heap.Snapshot.Nodes.Name[i])
	if dom := h.nv.Dominator(i); dom >= 0 {
		o := h.object(dom)
		d.Dominator = &o
	}
	_, d.Fields = h.nv.EdgesPage(i, 0, 0)
	d.Retainers, d.WeakRetainers = h.nv.RetainerCounts(i)
	d.Dominated = len(h.dominatedOf(i))
	if h.stacks != nil {
		h.stackMu.Lock()
		frames := h.stacks(i)
		h.stackMu.Unlock()
		for _, fr := range frames {
			if fr.Class {
				continue
			}
			d.Stack = append(d.Stack, Frame{Name: fr.Name(), File: fr.File, Line: fr.Line, Column: fr.Column})
		}
	}
	reply(w, d)
}

// Reference is an edge seen from one end, with the object at the other.
type Reference struct {
	Edge    int    `json:"edge"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Indexed bool   `json:"indexed"`
	// Weak is true for an edge that does not keep its target alive.
	Weak bool `json:"weak"`
	// Object is the object at the reference's other end (absent for the
	// edges of a retainer path, whose steps are the objects).
	Object *Object `json:"object,omitempty"`
}

// references answers a page of references, each with the object at its
// other end.
func (h *heapView) references(w http.ResponseWriter, refs []analysis.Reference, total int, next string, other func(analysis.Reference) int) {
	items := make([]Reference, 0, len(refs))
	for _, ref := range refs {
		o := h.object(other(ref))
		items = append(items, Reference{Edge: ref.Edge, Kind: ref.Kind, Name: ref.Name, Indexed: ref.Indexed, Weak: ref.Kind == ir.EdgeWeak, Object: &o})
	}
	reply(w, Page[Reference]{Total: total, Items: items, Next: next})
}

// fields lists what the object holds, in the snapshot's order, reading
// only the page asked for (an array may hold millions).
func (s *Server) fields(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	refs, total := h.nv.EdgesPage(i, p.offset, p.limit)
	_, _, next := p.window(total)
	h.references(w, refs, total, next, func(ref analysis.Reference) int { return ref.To })
}

// retainers lists what holds the object: its retainers in DevTools'
// order, then those that hold it by weak edges.
func (s *Server) retainers(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	keys := h.retainersOf(i)
	lo, hi, next := p.window(len(keys))
	refs := make([]analysis.Reference, 0, hi-lo)
	for _, k := range keys[lo:hi] {
		refs = append(refs, h.nv.Reference(int(k.edge), int(k.from)))
	}
	h.references(w, refs, len(keys), next, func(ref analysis.Reference) int { return ref.From })
}

// edgeFrom names a reference by its edge and the node holding it.
type edgeFrom struct{ edge, from uint32 }

// retainersOf returns node i's retainers, then its weak ones, as edges.
// Ordering them names every holder, so the lists of the few nodes with
// thousands are kept (8 bytes a reference, at most 4 M references in all)
// while their pages are read.
func (h *heapView) retainersOf(i int) []edgeFrom {
	h.mu.Lock()
	keys, ok := h.manyRetainers[i]
	h.mu.Unlock()
	if ok {
		return keys
	}
	for _, ref := range h.nv.Retainers(i) {
		keys = append(keys, edgeFrom{uint32(ref.Edge), uint32(ref.From)})
	}
	for _, ref := range h.nv.WeakRetainers(i) {
		keys = append(keys, edgeFrom{uint32(ref.Edge), uint32(ref.From)})
	}
	if len(keys) > 1000 {
		h.mu.Lock()
		kept := 0
		for _, k := range h.manyRetainers {
			kept += len(k)
		}
		if kept+len(keys) > 4<<20 {
			clear(h.manyRetainers)
		}
		h.manyRetainers[i] = keys
		h.mu.Unlock()
	}
	return keys
}

// dominators answers the dominator chain: from the root down to the
// object.
func (s *Server) dominators(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	var chain []uint32
	for cur := i; cur >= 0; cur = h.nv.Dominator(cur) {
		chain = append(chain, uint32(cur))
	}
	if h.nv.Tree() == nil || !h.nv.Tree().Reachable(i) {
		chain = nil
	}
	slices.Reverse(chain)
	h.replyObjects(w, p, chain)
}

// path answers the shortest retainer path from the roots to the object,
// each step with the edge by which it holds the next.
func (s *Server) path(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	type step struct {
		Object
		Edge *Reference `json:"edge,omitempty"`
	}
	path := h.nv.ShortestPath(i)
	lo, hi, next := p.window(len(path))
	steps := make([]step, 0, hi-lo)
	for _, st := range path[lo:hi] {
		x := step{Object: h.object(st.Node)}
		if e := st.Edge; e != nil {
			x.Edge = &Reference{Edge: e.Edge, Kind: e.Kind, Name: e.Name, Indexed: e.Indexed, Weak: e.Kind == ir.EdgeWeak}
		}
		steps = append(steps, x)
	}
	reply(w, Page[step]{Total: len(path), Items: steps, Next: next})
}

// dominated lists what the object alone keeps alive, the largest first.
func (s *Server) dominated(w http.ResponseWriter, r *http.Request, h *heapView, i int) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	nodes := h.dominatedOf(i)
	h.replyObjects(w, p, nodes)
}

// treeTops answers the top of the dominator tree: the root, or, in a
// heap whose GC roots have no root node above them, those roots, the
// largest retained size first. Each opens with /objects/{node}/dominated.
func (s *Server) treeTops(w http.ResponseWriter, r *http.Request, h *heapView) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	h.children()
	h.replyObjects(w, p, h.tops)
}

// dominatedOf returns the nodes node i immediately dominates, largest
// retained size first: the dominator tree's children, indexed for the
// whole heap the first time (one pass and a sort, rather than a scan of
// the heap per request).
func (h *heapView) dominatedOf(i int) []uint32 {
	h.children()
	if i < 0 || i+1 >= len(h.childFirst) {
		return nil
	}
	return h.childNode[h.childFirst[i]:h.childFirst[i+1]]
}

// children indexes the dominator tree's children of every node, and its
// top (tops), once.
func (h *heapView) children() {
	h.childOnce.Do(func() {
		n := h.nv.Nodes()
		h.childFirst, h.childNode = bucket(n, n, h.nv.Dominator)
		for v := range n {
			if kids := h.childNode[h.childFirst[v]:h.childFirst[v+1]]; len(kids) > 1 {
				slices.SortFunc(kids, h.largerFirst)
			}
			if h.nv.Dominator(v) < 0 && h.nv.Tree() != nil && h.nv.Tree().Reachable(v) {
				h.tops = append(h.tops, uint32(v))
			}
		}
		slices.SortFunc(h.tops, h.largerFirst)
	})
}

// bucket groups the nodes 0 to n-1 by of (a group from 0 to groups-1, or
// -1 for none), in node order: the nodes of group g are
// members[first[g]:first[g+1]]. Two passes, a count then a placement.
func bucket(n, groups int, of func(i int) int) (first, members []uint32) {
	first = make([]uint32, groups+2)
	for i := range n {
		if g := of(i); g >= 0 {
			first[g+2]++
		}
	}
	for g := 2; g < len(first); g++ {
		first[g] += first[g-1]
	}
	members = make([]uint32, first[groups+1])
	for i := range n {
		if g := of(i); g >= 0 {
			members[first[g+1]] = uint32(i)
			first[g+1]++
		}
	}
	return first[:groups+1], members
}

// search finds objects by reference ("@123", "#45", "0x2d37…"), classes by
// name, and strings by their text: q is looked for in each, the first
// limit matches of each kind returned.
func (s *Server) search(w http.ResponseWriter, r *http.Request, h *heapView) {
	p, ok := paging(w, r)
	if !ok {
		return
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		httpError(w, r, http.StatusBadRequest, "q is empty: give an id (@123), a class name or a string's text")
		return
	}
	out := struct {
		Objects []Object `json:"objects"`
		Classes []Class  `json:"classes"`
		Strings []Object `json:"strings"`
	}{Objects: []Object{}, Classes: []Class{}, Strings: []Object{}}
	if nodes, err := h.nv.NodesByRef(q); err == nil {
		for _, i := range nodes[:min(len(nodes), p.limit)] {
			out.Objects = append(out.Objects, h.object(i))
		}
	}
	classes := h.classRows(q)
	out.Classes = append(out.Classes, classes[:min(len(classes), p.limit)]...)
	for _, i := range h.stringsContaining(q, p.limit) {
		out.Strings = append(out.Strings, h.object(i))
	}
	reply(w, out)
}

// stringsContaining returns up to limit nodes whose string text contains
// q: V8's string nodes by their names (which are their text), other
// formats' nodes by their string values.
func (h *heapView) stringsContaining(q string, limit int) []int {
	f, s := h.heap.File, h.heap.Snapshot
	var out []int
	matches := func(k uint32) bool { return strings.Contains(f.String(k), q) }
	if v := &s.Values; v.Len() > 0 {
		for j := range v.Len() {
			if v.Kind[j] == ir.ValueString && matches(uint32(v.Bits[j])) {
				if out = append(out, int(v.Node[j])); len(out) >= limit {
					return out
				}
			}
		}
		return out
	}
	for i := range s.Nodes.Len() {
		switch s.NodeKindName(i) {
		case ir.KindString, ir.KindConcatenatedString, ir.KindSlicedString:
			if matches(s.Nodes.Name[i]) {
				if out = append(out, i); len(out) >= limit {
					return out
				}
			}
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
