package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// ClassStat aggregates the nodes of one class. Count is its objects:
// its nodes, but for a profile's samples, which stand for as many objects
// as they count allocations (ir.ObjectCounts).
type ClassStat struct {
	Name     string `json:"name"`
	Count    uint64 `json:"count"`
	SelfSize uint64 `json:"self_size"`
	// Retained is the class's retained size (see ClassRetained), when the
	// summary was asked to compute it.
	Retained *uint64 `json:"retained_size,omitempty"`
	// Location is where the class's objects were allocated, for a V8
	// class DevTools splits by allocation location (one row per location
	// of objects of one name; the row without a location has none).
	Location *SourceLocation `json:"location,omitempty"`
}

// Label names the class as heapconv info lists it: its name, and for a
// class split by allocation location, "at script S line L column C"
// (counted from 1).
func (c ClassStat) Label() string {
	if l := c.Location; l != nil {
		return fmt.Sprintf("%s at script %d line %d column %d", c.Name, l.ScriptID, l.Line+1, l.Column+1)
	}
	return c.Name
}

// MarshalJSON writes the class with its name's lone surrogates kept
// (AppendJSONWTF8).
func (c ClassStat) MarshalJSON() ([]byte, error) {
	b := ir.AppendJSONWTF8([]byte(`{"name":`), c.Name)
	b = fmt.Appendf(b, `,"count":%d,"self_size":%d`, c.Count, c.SelfSize)
	if c.Retained != nil {
		b = fmt.Appendf(b, `,"retained_size":%d`, *c.Retained)
	}
	if l := c.Location; l != nil {
		b = fmt.Appendf(b, `,"location":{"script_id":%d,"line":%d,"column":%d}`, l.ScriptID, l.Line, l.Column)
	}
	return append(b, '}'), nil
}

// Orders for SummarizeBy.
const (
	BySelf     = "self"
	ByCount    = "count"
	ByRetained = "retained"
)

// SnapshotSummary is what `heapconv info` reports per snapshot. Objects
// is what the nodes stand for: one each, but for a profile's samples,
// which count the allocations they merge (ir.ObjectCounts).
type SnapshotSummary struct {
	Nodes        uint64      `json:"nodes"`
	Objects      uint64      `json:"objects"`
	Edges        uint64      `json:"edges"`
	SelfSize     uint64      `json:"self_size"`
	ExternalSize uint64      `json:"external_size"`
	Classes      uint64      `json:"classes"`
	Roots        uint64      `json:"roots"`
	TopClasses   []ClassStat `json:"top_classes"`
}

// Summarize computes a snapshot's summary with its top classes by self size.
func Summarize(f *ir.File, s *ir.Snapshot, top int) SnapshotSummary {
	sum, _ := SummarizeBy(f, s, top, BySelf)
	return sum
}

// SummarizeBy computes a snapshot's summary with its top classes ordered by
// self size, count or retained size. Retained sizes need the dominator tree
// (weak edges ignored, external sizes owned by their node, nodes
// unreachable from the root hung from it as Chrome DevTools does) and are
// summed per class as DevTools' Summary view sums them; a snapshot without
// a root has none. The classes are ClassStats'.
func SummarizeBy(f *ir.File, s *ir.Snapshot, top int, by string) (SnapshotSummary, error) {
	switch by {
	case BySelf, ByCount, ByRetained:
	default:
		return SnapshotSummary{}, fmt.Errorf("unknown order %q (want %s, %s or %s)", by, BySelf, ByCount, ByRetained)
	}
	sum := SnapshotSummary{Nodes: uint64(s.Nodes.Len()), Objects: ir.Objects(s), Edges: uint64(s.Edges.Len())}
	sum.SelfSize = s.Nodes.SelfSize.Sum()
	sum.ExternalSize = ir.ExternalSize(s)
	switch {
	case len(s.Roots) > 0:
		sum.Roots = uint64(len(s.Roots))
	case s.Root != ir.NoNode:
		lo, hi := s.Nodes.EdgeRange(int(s.Root))
		sum.Roots = uint64(hi - lo)
	}
	retained := by == ByRetained
	table, err := newClassTable(f, s, retained)
	if err != nil {
		return SnapshotSummary{}, err
	}
	stats := table.stats()
	sum.Classes = uint64(len(stats))
	sort.Slice(stats, func(i, j int) bool {
		a, b := stats[i], stats[j]
		switch {
		case retained && *a.Retained != *b.Retained:
			return *a.Retained > *b.Retained
		case by == ByCount && a.Count != b.Count:
			return a.Count > b.Count
		}
		if a.SelfSize != b.SelfSize {
			return a.SelfSize > b.SelfSize
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return locationLess(a.Location, b.Location)
	})
	if top >= 0 && len(stats) > top {
		stats = stats[:top]
	}
	sum.TopClasses = stats
	return sum, nil
}

// locationLess orders rows of one class name: the one without a location
// first, then by script, line and column.
func locationLess(a, b *SourceLocation) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b != nil
	case a.ScriptID != b.ScriptID:
		return a.ScriptID < b.ScriptID
	case a.Line != b.Line:
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// classTable is a snapshot's class table as ClassStats and SummarizeBy
// compute it, with what Compare needs of it too.
type classTable struct {
	// rows are the classes, some perhaps without a node counted (Count 0:
	// a V8 class all of whose nodes DevTools shows no size for).
	rows []ClassStat
	// of is each node's class, an index into rows, whether counted or not.
	of []int32
	// sizes are the sizes counted (DevTools' for V8); a node counts when
	// its size is not 0, or always outside V8.
	sizes *ir.Uints
	// devtools is whether DevTools' rules named the classes.
	devtools bool
	// graph is the graph the dominator tree is computed over (the
	// snapshot, or it with a virtual root: summaryGraph), graphSizes each
	// of its nodes' own size there, and tree its dominator tree once
	// computed (nil for a snapshot without a root).
	graph      *ir.Snapshot
	graphSizes *ir.Uints
	tree       *DominatorTree
	hasTree    bool
	// ignore are the edges besides weak ones the tree does not follow
	// (DevToolsIgnore), kept for walks that must agree with it.
	ignore func(edge int) bool
}

// counted reports whether node i is counted in its class.
func (c *classTable) counted(i int) bool { return !c.devtools || c.sizes.At(i) > 0 }

// newClassTable computes a snapshot's classes, each with its count and
// self size and, with withRetained, its retained size (see SummarizeBy).
func newClassTable(f *ir.File, s *ir.Snapshot, withRetained bool) (*classTable, error) {
	g, sizes := summaryGraph(f, s)
	c := &classTable{devtools: devtoolsSummarized(s), graph: g, graphSizes: sizes}
	if c.devtools {
		c.rows, c.of = devtoolsClasses(f, s, ir.ClassLabels(f))
		c.sizes = sizes
		for i := range c.of {
			if x := sizes.At(i); x > 0 {
				r := &c.rows[c.of[i]]
				r.Count++
				r.SelfSize = ir.SatAdd(r.SelfSize, x)
			}
		}
	} else {
		c.rows, c.of = otherNodeClasses(f, s)
		c.sizes = &s.Nodes.SelfSize
	}
	if withRetained {
		if err := c.addRetained(f, s); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// addRetained gives each class its retained size (once).
func (c *classTable) addRetained(f *ir.File, s *ir.Snapshot) error {
	if len(c.rows) > 0 && c.rows[0].Retained != nil {
		return nil
	}
	sums := make([]uint64, len(c.rows))
	tree, err := c.dominators(f)
	switch {
	case err != nil:
		return err
	case tree != nil:
		n := s.Nodes.Len()
		// DevTools counts the nodes it shows a size for.
		sums = classRetained(tree, func(i int) int32 {
			if i >= n || c.graphSizes.At(i) == 0 {
				return -1 // the virtual root, or a node without a size
			}
			return c.of[i]
		}, len(c.rows))
	}
	for k := range c.rows {
		c.rows[k].Retained = &sums[k]
	}
	return nil
}

// dominators returns the dominator tree of the table's graph, computing it
// the first time.
func (c *classTable) dominators(f *ir.File) (*DominatorTree, error) {
	if !c.hasTree {
		c.ignore = DevToolsIgnore(f, c.graph)
		tree, err := summaryDominators(c.graph, c.graphSizes, c.ignore)
		if err != nil {
			return nil, err
		}
		c.tree, c.hasTree = tree, true
	}
	return c.tree, nil
}

// stats returns the classes that count a node.
func (c *classTable) stats() []ClassStat {
	out := make([]ClassStat, 0, len(c.rows))
	for _, r := range c.rows {
		if r.Count > 0 {
			out = append(out, r)
		}
	}
	return out
}

// summaryGraph returns the graph DevTools' Summary is computed over — s,
// or, for GC roots without a root node (a native heap's blocks that
// nothing points to), s with a virtual root above them, as converters to
// V8 add a synthetic one — and the self sizes DevTools shows for it.
func summaryGraph(f *ir.File, s *ir.Snapshot) (*ir.Snapshot, *ir.Uints) {
	g := s
	if s.Root == ir.NoNode && len(s.Roots) > 0 {
		g = withVirtualRoot(s)
	}
	sizes := DevToolsSelfSizes(f, g)
	if sizes == nil {
		sizes = &g.Nodes.SelfSize
	}
	return g, sizes
}

// summaryDominators returns g's dominator tree as DevTools builds it for
// retained sizes (its ignored edges, DevToolsIgnore's, external sizes owned by their node,
// nodes unreachable from the root hung from it), or nil when g has no
// root: nothing is retained then.
func summaryDominators(g *ir.Snapshot, sizes *ir.Uints, ignore func(edge int) bool) (*DominatorTree, error) {
	tree, err := Dominators(g, DominatorOptions{IncludeExternal: true, Orphans: true, Ignore: ignore, SelfSizes: sizes})
	if errors.Is(err, ErrNoRoot) {
		return nil, nil
	}
	return tree, err
}

// ClassStats aggregates nodes by class, in no particular order. A V8
// snapshot's classes are the rows of Chrome DevTools' Summary view: plain
// objects named by the interface (shape) DevTools infers for them,
// detached DOM nodes as "Detached <tag>", object classes split by
// allocation location, and only the nodes DevTools shows a self size for,
// with the sizes it shows (DevToolsSelfSizes). Other formats' classes are
// their class names (see NodeClass), every node counted.
func ClassStats(f *ir.File, s *ir.Snapshot) []ClassStat {
	table, _ := newClassTable(f, s, false) // fails only computing retained sizes
	return table.stats()
}

// otherNodeClasses returns the classes of a snapshot DevTools' rules do not
// name (NodeClass), with their counts and self sizes, and each node's class.
func otherNodeClasses(f *ir.File, s *ir.Snapshot) ([]ClassStat, []int32) {
	// Group by (kind, name, class) first: cheap integer keys, then resolve
	// each group's display name once.
	type key struct {
		kind  uint8
		name  uint32
		class uint32
	}
	groups := map[key]int32{}
	var groupClass []int32 // each group's class
	var stats []ClassStat
	byName := map[string]int32{}
	labels := ir.ClassLabels(f)
	n := s.Nodes.Len()
	of := make([]int32, n)
	objects := ir.ObjectCounts(s) // nil: a node is an object
	for i := 0; i < n; i++ {
		k := key{kind: s.Nodes.Kind[i], name: s.Nodes.Name[i]}
		if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
			k = key{class: s.Nodes.Class[i]}
		} else if !nameMatters(s.NodeKindName(i)) {
			k.name = 0
		}
		g, ok := groups[k]
		if !ok {
			name := NodeClass(f, s, i, labels)
			c, ok := byName[name]
			if !ok {
				c = int32(len(stats))
				byName[name] = c
				stats = append(stats, ClassStat{Name: name})
			}
			g = int32(len(groupClass))
			groups[k] = g
			groupClass = append(groupClass, c)
		}
		c := groupClass[g]
		of[i] = c
		if objects != nil {
			stats[c].Count = ir.SatAdd(stats[c].Count, objects(i))
		} else {
			stats[c].Count++
		}
		stats[c].SelfSize = ir.SatAdd(stats[c].SelfSize, s.Nodes.SelfSize.At(i))
	}
	return stats, of
}

// NodeClasses returns the classes ClassStats counts (in no particular
// order, without retained sizes), each node's class as an index into them
// (-1 for a node they do not count: a V8 node DevTools shows no size for),
// and the size they count for each node (for V8, DevTools' Summary sizes:
// DevToolsSelfSizes; else the node's self size). A class's count is the
// objects its counted nodes stand for (ir.ObjectCounts: one each but for a
// profile's samples), its self size the sum of their counted sizes.
func NodeClasses(f *ir.File, s *ir.Snapshot) (classes []ClassStat, of []int32, sizes *ir.Uints) {
	t, _ := newClassTable(f, s, false) // fails only computing retained sizes
	return t.nodeClasses()
}

// NodeRetained is NodeClasses with retained sizes, as `heapconv info --by
// retained` computes them (SummarizeBy): each class's Retained is set, and
// tree is the dominator tree they come from (nil, and every class's
// retained size 0, for a snapshot with neither a root node nor GC roots).
// The tree is over the graph the summary uses: for a snapshot that lists
// GC roots without a root node, that graph has one node more, a virtual
// root above them, at index s.Nodes.Len(), which is the tree's Root. Its
// Retained are the retained sizes DevTools shows for a V8 heap (its sizes,
// its ignored edges, external sizes owned by their node) and the heap's
// own otherwise; every node is in it (those the root cannot reach are
// hung from it, as DevTools does).
//
// A node counts towards its class's retained size when it has a class,
// its own size in the tree (for V8 DevTools' Summary size, which is its
// counted size) is not 0, and no other node of its class that counts
// dominates it: then its retained size is in its class's.
func NodeRetained(f *ir.File, s *ir.Snapshot) (classes []ClassStat, of []int32, sizes *ir.Uints, tree *DominatorTree, err error) {
	t, err := newClassTable(f, s, true)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	classes, of, sizes = t.nodeClasses()
	return classes, of, sizes, t.tree, nil
}

// nodeClasses returns the table's counted classes, each node's class among
// them (-1 for none) and the sizes counted: NodeClasses.
func (t *classTable) nodeClasses() (classes []ClassStat, of []int32, sizes *ir.Uints) {
	renumber := make([]int32, len(t.rows))
	for k, r := range t.rows {
		renumber[k] = -1
		if r.Count > 0 {
			renumber[k] = int32(len(classes))
			classes = append(classes, r)
		}
	}
	of = make([]int32, len(t.of))
	for i, c := range t.of {
		of[i] = -1
		if t.counted(i) {
			of[i] = renumber[c]
		}
	}
	return classes, of, t.sizes
}

// NodeClass is ClassName with the class table's names qualified as
// ClassLabels qualifies them (labels is ir.ClassLabels(f)): the class a node
// is counted under, which converters keep.
func NodeClass(f *ir.File, s *ir.Snapshot, i int, labels []string) string {
	if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && int(s.Nodes.Class[i]) <= len(labels) {
		return labels[s.Nodes.Class[i]-1]
	}
	return ClassName(f, s, i)
}

// nameMatters reports whether a node kind's class name depends on the node's
// name (Chrome DevTools groups object and native nodes by name, everything
// else by kind).
func nameMatters(kind string) bool { return kind == ir.KindObject || kind == ir.KindNative }

// ClassName returns the class a node is counted under: its class from the
// class table when it has one, else the name Chrome DevTools' Summary view
// gives it (object and native nodes by name, other kinds in parentheses).
// It is the node's own name, which converters keep: the Summary rules that
// depend on the whole V8 heap (plain objects named by shape, detached DOM
// nodes, allocation locations) are ClassStats'.
func ClassName(f *ir.File, s *ir.Snapshot, i int) string {
	if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
		c := s.Nodes.Class[i] - 1
		return f.String(f.Classes.Name[c])
	}
	switch k := s.NodeKindName(i); k {
	case ir.KindObject, ir.KindNative:
		return devtoolsObjectClass(f.String(s.Nodes.Name[i]))
	default:
		return kindClass(k)
	}
}

// kindClass is the class DevTools counts a node under whose kind, not
// name, names it.
func kindClass(kind string) string {
	switch kind {
	case ir.KindHidden:
		return "(system)"
	case ir.KindCode:
		return "(compiled code)"
	case ir.KindClosure:
		return "Function"
	case ir.KindRegexp:
		return "RegExp"
	}
	return "(" + kind + ")"
}

// devtoolsObjectClass is the class DevTools names an object or native node
// of this name by: the name, except that an element's attributes are cut
// ("<div id=a>" is "<div>", "Detached <div id=a>" is "Detached <div>":
// everything up to the first space, and the bracket).
func devtoolsObjectClass(name string) string {
	switch {
	case strings.HasPrefix(name, "<"):
		if sp := strings.IndexByte(name, ' '); sp >= 0 {
			name = name[:sp] + ">"
		}
	case strings.HasPrefix(name, "Detached <"):
		if sp := strings.IndexByte(name[10:], ' '); sp >= 0 {
			name = name[:10+sp] + ">"
		}
	}
	return name
}

func floatFromBits(b uint64) float64 { return math.Float64frombits(b) }

// withVirtualRoot returns a copy of s with one more node, its root, whose
// edges lead to each GC root. The copy shares nothing s could see change.
func withVirtualRoot(s *ir.Snapshot) *ir.Snapshot {
	g := *s
	n, m := s.Nodes.Len(), s.Edges.Len()
	g.Root = uint32(n)
	g.Roots = nil
	nd := &g.Nodes
	nd.Kind = append(slices.Clip(s.Nodes.Kind), 0)
	nd.Name = append(slices.Clip(s.Nodes.Name), 0)
	if len(s.Nodes.Class) > 0 {
		nd.Class = append(slices.Clip(s.Nodes.Class), 0)
	}
	nd.SelfSize = cloneUints(&s.Nodes.SelfSize)
	nd.SelfSize.Append(0)
	nd.ID = cloneUints(&s.Nodes.ID)
	nd.ID.Append(0)
	if s.Nodes.ExternalSize.Len() > 0 {
		nd.ExternalSize = cloneUints(&s.Nodes.ExternalSize)
		nd.ExternalSize.Append(0)
	}
	nd.FirstEdge = append(slices.Clip(s.Nodes.FirstEdge), uint32(m+len(s.Roots)))
	ed := &g.Edges
	ed.Kind, ed.Name, ed.Target = slices.Clip(s.Edges.Kind), slices.Clip(s.Edges.Name), slices.Clip(s.Edges.Target)
	for _, r := range s.Roots {
		ed.Kind = append(ed.Kind, 0)
		ed.Name = append(ed.Name, 0)
		ed.Target = append(ed.Target, r.Node)
	}
	if len(g.EdgeKinds) == 0 {
		g.EdgeKinds = []ir.EdgeKind{{Name: ir.EdgeInternal}}
	}
	if len(g.NodeKinds) == 0 {
		g.NodeKinds = []string{ir.KindSynthetic}
	}
	// Format sections describe the original nodes only.
	g.Sections = nil
	return &g
}

// cloneUints returns a copy of c that appends never share storage with.
func cloneUints(c *ir.Uints) ir.Uints {
	var d ir.Uints
	buf := make([]uint64, 0, 4096)
	for i := 0; i < c.Len(); i += cap(buf) {
		b := buf[:min(cap(buf), c.Len()-i)]
		c.Values(b, i)
		d.AppendAll(b)
	}
	return d
}
