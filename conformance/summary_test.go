package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// TestV8Summary: for every V8 fixture, `heapconv info --by retained`
// (analysis.SummarizeBy) shows DevTools' Summary view row for row: the same
// classes (plain objects named by their inferred interface, detached DOM
// nodes as "Detached <tag>", object classes split by allocation location),
// and per class the same count, self size and retained size.
func TestV8Summary(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, glob := range []string{"testdata/v8/*.heapsnapshot.zst", "testdata/v8/small/*.heapsnapshot"} {
		p, err := filepath.Glob(filepath.Join(moduleRoot, glob))
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		paths = append(paths, p...)
	}
	o := newOracle(t.TempDir())
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for _, path := range paths {
		name := fixtureName(path)
		if strings.Contains(path, "/small/") {
			name = "small-" + name
		}
		inputs = append(inputs, input{name, loadFixture(t, path)})
	}
	// Heaps made to exercise the rules the fixtures barely touch: many
	// shapes near the thresholds, long and escaped property names, DOM
	// nodes in every state, objects at several locations.
	for seed := uint64(1); seed <= 3; seed++ {
		inputs = append(inputs, input{fmt.Sprintf("crafted-%d", seed), craftedV8(seed)})
	}
	for _, in := range inputs {
		name := in.name
		f := read(t, formatByName(v8ir.Format), in.data)
		file := o.file(t, name, in.data)
		o.expect(name, func(t *testing.T, sum func(string) *summary) {
			dev := sum(file)
			if !loaded(t, dev) {
				return
			}
			compareSummary(t, dev, f)
		})
	}
	t.Run("devtools", o.run)
}

// craftedV8 writes a V8 heap snapshot that puts DevTools' Summary rules to
// work: plain objects of popular, rare and near-threshold shapes (property
// names with commas, quotes, braces, control characters, a lone surrogate,
// "__proto__", an empty name, names long enough to cut the interface name,
// repeated properties), native nodes attached, detached and unknown linked
// through every edge kind and through JavaScript objects, objects of one
// name at several allocation locations, and arrays folded into owners.
func craftedV8(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	type edge struct {
		kind string
		name any // string, or int for element and hidden edges
		to   int
	}
	type node struct {
		kind, name string
		size, det  int
		edges      []edge
	}
	var nodes []node
	add := func(kind, name string, size int) int {
		nodes = append(nodes, node{kind: kind, name: name, size: size})
		return len(nodes) - 1
	}
	link := func(from int, kind string, name any, to int) {
		nodes[from].edges = append(nodes[from].edges, edge{kind, name, to})
	}
	root := add("synthetic", "", 0)
	gcRoots := add("synthetic", "(GC roots)", 0)
	domTrees := add("synthetic", "(Document DOM trees)", 0)
	global := add("object", "Window", 48)
	link(root, "shortcut", "window", global)
	link(root, "element", 1, gcRoots)
	link(root, "element", 2, domTrees)
	link(gcRoots, "element", 1, global)
	var leaves []int
	for i := range 20 {
		leaves = append(leaves, add("string", fmt.Sprintf("s%d", i), 16+r.IntN(32)))
		link(global, "element", i, leaves[i])
	}
	leaf := func() int { return leaves[r.IntN(len(leaves))] }

	long := func(c string) string { return strings.Repeat(c, 28) }
	lone := string(ir.AppendWTF8(nil, 0xD800))
	shapes := [][]string{
		{"id", "label", "tags", "el"},
		{"el", "id", "label", "tags"}, // the same properties in another order
		{"id", "label"},
		{"x", "y"},
		{"x", "y", "z"},
		{"a,b", `"q"`, "{c}", "it's"},
		{"line\nbreak\u0001", lone + ",s"},
		{"", "x"}, // named "{x}" as {x} is
		{"x"},
		{long("a"), long("b"), long("c"), long("d"), long("e")},
		{long("a"), long("b"), long("c"), long("d"), "other"},
		{long("a"), long("b"), long("c"), strings.Repeat("f", 31), "g"}, // "f…f" ends at exactly 120 units
		{long("a"), long("b"), long("c"), strings.Repeat("h", 32)},      // "h…h" would end at 121
		{"", strings.Repeat("m", 100), strings.Repeat("n", 19), "o"},    // no separator after the empty name
		{"__proto__", "id", "label"},
		{"id", "id", "label"},
		{"rare1", "rare2"},
		{"rare3"},
	}
	// Popular shapes first; the last ones appear a few times each, around
	// the two thresholds (2 objects, one plain object in 1000).
	weights := []int{40, 25, 30, 20, 15, 10, 8, 6, 6, 8, 5, 5, 5, 4, 6, 4, 0, 0}
	plain := 300 + r.IntN(300)
	if seed == 3 {
		plain = 2600 // one in 1000 is more than 2
	}
	pick := func() []string {
		total := 0
		for _, w := range weights {
			total += w
		}
		k := r.IntN(total)
		for i, w := range weights {
			if k < w {
				return shapes[i]
			}
			k -= w
		}
		return shapes[0]
	}
	pool := []string{"id", "label", "tags", "el", "x", "y", "z", "w", "name", "{}", "k,v", long("q")}
	var objects []int
	for i := range plain {
		o := add("object", "Object", 16+8*r.IntN(6))
		objects = append(objects, o)
		link(global, "property", fmt.Sprintf("o%d", i), o)
		var props []string
		switch {
		case i < 3:
			props = shapes[len(shapes)-2] // exactly 3 objects
		case i < 5:
			props = shapes[len(shapes)-1] // exactly 2
		case r.IntN(5) == 0: // a shape of its own
			for _, p := range pool {
				if r.IntN(3) == 0 {
					props = append(props, p)
				}
			}
			r.Shuffle(len(props), func(a, b int) { props[a], props[b] = props[b], props[a] })
		default:
			props = pick()
		}
		for _, p := range props {
			link(o, "property", p, leaf())
			if r.IntN(8) == 0 {
				link(o, "internal", "map", leaf()) // not a property
			}
		}
		if r.IntN(6) == 0 {
			a := add("array", "", 32+8*r.IntN(8))
			link(o, "internal", "elements", a)
			if r.IntN(3) == 0 && len(objects) > 1 { // shared: not folded
				link(objects[r.IntN(len(objects)-1)], "internal", "elements", a)
			}
		}
		if r.IntN(10) == 0 {
			link(o, "element", 0, leaf())
		}
		if r.IntN(30) == 0 {
			nodes[o].size = 0 // DevTools does not count it
		}
	}
	// Objects of one constructor, some at allocation locations.
	type located struct{ node, script, line, col int }
	var locations []located
	for i := range 40 {
		name := []string{"Foo", "Bar"}[i%2]
		o := add("object", name, 24)
		link(global, "property", fmt.Sprintf("c%d", i), o)
		switch k := r.IntN(4); k {
		case 0, 1:
			locations = append(locations, located{o, 7, 10 * k, 4})
		case 2:
			locations = append(locations, located{o, 7, 30, 1}, located{o, 9, 3, 2}) // the last entry counts
		}
	}
	// Plain objects and functions at locations: objects split, functions
	// do not.
	for i := range 10 {
		locations = append(locations, located{objects[i], 5, 1 + i%2, 0})
		f := add("closure", "fn", 32)
		link(global, "property", fmt.Sprintf("f%d", i), f)
		locations = append(locations, located{f, 5, i, 0})
	}
	// DOM nodes.
	tags := []string{`<div id="a" class="b">`, "<span>", "HTMLDivElement", "Text", "<p lang=en>", "system / ExternalStringData"}
	var natives []int
	for range 60 {
		n := add("native", tags[r.IntN(len(tags))], 40+8*r.IntN(4))
		nodes[n].det = []int{0, 0, 0, 1, 2, 2}[r.IntN(6)]
		natives = append(natives, n)
		link(global, "element", len(nodes[global].edges), n)
	}
	link(domTrees, "element", 1, natives[0])
	for range 120 {
		from, to := natives[r.IntN(len(natives))], natives[r.IntN(len(natives))]
		kind := []string{"element", "property", "internal", "hidden", "weak"}[r.IntN(5)]
		var name any = "child"
		if kind == "element" || kind == "hidden" {
			name = r.IntN(10)
		}
		link(from, kind, name, to)
	}
	// Each edge kind from an attached and from a detached node to a node
	// of unknown state, and on to one more; a node both reach.
	both := add("native", "<li>", 40)
	for _, kind := range []string{"context", "element", "property", "internal", "hidden", "shortcut", "weak"} {
		for _, st := range []int{1, 2} {
			from, to, next := add("native", "<ul class=a>", 40), add("native", "<li class=b>", 40), add("native", "HTMLLIElement", 40)
			nodes[from].det = st
			var name any = "child"
			if kind == "element" || kind == "hidden" {
				name = 1
			}
			link(from, kind, name, to)
			link(to, "element", 1, next)
			link(from, "element", 2, both)
			for _, n := range []int{from, to, next} {
				link(global, "element", len(nodes[global].edges), n)
			}
		}
	}
	// A JavaScript object with a state keeps its name.
	js := add("object", "Detachable", 24)
	nodes[js].det = 2
	link(global, "property", "js", js)
	for range 10 { // through a JavaScript wrapper, which does not pass the state on
		w := add("object", "Wrapper", 24)
		link(natives[r.IntN(len(natives))], "internal", "wrapper", w)
		link(w, "property", "node", natives[r.IntN(len(natives))])
	}

	// The file: strings interned in order of first use.
	strs := []string{""}
	index := map[string]int{"": 0}
	str := func(s string) int {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = len(strs)
		strs = append(strs, s)
		return len(strs) - 1
	}
	const nodeFields = 7
	kinds, edgeKinds := ir.V8NodeKinds, ir.V8EdgeKinds
	var b bytes.Buffer
	b.WriteString(`{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],`)
	b.WriteString(`"node_types":[[`)
	for i, k := range kinds {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", k)
	}
	b.WriteString(`],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[[`)
	for i, k := range edgeKinds {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", k.Name)
	}
	edgeCount := 0
	for _, n := range nodes {
		edgeCount += len(n.edges)
	}
	fmt.Fprintf(&b, `],"string_or_number","node"],"location_fields":["object_index","script_id","line","column"]},"node_count":%d,"edge_count":%d,"trace_function_count":0},`, len(nodes), edgeCount)
	b.WriteString("\n\"nodes\":[")
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,0,%d", slices.Index(kinds, n.kind), str(n.name), 2*i+1, n.size, len(n.edges), n.det)
	}
	b.WriteString("],\n\"edges\":[")
	first := true
	for _, n := range nodes {
		for _, e := range n.edges {
			if !first {
				b.WriteByte(',')
			}
			first = false
			name := 0
			switch v := e.name.(type) {
			case int:
				name = v
			case string:
				name = str(v)
			}
			k := slices.IndexFunc(edgeKinds, func(x ir.EdgeKind) bool { return x.Name == e.kind })
			fmt.Fprintf(&b, "%d,%d,%d", k, name, e.to*nodeFields)
		}
	}
	b.WriteString("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[")
	for i, l := range locations {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d", l.node*nodeFields, l.script, l.line, l.col)
	}
	b.WriteString("],\n\"strings\":[")
	for i, s := range strs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(ir.AppendJSONWTF8(nil, s))
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// summaryRow is one Summary row: count, self size, retained size.
type summaryRow struct{ count, self, retained int64 }

// summaryRows keys analysis.SummarizeBy's classes as summary.js keys DevTools'
// rows: by name, or, for a name that has several rows (one per allocation
// location), "scriptId,line,column,Name" and ",Name" for the row without a
// location.
func summaryRows(t *testing.T, f *ir.File) (rows map[string]summaryRow, ambiguous map[string]bool) {
	t.Helper()
	sum, err := analysis.SummarizeBy(f, f.Snapshots[0], -1, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	for _, c := range sum.TopClasses {
		named[c.Name]++
	}
	out := map[string]summaryRow{}
	ambiguous = map[string]bool{}
	for _, c := range sum.TopClasses {
		key := jsonName(c.Name)
		if named[c.Name] > 1 {
			key = "," + key
			if l := c.Location; l != nil {
				key = fmt.Sprintf("%d,%d,%d", l.ScriptID, l.Line, l.Column) + key
			}
		}
		if _, dup := out[key]; dup {
			// Names that differ only in lone surrogates, which JSON
			// decoding makes U+FFFD on both sides: not comparable.
			if !strings.ContainsRune(key, utf8.RuneError) {
				t.Errorf("two classes have the key %q", key)
			}
			ambiguous[key] = true
		}
		out[key] = summaryRow{int64(c.Count), int64(c.SelfSize), int64(*c.Retained)}
	}
	if uint64(len(sum.TopClasses)) != sum.Classes {
		t.Errorf("summary counts %d classes, lists %d", sum.Classes, len(sum.TopClasses))
	}
	return out, ambiguous
}

// compareSummary requires heapconv's Summary of f to be DevTools' dev,
// class for class.
func compareSummary(t *testing.T, dev *summary, f *ir.File) {
	t.Helper()
	got, ambiguous := summaryRows(t, f)
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range dev.Classes {
		keys[k] = true
	}
	for k := range ambiguous {
		delete(keys, k)
	}
	if len(ambiguous) > 0 {
		t.Logf("%d class names differ only in lone surrogates and are not compared", len(ambiguous))
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	equal, shown := 0, 0
	for _, k := range sorted {
		g, inGot := got[k]
		d, inDev := dev.Classes[k]
		w := summaryRow{d.Count, d.Self, d.MaxRet}
		var msg string
		switch {
		case !inGot:
			msg = fmt.Sprintf("class %q: DevTools %d objects, self %d, retained %d; not in heapconv's summary", k, w.count, w.self, w.retained)
		case !inDev:
			msg = fmt.Sprintf("class %q: heapconv %d objects, self %d, retained %d; not in DevTools' Summary", k, g.count, g.self, g.retained)
		case g != w:
			msg = fmt.Sprintf("class %q: heapconv %d objects, self %d, retained %d; DevTools %d, %d, %d", k, g.count, g.self, g.retained, w.count, w.self, w.retained)
		default:
			equal++
			continue
		}
		if shown++; shown <= 15 {
			t.Error(msg)
		}
	}
	if shown > 15 {
		t.Errorf("… and %d more classes differ", shown-15)
	}
	t.Logf("%d of %d classes equal (DevTools shows %d, heapconv %d)", equal, len(keys), len(dev.Classes), len(got))
}
