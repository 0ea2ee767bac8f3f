// Package irtest generates random, valid heapconv IR files for tests.
//
// Random(seed, opts) is deterministic: the same seed and options give the same
// file, so a failing seed can be replayed. Every file it returns passes
// (*ir.File).Validate. Options choose what the graph holds, so that each
// format's tests can ask for exactly what the format can carry:
//
//   - node count range and out-degree;
//   - whether node 0 is the root (V8 needs the root first; when it is not,
//     devtools.Convert puts a synthetic root in front);
//   - a class table with field names and a node class column;
//   - per-node external sizes, sparse primitive values, GC roots grouped by
//     category, several snapshots sharing the string and class tables;
//   - V8's node and edge kind names, made-up names, or both;
//   - unique odd ids below 2^32 (V8's) or arbitrary 64-bit ids;
//   - strings with non-ASCII, astral (4-byte UTF-8) and control characters
//     and lone UTF-16 surrogates (WTF-8 bytes ED A0 80 .. ED BF BF);
//   - a V8 section (v8ir.Snapshot: header and key list, compact or rows
//     layout, V8 or raw escaping, extra node and edge columns such as
//     trace_node_id and detachedness, allocation traces, locations), so that
//     the V8 writer's byte path runs on random data.
//
// V8Shaped returns the options under which a graph survives the V8 format
// exactly as ir.GraphDiff compares graphs.
package irtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// IDStyle says how node ids are chosen.
type IDStyle uint8

const (
	// IDsV8 gives unique odd ids below 2^32 (V8's own ids), increasing with
	// random gaps, so that devtools.Convert keeps them.
	IDsV8 IDStyle = iota
	// IDsAny gives arbitrary 64-bit ids: even, repeated, zero and huge ones.
	IDsAny
)

// KindStyle says which node and edge kind names the tables hold.
type KindStyle uint8

const (
	// KindsV8 uses ir.V8NodeKinds and ir.V8EdgeKinds.
	KindsV8 KindStyle = iota
	// KindsCustom uses made-up names only; some made-up edge kinds are named
	// by index.
	KindsCustom
	// KindsMixed uses V8's tables followed by made-up names.
	KindsMixed
)

// StringFeatures is a set of character classes random strings may contain
// beyond printable ASCII (which always includes '"', '\\' and '/').
type StringFeatures uint8

const (
	NonASCII       StringFeatures = 1 << iota // 2- and 3-byte UTF-8 (é, 日本, U+2028)
	Astral                                    // 4-byte UTF-8 (😀, U+10FFFF)
	Control                                   // U+0000..U+001F and U+007F
	LoneSurrogates                            // WTF-8 encoded lone surrogates
	// AllStrings is every feature.
	AllStrings = NonASCII | Astral | Control | LoneSurrogates
)

// Options choose what a random file holds. The zero value gives one
// snapshot of 0 to 64 nodes with V8 kind names and ids, a root at a node
// other than 0 (or none), and plain ASCII strings.
type Options struct {
	// MinNodes and MaxNodes bound each snapshot's node count (inclusive).
	// MaxNodes 0 means 64; MinNodes 0 allows empty snapshots (except with
	// V8, whose files need a root node).
	MinNodes, MaxNodes int
	// MaxOutDegree bounds the edges of one node (default 4).
	MaxOutDegree int

	// RootFirst makes node 0 the root. Otherwise the root is another node
	// or ir.NoNode.
	RootFirst bool
	// Classes adds a class table (names, libraries, field names) and the
	// node class column.
	Classes bool
	// ExternalSizes adds the per-node external size column.
	ExternalSizes bool
	// Values adds sparse primitive values of every kind.
	Values bool
	// GCRoots adds GC roots in a few categories (a node may be in several).
	GCRoots bool
	// Totals adds named whole-snapshot totals.
	Totals bool
	// Snapshots is the number of snapshots (default 1).
	Snapshots int

	Kinds KindStyle
	IDs   IDStyle
	// BigSizes allows self and external sizes of 2^32 and more.
	BigSizes bool
	// Strings lists the character classes strings may contain.
	Strings StringFeatures
	// MaxStringUnits bounds a random string's length in UTF-16 units
	// (default 40).
	MaxStringUnits int

	// V8, when set, attaches a V8 section to every snapshot and shapes the
	// snapshot as the V8 reader would have produced it: the root is node 0,
	// edge kinds are named by index exactly when ir.EdgeKindIndexed says so,
	// and Totals hold extra_native_bytes when the header has it. Kinds, IDs
	// and BigSizes still apply (a V8 file holds any 64-bit number).
	V8 *V8Options

	// Dart, when set, makes a one-snapshot file shaped as the Dart reader
	// produces it (see ir/dart/snapshot.go); only MinNodes, MaxNodes, MaxOutDegree,
	// Strings and MaxStringUnits apply.
	Dart *DartOptions
	// MoarVM, when set, makes the file RandomMoarVM makes.
	MoarVM *MoarVMOptions
	// Fuchsia, when set, makes the file RandomFuchsia makes.
	Fuchsia *FuchsiaOptions
}

// V8Options describe the V8 section Random attaches.
type V8Options struct {
	// Layout is v8ir.LayoutCompact or v8ir.LayoutRows.
	Layout v8ir.Layout
	// Escape is v8ir.EscapeV8 or v8ir.EscapeRaw.
	Escape v8ir.Escape
	// TraceNodeID and Detachedness add those node columns (V8's extras;
	// detachedness holds 0, 1 or 2).
	TraceNodeID, Detachedness bool
	// EdgeExtra adds an edge column V8 does not have (other producers).
	EdgeExtra bool
	// Trace fills trace_function_infos, trace_tree and samples (allocation
	// tracking); otherwise they are empty, as V8 writes them.
	Trace bool
	// Locations fills the locations array.
	Locations bool
	// ExtraNativeBytes adds the header's extra_native_bytes (V8 ≥ 13).
	ExtraNativeBytes bool
	// ExtraKeys adds a header key and a top-level key V8 does not write
	// (other producers), the top-level one just before "strings".
	ExtraKeys bool
	// ShuffleFields permutes meta.node_fields and meta.edge_fields after
	// "type" (readers and DevTools look fields up by name; the V8 reader
	// needs "type" first, see the V8 section code).
	ShuffleFields bool
}

// V8Shaped returns options for graphs the V8 format holds exactly (as
// ir.GraphDiff compares them) whether they are written through their V8
// section or through devtools.Convert: the root is node 0, V8's kind
// names, unique odd ids below 2^32, sizes below 2^32, and short names.
func V8Shaped(minNodes, maxNodes int) Options {
	return Options{MinNodes: max(minNodes, 1), MaxNodes: maxNodes, RootFirst: true, Kinds: KindsV8, IDs: IDsV8,
		Strings: AllStrings}
}

// Everything returns options that turn on every feature of the IR.
func Everything(minNodes, maxNodes int) Options {
	return Options{MinNodes: minNodes, MaxNodes: maxNodes, Classes: true, ExternalSizes: true, Values: true,
		GCRoots: true, Totals: true, Snapshots: 3, Kinds: KindsMixed, IDs: IDsAny, BigSizes: true,
		Strings: AllStrings}
}

// Random returns a random valid file built from seed and opts.
func Random(seed int64, opts Options) *ir.File {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), o: opts, seed: seed}
	g.defaults()
	if opts.MoarVM != nil {
		return RandomMoarVM(seed, opts, *opts.MoarVM)
	}
	if opts.Fuchsia != nil {
		return RandomFuchsia(seed, opts, *opts.Fuchsia)
	}
	var f *ir.File
	if opts.Dart != nil {
		f = g.dartFile()
	} else {
		f = g.file()
	}
	if err := f.Validate(); err != nil {
		panic(fmt.Sprintf("irtest: generated an invalid file (seed %d): %v", seed, err))
	}
	return f
}

type gen struct {
	r    *rand.Rand
	o    Options
	seed int64
	f    *ir.File
}

func (g *gen) defaults() {
	o := &g.o
	if o.MaxNodes <= 0 {
		o.MaxNodes = 64
	}
	if o.MinNodes < 0 {
		o.MinNodes = 0
	}
	if o.MinNodes > o.MaxNodes {
		o.MinNodes = o.MaxNodes
	}
	if o.MaxOutDegree <= 0 {
		o.MaxOutDegree = 4
	}
	if o.Snapshots <= 0 {
		o.Snapshots = 1
	}
	if o.MaxStringUnits <= 0 {
		o.MaxStringUnits = 40
	}
	if o.V8 != nil {
		o.RootFirst = true
		if o.MinNodes < 1 {
			o.MinNodes = 1 // a V8 file needs its root
		}
	}
}

// intn returns a random int in [0, n).
func (g *gen) intn(n int) int { return g.r.IntN(n) }

// chance returns true with probability 1/n.
func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g *gen) file() *ir.File {
	f := &ir.File{Format: "irtest", FormatVersion: fmt.Sprintf("irtest seed %d", g.seed),
		Producer: "heapconv irtest"}
	if g.o.V8 != nil {
		f.Format = v8ir.Format
	}
	g.f = f
	// V8 files start their strings with "<dummy>" and "" (the root's name).
	f.Strings = []string{"<dummy>", ""}
	nStr := 8 + g.intn(8) + g.o.MaxNodes/2
	for len(f.Strings) < nStr {
		if g.chance(12) && len(f.Strings) > 2 {
			f.Strings = append(f.Strings, f.Strings[g.intn(len(f.Strings))]) // duplicates are allowed
			continue
		}
		f.Strings = append(f.Strings, g.str())
	}
	if g.o.Classes {
		g.classes()
	}
	for i := 0; i < g.o.Snapshots; i++ {
		f.Snapshots = append(f.Snapshots, g.snapshot())
	}
	return f
}

// str returns a random WTF-8 string of at most MaxStringUnits UTF-16 units.
func (g *gen) str() string {
	var b strings.Builder
	units := 0
	n := g.intn(g.o.MaxStringUnits + 1)
	const ascii = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _$.:<>{}[]()\"\\/'@#,-"
	nonASCII := []string{"é", "ß", "Ω", "日本", "\u2028", "\u00a0", "ÿ", "\ufffd", "\u0800", "\uffff"}
	astral := []string{"😀", "𝄞", "\U00010000", "\U0010ffff", "🎉"}
	for units < n {
		var piece string
		switch k := g.intn(10); {
		case k == 0 && g.o.Strings&NonASCII != 0:
			piece = nonASCII[g.intn(len(nonASCII))]
		case k == 1 && g.o.Strings&Astral != 0:
			piece = astral[g.intn(len(astral))]
		case k == 2 && g.o.Strings&Control != 0:
			c := byte(g.intn(0x21))
			if c == 0x20 {
				c = 0x7f
			}
			piece = string([]byte{c})
		case k == 3 && g.o.Strings&LoneSurrogates != 0:
			// A lone surrogate, then an ASCII letter: a high surrogate
			// directly followed by a low one would be a pair, which WTF-8
			// does not allow.
			r := 0xD800 + g.intn(0x800)
			piece = string(ir.AppendWTF8(nil, rune(r))) + "x"
		default:
			piece = string(ascii[g.intn(len(ascii))])
		}
		u := 0
		for _, r := range piece {
			u++
			if r > 0xFFFF {
				u++
			}
		}
		if units+u > g.o.MaxStringUnits {
			break
		}
		units += u
		b.WriteString(piece)
	}
	return b.String()
}

// strIdx returns a random string index.
func (g *gen) strIdx() uint32 { return uint32(g.intn(len(g.f.Strings))) }

// newStr appends s to the string table and returns its index.
func (g *gen) newStr(s string) uint32 {
	g.f.Strings = append(g.f.Strings, s)
	return uint32(len(g.f.Strings) - 1)
}

func (g *gen) classes() {
	c := &g.f.Classes
	n := 1 + g.intn(8+g.o.MaxNodes/8)
	c.FirstField = []uint32{0}
	for i := 0; i < n; i++ {
		c.Name = append(c.Name, g.strIdx())
		c.Library = append(c.Library, g.strIdx())
		for k := g.intn(4); k > 0; k-- {
			c.FieldName = append(c.FieldName, g.strIdx())
		}
		c.FirstField = append(c.FirstField, uint32(len(c.FieldName)))
	}
}

// kindTables returns the node and edge kind tables.
func (g *gen) kindTables() ([]string, []ir.EdgeKind) {
	var nk []string
	var ek []ir.EdgeKind
	if g.o.Kinds != KindsCustom {
		nk = slices.Clone(ir.V8NodeKinds)
		ek = slices.Clone(ir.V8EdgeKinds)
	}
	if g.o.Kinds != KindsV8 {
		for i, k := 0, 1+g.intn(5); i < k; i++ {
			nk = append(nk, fmt.Sprintf("custom node kind %d %s", i, g.str()))
		}
		for i, k := 0, 1+g.intn(4); i < k; i++ {
			ek = append(ek, ir.EdgeKind{Name: fmt.Sprintf("custom edge kind %d", i), Indexed: g.chance(3)})
		}
	}
	if g.o.V8 != nil {
		for i := range ek {
			ek[i].Indexed = ir.EdgeKindIndexed(ek[i].Name)
		}
	}
	return nk, ek
}

// size returns a random size: mostly small, sometimes zero, sometimes wide.
func (g *gen) size() uint64 {
	switch g.intn(8) {
	case 0:
		return 0
	case 1:
		if g.o.BigSizes {
			return g.r.Uint64()
		}
		return uint64(g.r.Uint32())
	case 2:
		return uint64(g.intn(256))
	}
	return uint64(8 + 8*g.intn(64))
}

// column fills a column of n sizes; sometimes all zero, all one byte wide,
// or mixed, so that every Uints width (0, 1, 4, 8) occurs.
func (g *gen) column(n int, val func() uint64) ir.Uints {
	var c ir.Uints
	switch g.intn(5) {
	case 0:
		c.AppendZeros(n)
	case 1:
		for i := 0; i < n; i++ {
			c.Append(uint64(g.intn(256)))
		}
	default:
		for i := 0; i < n; i++ {
			c.Append(val())
		}
	}
	return c
}

func (g *gen) snapshot() *ir.Snapshot {
	o := &g.o
	s := &ir.Snapshot{Name: g.strIdx(), CaptureTime: g.r.Int64N(1 << 62), Root: ir.NoNode}
	if g.chance(3) {
		s.CaptureTime = 0
	}
	s.NodeKinds, s.EdgeKinds = g.kindTables()
	n := o.MinNodes + g.intn(o.MaxNodes-o.MinNodes+1)

	nd := &s.Nodes
	for i := 0; i < n; i++ {
		nd.Kind = append(nd.Kind, uint8(g.intn(len(s.NodeKinds))))
		nd.Name = append(nd.Name, g.strIdx())
	}
	if n > 0 && o.V8 != nil {
		// V8's root: synthetic "".
		nd.Kind[0] = uint8(max(slices.Index(s.NodeKinds, ir.KindSynthetic), 0))
		nd.Name[0] = 1
	}
	g.ids(s, n)
	nd.SelfSize = g.column(n, g.size)
	if o.ExternalSizes {
		nd.ExternalSize = g.column(n, g.size)
	}
	if o.Classes {
		nc := g.f.Classes.Len()
		for i := 0; i < n; i++ {
			c := uint32(0)
			if !g.chance(4) {
				c = uint32(1 + g.intn(nc))
			}
			nd.Class = append(nd.Class, c)
		}
	}

	// Edges, grouped by source node.
	ed := &s.Edges
	nd.FirstEdge = []uint32{0}
	for i := 0; i < n; i++ {
		for k := g.intn(o.MaxOutDegree + 1); k > 0; k-- {
			kind := uint8(g.intn(len(s.EdgeKinds)))
			ed.Kind = append(ed.Kind, kind)
			if s.EdgeKinds[kind].Indexed {
				name := uint32(g.intn(16))
				if g.chance(8) {
					name = g.r.Uint32()
				}
				ed.Name = append(ed.Name, name)
			} else {
				ed.Name = append(ed.Name, g.strIdx())
			}
			ed.Target = append(ed.Target, uint32(g.intn(n)))
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}

	switch {
	case n == 0:
	case o.RootFirst:
		s.Root = 0
	case n > 1 && !g.chance(4):
		s.Root = uint32(1 + g.intn(n-1))
	}
	if o.GCRoots && n > 0 {
		var cats []uint32
		for k := 1 + g.intn(4); k > 0; k-- {
			cats = append(cats, g.newStr(fmt.Sprintf("%s roots %d", g.str(), k)))
		}
		for k := g.intn(2 + n/4); k > 0; k-- {
			s.Roots = append(s.Roots, ir.RootRef{Node: uint32(g.intn(n)), Category: cats[g.intn(len(cats))]})
		}
	}
	if o.Values {
		g.values(s, n)
	}
	if o.Totals {
		s.Totals = []ir.Total{{Name: "capacity", Value: g.r.Uint64()}, {Name: "external_size", Value: uint64(g.r.Uint32())}}
	}
	if o.V8 != nil {
		g.v8(s)
	}
	return s
}

func (g *gen) ids(s *ir.Snapshot, n int) {
	id := &s.Nodes.ID
	switch g.o.IDs {
	case IDsV8:
		// Increasing odd ids with gaps, as V8 assigns them; the largest
		// stays far below 2^32.
		next := uint64(1)
		for i := 0; i < n; i++ {
			id.Append(next)
			next += 2 * uint64(1+g.intn(4))
			if g.chance(64) {
				next += 2 * uint64(g.r.Uint32()>>12)
			}
		}
	default:
		for i := 0; i < n; i++ {
			switch {
			case i > 0 && g.chance(8):
				id.Append(id.At(g.intn(i))) // a duplicate
			case g.chance(4):
				id.Append(g.r.Uint64())
			default:
				id.Append(uint64(g.intn(1 << 20)))
			}
		}
	}
}

func (g *gen) values(s *ir.Snapshot, n int) {
	v := &s.Values
	for i := 0; i < n; i++ {
		if !g.chance(3) {
			continue
		}
		k := ir.ValueKind(1 + g.intn(6))
		var bits, aux uint64
		switch k {
		case ir.ValueString:
			bits = uint64(g.strIdx())
			if g.chance(3) {
				aux = uint64(1000 + g.intn(1<<20))
			}
		case ir.ValueInt:
			bits = g.r.Uint64()
		case ir.ValueFloat:
			fs := []float64{0, -0.0, 1.5, math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64, g.r.NormFloat64()}
			bits = math.Float64bits(fs[g.intn(len(fs))])
		case ir.ValueBool:
			bits = uint64(g.intn(2))
		case ir.ValueLength:
			bits = uint64(g.intn(1 << 16))
		case ir.ValueNull:
		}
		v.Node = append(v.Node, uint32(i))
		v.Kind = append(v.Kind, k)
		v.Bits = append(v.Bits, bits)
		v.Aux = append(v.Aux, aux)
	}
}

// v8 attaches a V8 section whose meta matches the snapshot's tables.
func (g *gen) v8(s *ir.Snapshot) {
	vo := g.o.V8
	n, m := s.Nodes.Len(), s.Edges.Len()
	v := &v8ir.Snapshot{Layout: vo.Layout, Escape: vo.Escape}

	nodeFields := []string{"type", "name", "id", "self_size", "edge_count"}
	if vo.TraceNodeID {
		v.NodeExtra = append(v.NodeExtra, v8ir.Field{Name: "trace_node_id", Values: g.column(n, func() uint64 { return uint64(g.intn(64)) })})
		nodeFields = append(nodeFields, "trace_node_id")
	}
	if vo.Detachedness {
		v.NodeExtra = append(v.NodeExtra, v8ir.Field{Name: "detachedness", Values: g.column(n, func() uint64 { return uint64(g.intn(3)) })})
		nodeFields = append(nodeFields, "detachedness")
	}
	edgeFields := []string{"type", "name_or_index", "to_node"}
	if vo.EdgeExtra {
		v.EdgeExtra = append(v.EdgeExtra, v8ir.Field{Name: "irtest_edge_flags", Values: g.column(m, func() uint64 { return g.r.Uint64() >> g.intn(64) })})
		edgeFields = append(edgeFields, "irtest_edge_flags")
	}
	if vo.ShuffleFields {
		// "type" stays first: heapconv's V8 reader takes the type name lists
		// from node_types[0] and edge_types[0], where V8 writes them.
		nf, ef := nodeFields[1:], edgeFields[1:]
		g.r.Shuffle(len(nf), func(i, j int) { nf[i], nf[j] = nf[j], nf[i] })
		g.r.Shuffle(len(ef), func(i, j int) { ef[i], ef[j] = ef[j], ef[i] })
	}
	// Extra columns are kept in meta order, as the reader does.
	slices.SortStableFunc(v.NodeExtra, func(a, b v8ir.Field) int {
		return slices.Index(nodeFields, a.Name) - slices.Index(nodeFields, b.Name)
	})

	var functions int
	// An empty trace_tree ("[]") is the top-level count 0, as the V8
	// reader stores it.
	v.TraceTree.Append(0)
	if vo.Trace {
		functions = 1 + g.intn(6)
		for i := 0; i < functions; i++ { // function_id, name, script_name, script_id, line, column
			v.TraceFunctionInfos.Append(uint64(i + 1))
			v.TraceFunctionInfos.Append(uint64(g.strIdx()))
			v.TraceFunctionInfos.Append(uint64(g.strIdx()))
			v.TraceFunctionInfos.Append(uint64(g.intn(100)))
			v.TraceFunctionInfos.Append(uint64(g.intn(1000)))
			v.TraceFunctionInfos.Append(uint64(g.intn(120)))
		}
		budget := 1 + g.intn(24)
		id := uint64(1)
		var tree func(depth int)
		tree = func(depth int) {
			slot := v.TraceTree.Len()
			v.TraceTree.Append(0)
			count := 0
			for budget > 0 && (depth == 0 && count == 0 || g.chance(2)) {
				budget--
				count++
				v.TraceTree.Append(id) // id
				id++
				v.TraceTree.Append(uint64(g.intn(functions))) // function_info_index
				v.TraceTree.Append(uint64(g.intn(50)))        // count
				v.TraceTree.Append(uint64(g.intn(50) * 16))   // size
				if depth < 6 && g.chance(2) {
					tree(depth + 1)
				} else {
					v.TraceTree.Append(0) // no children
				}
			}
			v.TraceTree.Set(slot, uint64(count))
		}
		v.TraceTree = ir.Uints{}
		tree(0)
		ts := uint64(0)
		for k := 1 + g.intn(5); k > 0; k-- {
			ts += uint64(g.intn(100000))
			v.Samples.Append(ts)
			v.Samples.Append(uint64(1 + 2*g.intn(n+1)))
		}
	}
	if vo.Locations && n > 0 {
		for k := g.intn(1 + n/2); k > 0; k-- {
			v.Locations.Append(uint64(g.intn(n))) // object_index, as a node ordinal
			v.Locations.Append(uint64(g.intn(300)))
			v.Locations.Append(uint64(g.intn(5000)))
			v.Locations.Append(uint64(g.intn(200)))
		}
	}

	// node_types and edge_types describe the fields in meta order: the
	// kind names for "type", a type word for the others.
	ntypes := ir.JSON{Kind: ir.JSONArray}
	for _, f := range nodeFields {
		switch f {
		case "type":
			ntypes.Elems = append(ntypes.Elems, ir.JSONStrs(s.NodeKinds...))
		case "name":
			ntypes.Elems = append(ntypes.Elems, ir.JSONStr("string"))
		default:
			ntypes.Elems = append(ntypes.Elems, ir.JSONStr("number"))
		}
	}
	edgeNames := make([]string, len(s.EdgeKinds))
	for i, k := range s.EdgeKinds {
		edgeNames[i] = k.Name
	}
	etypes := ir.JSON{Kind: ir.JSONArray}
	for _, f := range edgeFields {
		switch f {
		case "type":
			etypes.Elems = append(etypes.Elems, ir.JSONStrs(edgeNames...))
		case "name_or_index":
			etypes.Elems = append(etypes.Elems, ir.JSONStr("string_or_number"))
		case "to_node":
			etypes.Elems = append(etypes.Elems, ir.JSONStr("node"))
		default:
			etypes.Elems = append(etypes.Elems, ir.JSONStr("number"))
		}
	}
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set("node_fields", ir.JSONStrs(nodeFields...))
	meta.Set("node_types", ntypes)
	meta.Set("edge_fields", ir.JSONStrs(edgeFields...))
	meta.Set("edge_types", etypes)
	meta.Set("trace_function_info_fields", ir.JSONStrs(v8ir.TraceFunctionInfoFields...))
	meta.Set("trace_node_fields", ir.JSONStrs(v8ir.TraceNodeFields...))
	meta.Set("sample_fields", ir.JSONStrs(v8ir.SampleFields...))
	meta.Set("location_fields", ir.JSONStrs(v8ir.LocationFields...))
	h := ir.JSON{Kind: ir.JSONObject}
	h.Set("meta", meta)
	h.Set("node_count", ir.JSONNum(int64(n)))
	h.Set("edge_count", ir.JSONNum(int64(m)))
	h.Set("trace_function_count", ir.JSONNum(int64(functions)))
	if vo.ExtraNativeBytes {
		x := uint64(g.r.Uint32())
		h.Set("extra_native_bytes", ir.JSONNum(int64(x)))
		s.Totals = []ir.Total{{Name: "extra_native_bytes", Value: x}}
	} else {
		s.Totals = nil
	}
	if vo.ExtraKeys {
		h.Set("title", ir.JSONStr(fmt.Sprintf("irtest seed %d", g.seed)))
	}
	v.Header = h

	for _, k := range v8ir.Keys {
		if k != v8ir.KeyStrings { // last, after the extra keys
			v.Keys = append(v.Keys, v8ir.Key{Name: k})
		}
	}
	if vo.ExtraKeys {
		extra := ir.JSON{Kind: ir.JSONObject}
		extra.Set("producer", ir.JSONStr("irtest"))
		extra.Set("values", ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{
			ir.JSONNum(-7), {Kind: ir.JSONFloat, Float: 2.5}, {Kind: ir.JSONBool, Bool: true}, {}, ir.JSONStr(g.str()),
		}})
		v.Keys = append(v.Keys, v8ir.Key{Name: "irtest_extra", Value: &extra})
	}
	v.Keys = append(v.Keys, v8ir.Key{Name: v8ir.KeyStrings})
	s.SetSection(v)
}
