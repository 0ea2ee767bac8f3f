package devtools

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// MaxStringUnits is V8's --heap-snapshot-string-limit: V8 cuts the
// contents of a string to this many UTF-16 code units when it names the
// string's node after them, and Convert cuts string nodes' names the same
// way (stringName). Every other name (classes, functions, properties) is
// written whole: V8 cuts those too, but DevTools has no limit on them, and
// two classes whose names differ only after the cut would become one. (The
// other limit DevTools imposes, on the whole strings section, is
// v8ir.MaxStringsUnits; see docs/formats/v8.md, "What Chrome DevTools'
// loader requires".)
const MaxStringUnits = 1024

// target is what the loss report says of a V8 snapshot made from another
// format: it keeps allocation stacks (as allocation traces), static frames
// (as function nodes) and a Dart heap's classes, for converting back.
var target = ir.Target{Format: v8ir.Format, Name: "a V8 snapshot", KeepsStacks: true, KeepsFrames: true, KeepsClasses: true}

// Convert turns a one-snapshot file from any format into the V8 shape that
// Write serializes and Chrome DevTools loads: V8's type tables, a string
// table starting with "<dummy>", the root at node 0, unique odd 32-bit ids,
// sizes below 2^32 and string contents of at most MaxStringUnits UTF-16
// units. The loss report lists what the V8 format cannot hold.
func Convert(f *ir.File) (*ir.File, ir.LossReport, error) {
	if len(f.Snapshots) != 1 {
		return nil, nil, fmt.Errorf("v8: a .heapsnapshot holds one snapshot; this file has %d", len(f.Snapshots))
	}
	out, loss, err := convertOne(f)
	if s := f.Snapshots[0]; err == nil && s.CaptureTime != 0 {
		loss.Add(ir.LossCaptureTime, 1, "the capture time has no place in a V8 snapshot").
			WithExample(time.Unix(0, s.CaptureTime).UTC().Format(time.RFC3339Nano))
	}
	return out, loss, err
}

// convertOne is Convert of a one-snapshot file, by the source's format.
func convertOne(f *ir.File) (*ir.File, ir.LossReport, error) {
	if dartir.Of(f.Snapshots[0]) != nil {
		return fromDart(f)
	}
	if moarvmir.FileOf(f) != nil {
		return fromMoarVM(f)
	}
	// An object is a node: a sample of several allocations becomes as
	// many objects.
	f, expanded := ir.ExpandObjects(f)
	c := &converter{src: f, s: f.Snapshots[0], loss: expanded}
	out, err := c.convert()
	if fx := fuchsiair.Of(f.Snapshots[0]); err == nil && fx != nil && fx.DerivedEdges {
		// Not a loss, but the report is where the user hears about it.
		c.loss.Add(ir.LossDerivedEdges, int64(f.Snapshots[0].Edges.Len()), "references were derived by scanning block contents for pointers: a heuristic (integers that look like addresses count too, and globals, stacks and registers are not seen), so retainers and retained sizes are estimates")
	}
	return out, c.loss, err
}

type converter struct {
	src  *ir.File
	s    *ir.Snapshot
	loss ir.LossReport

	strs  *ir.Interner
	shift uint32 // synthetic nodes put in front of the source's nodes

	// cutStrings counts the string nodes whose contents stringName cut,
	// cutExample shows the first.
	cutStrings int
	cutExample string
}

// v8NodeKind and v8EdgeKind are the indices of V8's own kinds in
// ir.V8NodeKinds and ir.V8EdgeKinds, for the converters that build a V8
// snapshot directly.
func v8NodeKind(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }

func v8EdgeKind(name string) uint8 {
	return uint8(slices.IndexFunc(ir.V8EdgeKinds, func(k ir.EdgeKind) bool { return k.Name == name }))
}

// newInterner returns the output string table for a conversion of src.
func newInterner(src *ir.File) *ir.Interner { return ir.NewInterner(src) }

// intern returns the output string index of s.
func (c *converter) intern(s string) uint32 { return c.strs.Intern(s) }

// internSrc is intern of the source's string i.
func (c *converter) internSrc(i uint32) uint32 { return c.strs.InternSrc(i) }

// isStringKind reports whether nodes of the named kind are V8 strings,
// which V8 and DevTools name by their contents.
func isStringKind(kind string) bool {
	return kind == ir.KindString || kind == ir.KindConcatenatedString || kind == ir.KindSlicedString
}

// tooLong reports whether s is longer than MaxStringUnits UTF-16 units.
func tooLong(s string) bool { return len(s) > MaxStringUnits && ir.UTF16Len(s) > MaxStringUnits }

// stringName returns the output string index of a string node's name, its
// contents: cut to MaxStringUnits as V8 cuts them, and counted when cut
// (stringsLoss reports them). The contents of a heap read from V8 were cut
// by V8 already; they stay as they are (a cut that split a surrogate pair
// left "???" in its place, 1026 units).
func (c *converter) stringName(s string, fromV8 bool) uint32 {
	if fromV8 || !tooLong(s) {
		return c.strs.Intern(s)
	}
	if c.cutStrings == 0 {
		c.cutExample = fmt.Sprintf("a string of %d units", ir.UTF16Len(s))
	}
	c.cutStrings++
	return c.strs.Intern(truncateUnits(s, MaxStringUnits))
}

// stringsLoss reports the string contents stringName cut.
func (c *converter) stringsLoss(loss *ir.LossReport) {
	if c.cutStrings > 0 {
		loss.Addf(ir.LossTruncatedNames, int64(c.cutStrings), "string nodes are named by their contents cut to %d UTF-16 units, as V8 cuts them (--heap-snapshot-string-limit); class, function and property names are whole", MaxStringUnits).
			WithExample(c.cutExample)
	}
}

// truncateUnits cuts s to at most n UTF-16 code units, at a code point
// boundary.
func truncateUnits(s string, n int) string {
	units := 0
	for i := 0; i < len(s); {
		r, size := ir.DecodeWTF8(s[i:])
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if units+u > n {
			return s[:i]
		}
		units += u
		i += size
	}
	return s
}

// v8Node is one synthetic node the conversion adds in front of the graph.
type v8Node struct {
	kind  uint8
	name  string
	edges []v8Edge
}

type v8Edge struct {
	kind   uint8
	name   uint32 // index for element edges
	target uint32 // output node index
}

func (c *converter) convert() (*ir.File, error) {
	src, s := c.src, c.s
	c.strs = newInterner(c.src)
	c.intern("<dummy>")
	n := s.Nodes.Len()

	out := &ir.Snapshot{NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds), Root: 0}
	kindIdx := func(table []string, name string) uint8 {
		if i := slices.Index(table, name); i >= 0 {
			return uint8(i)
		}
		return 255
	}
	// Node kinds: V8's own by name; others are appended, which DevTools
	// shows as "(name)".
	nodeKind := make([]uint8, len(s.NodeKinds))
	for i, k := range s.NodeKinds {
		j := kindIdx(out.NodeKinds, k)
		if j == 255 {
			if len(out.NodeKinds) >= 255 {
				return nil, fmt.Errorf("v8: too many node kinds")
			}
			j = uint8(len(out.NodeKinds))
			out.NodeKinds = append(out.NodeKinds, k)
		}
		nodeKind[i] = j
	}
	// Edge kinds: V8's by name. Another kind named by index cannot keep
	// its numeric name (DevTools reads only element and hidden edges as
	// indexed), so its index is written as a string name.
	edgeKind := make([]uint8, len(s.EdgeKinds))
	indexAsName := make([]bool, len(s.EdgeKinds))
	for i, k := range s.EdgeKinds {
		j := slices.IndexFunc(out.EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k.Name })
		if j < 0 {
			if len(out.EdgeKinds) >= 255 {
				return nil, fmt.Errorf("v8: too many edge kinds")
			}
			j = len(out.EdgeKinds)
			out.EdgeKinds = append(out.EdgeKinds, ir.EdgeKind{Name: k.Name})
		}
		edgeKind[i] = uint8(j)
		indexAsName[i] = k.Indexed && !out.EdgeKinds[j].Indexed
		if !k.Indexed && out.EdgeKinds[j].Indexed {
			return nil, fmt.Errorf("v8: edge kind %q is named by strings in the source but by index in V8", k.Name)
		}
	}

	// The root must be node 0. Otherwise a synthetic root goes in front,
	// with the source's root and its GC roots (grouped by category) below.
	var synth []v8Node
	if s.Root != 0 || n == 0 || len(s.Roots) > 0 {
		synth = c.syntheticRoots()
	}
	c.shift = uint32(len(synth))
	total := uint64(n) + uint64(c.shift)
	if total >= math.MaxUint32/8 {
		return nil, fmt.Errorf("v8: %d nodes are more than DevTools can index", total)
	}

	nd := &out.Nodes
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.FirstEdge = make([]uint32, 1, total+1)
	ed := &out.Edges
	for _, sn := range synth {
		nd.Kind = append(nd.Kind, sn.kind)
		nd.Name = append(nd.Name, c.intern(sn.name))
		nd.SelfSize.Append(0)
		for _, e := range sn.edges {
			ed.Kind = append(ed.Kind, e.kind)
			ed.Name = append(ed.Name, e.name)
			ed.Target = append(ed.Target, e.target)
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	// Node names: the node's name, or its class's when it has none; a
	// string's name is its contents, cut as V8 cuts them unless V8 did.
	stringKind := make([]bool, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		stringKind[k] = isStringKind(name)
	}
	fromV8 := src.Format == v8ir.Format
	var bigSizes, renamed int
	for i := 0; i < n; i++ {
		nd.Kind = append(nd.Kind, nodeKind[s.Nodes.Kind[i]])
		name := s.Nodes.Name[i]
		if src.String(name) == "" && len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
			name = src.Classes.Name[s.Nodes.Class[i]-1]
			renamed++
		}
		if stringKind[s.Nodes.Kind[i]] && !fromV8 && tooLong(src.String(name)) {
			nd.Name = append(nd.Name, c.stringName(src.String(name), false))
		} else {
			nd.Name = append(nd.Name, c.internSrc(name))
		}
		size := s.Nodes.SelfSize.At(i)
		if size > math.MaxUint32 {
			size = math.MaxUint32
			bigSizes++
		}
		nd.SelfSize.Append(size)
	}
	if bigSizes > 0 {
		c.loss.Add(ir.LossSizesCapped, int64(bigSizes), "nodes have a self size of 4 GiB or more; DevTools stores sizes in 32 bits, so they are capped at 2^32-1")
	}
	if renamed > 0 && len(s.Nodes.Class) > 0 {
		c.loss.Add(ir.LossNodeNames, int64(renamed), "unnamed nodes are named by their class")
	}

	m := s.Edges.Len()
	ed.Kind = slices.Grow(ed.Kind, m)
	ed.Name = slices.Grow(ed.Name, m)
	ed.Target = slices.Grow(ed.Target, m)
	for e := 0; e < m; e++ {
		k := s.Edges.Kind[e]
		ed.Kind = append(ed.Kind, edgeKind[k])
		switch {
		case indexAsName[k]:
			ed.Name = append(ed.Name, c.intern(strconv.FormatUint(uint64(s.Edges.Name[e]), 10)))
		case s.EdgeKinds[k].Indexed:
			ed.Name = append(ed.Name, s.Edges.Name[e])
		default:
			ed.Name = append(ed.Name, c.internSrc(s.Edges.Name[e]))
		}
		ed.Target = append(ed.Target, s.Edges.Target[e]+c.shift)
	}
	base := uint32(ed.Len() - m)
	for i := 1; i <= n; i++ {
		nd.FirstEdge = append(nd.FirstEdge, base+s.Nodes.FirstEdge[i])
	}

	c.stringsLoss(&c.loss)
	c.ids(out)
	c.external(out)
	if s.Values.Len() > 0 {
		c.loss.Add(ir.LossValues, int64(s.Values.Len()), "primitive values (strings, numbers, lengths) have no place in a V8 snapshot beyond node names")
	}
	if src.Classes.Len() > 0 {
		c.loss.Add(ir.LossClasses, int64(src.Classes.Len()), "classes (the class table, with field names) are not kept; nodes keep their names")
	}
	out.SetSection(v8ir.DefaultSection(out, ir.SnapshotName(src, s)))
	if traceIDs := c.fuchsiaTraces(out); traceIDs != nil {
		// Node 20's field order: trace_node_id before detachedness.
		v8ir.SetNodeFields(&v8ir.Of(out).Header, out.NodeKinds, v8ir.NodeTraceNodeID, v8ir.NodeDetachedness)
		v8ir.Of(out).NodeExtra = append([]v8ir.Field{{Name: v8ir.NodeTraceNodeID, Values: *traceIDs}}, v8ir.Of(out).NodeExtra...)
	}
	// Its allocation stacks it can hold: fuchsiaTraces.
	c.loss.Merge(ir.SectionLoss(src, s, target))
	c.loss.Merge(ir.SectionLoss(src, nil, target))
	if err := c.checkStringsSize(); err != nil {
		return nil, err
	}
	outFile := &ir.File{Format: v8ir.Format, FormatVersion: "converted from " + src.Format, Producer: src.Producer, Strings: c.strs.Strings, Snapshots: []*ir.Snapshot{out}}
	if err := outFile.Validate(); err != nil {
		return nil, fmt.Errorf("v8: conversion produced an invalid graph: %w", err)
	}
	return outFile, nil
}

// syntheticRoots builds the root the V8 format needs when the source's root
// is not node 0: a synthetic "" root with an element edge to the source's
// root and one to "(GC roots)", under which each root category is a
// synthetic node with element edges to its members.
func (c *converter) syntheticRoots() []v8Node {
	s, src := c.s, c.src
	const synthetic, element = 9, 1 // V8 type indices
	root := v8Node{kind: synthetic, name: ""}
	nodes := []v8Node{root}
	var cats []uint32
	members := map[uint32][]uint32{}
	for _, r := range s.Roots {
		if _, ok := members[r.Category]; !ok {
			cats = append(cats, r.Category)
		}
		members[r.Category] = append(members[r.Category], r.Node)
	}
	gcRoots := len(cats) > 0
	if gcRoots {
		c.loss.Add(ir.LossGCRoots, int64(len(s.Roots)), "GC roots are grouped by category under DevTools' (GC roots) node, as V8's own are; read back, they are that part of the graph, not a list of roots").
			WithExample(fmt.Sprintf("(%s)", src.String(cats[0])))
	}
	shift := uint32(1 + len(cats))
	if gcRoots {
		shift++
	}
	if s.Root != ir.NoNode {
		nodes[0].edges = append(nodes[0].edges, v8Edge{element, uint32(len(nodes[0].edges) + 1), s.Root + shift})
	}
	if gcRoots {
		nodes[0].edges = append(nodes[0].edges, v8Edge{element, uint32(len(nodes[0].edges) + 1), 1})
		g := v8Node{kind: synthetic, name: "(GC roots)"}
		for i := range cats {
			g.edges = append(g.edges, v8Edge{element, uint32(i + 1), uint32(2 + i)})
		}
		nodes = append(nodes, g)
		for _, cat := range cats {
			cn := v8Node{kind: synthetic, name: "(" + src.String(cat) + ")"}
			for j, m := range members[cat] {
				cn.edges = append(cn.edges, v8Edge{element, uint32(j + 1), m + shift})
			}
			nodes = append(nodes, cn)
		}
	}
	return nodes
}

// ids gives every node a unique odd id below 2^32, keeping the source's ids
// when they already are (V8 and DevTools match objects across snapshots by
// id, and count only odd ids as JS objects).
func (c *converter) ids(out *ir.Snapshot) {
	s := c.s
	n := s.Nodes.Len()
	sorted := make([]uint64, n)
	keep := true
	var example string // the first id that V8 cannot have
	for i := 0; i < n; i++ {
		id := s.Nodes.ID.At(i)
		sorted[i] = id
		if keep && (id%2 == 0 || id >= math.MaxUint32-2*uint64(c.shift)-2) {
			keep = false
			example = fmt.Sprintf("node %d: id %s", i, ir.FormatNodeID(s, id))
		}
	}
	if keep {
		slices.Sort(sorted)
		for i := 1; i < n; i++ {
			if sorted[i] == sorted[i-1] {
				keep = false
				example = fmt.Sprintf("id %s shared", ir.FormatNodeID(s, sorted[i]))
				break
			}
		}
	}
	nd := &out.Nodes
	if keep {
		next := uint64(1)
		if n > 0 {
			next = sorted[n-1] + 2
		}
		given := map[uint64]bool{}
		taken := func(id uint64) bool { _, ok := slices.BinarySearch(sorted, id); return ok || given[id] }
		for i := uint32(0); i < c.shift; i++ {
			// V8's own root is id 1 and (GC roots) id 3: use them when free.
			want := uint64(1 + 2*i)
			if taken(want) {
				want, next = next, next+2
			}
			given[want] = true
			nd.ID.Append(want)
		}
		for i := 0; i < n; i++ {
			nd.ID.Append(s.Nodes.ID.At(i))
		}
		return
	}
	c.loss.Add(ir.LossNodeIDs, int64(n), "node ids are not all unique, odd and below 2^32, as V8 ids are; nodes are renumbered 1, 3, 5, … in node order").
		WithExample(example)
	for i := 0; i < n+int(c.shift); i++ {
		nd.ID.Append(uint64(2*i + 1))
	}
}

// external records external sizes, which V8 has only as a total.
func (c *converter) external(out *ir.Snapshot) {
	s := c.s
	ext := ir.ExternalSize(s)
	if nodes := externalNodes(s); nodes > 0 {
		c.loss.Addf(ir.LossExternalSizes, int64(nodes), "nodes' external sizes are summed into extra_native_bytes (%d bytes)", ext)
	}
	// A source without external memory gets no extra_native_bytes, as V8
	// before 13 wrote none: a 0 would be a total the source never had.
	var lost []ir.Total
	hasExternal := ext > 0
	for _, t := range s.Totals {
		if ir.IsExternalTotal(t.Name) {
			hasExternal = true
		} else {
			lost = append(lost, t)
		}
	}
	if hasExternal {
		out.Totals = []ir.Total{{Name: v8ir.HeaderExtraNativeBytes, Value: ext}}
	}
	if len(lost) > 0 {
		c.loss.Add(ir.LossTotals, int64(len(lost)), "totals have no place in a V8 snapshot").WithExample(listTotals(lost))
	}
}

// listTotals lists totals as "name=value, ..." for a loss example.
func listTotals(ts []ir.Total) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Name + "=" + strconv.FormatUint(t.Value, 10)
	}
	return strings.Join(parts, ", ")
}

// externalNodes counts the nodes of s with an external size.
func externalNodes(s *ir.Snapshot) int {
	n := 0
	for i := 0; i < s.Nodes.ExternalSize.Len(); i++ {
		if s.Nodes.ExternalSize.At(i) > 0 {
			n++
		}
	}
	return n
}

// checkStringsSize keeps the strings section within what DevTools can parse
// as one JS string, shortening long names when needed.
func (c *converter) checkStringsSize() error {
	// Written in the compact layout with V8's escapes, as converted heaps
	// are; the margin is for what DevTools' own parsing adds around it.
	size := func() int { return v8ir.StringsUnits(c.strs.Strings, v8ir.LayoutCompact, v8ir.EscapeV8) }
	limit := v8ir.MaxStringsUnits * 9 / 10
	if size() <= limit {
		return nil
	}
	// Shorter and shorter until the section fits; the report counts each
	// name cut once, at the length it ends with.
	cut := make([]bool, len(c.strs.Strings))
	for _, cap := range []int{256, 64, 16} {
		for i, s := range c.strs.Strings {
			if t := truncateUnits(s, cap); len(t) < len(s) {
				c.strs.Strings[i], cut[i] = t, true
			}
		}
		if size() <= limit {
			n := 0
			for _, x := range cut {
				if x {
					n++
				}
			}
			c.loss.Addf(ir.LossTruncatedNames, int64(n), "names are cut to %d UTF-16 units: the strings section would exceed what DevTools can load (%d UTF-16 units)", cap, v8ir.MaxStringsUnits)
			return nil
		}
	}
	return fmt.Errorf("v8: %d strings are more than DevTools can load even with names cut short", len(c.strs.Strings))
}
