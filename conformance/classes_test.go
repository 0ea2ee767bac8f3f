package conformance

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// Classes through the formats that have them: a heap written in another
// format and read back keeps the classes its objects are counted under,
// and a writer that cannot keep one says so with a count that is exactly
// the objects it moved.

// nodeClass is the class node i is counted under: its class's label, else
// the one DevTools gives it (as analysis.NodeClass; the matrix's measure too).
func nodeClass(f *ir.File, s *ir.Snapshot, i int, labels []string) string {
	if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && int(s.Nodes.Class[i]) <= len(labels) {
		return labels[s.Nodes.Class[i]-1]
	}
	return analysis.ClassName(f, s, i)
}

// classCount is one class's objects and self size.
type classCount struct{ count, size uint64 }

// classesOf counts the nodes of snapshot k by the class they are counted
// under (nodeClass, a name qualified only where two classes with objects
// share it), leaving out synthetic nodes (ir.SyntheticNodes).
func classesOf(f *ir.File, k int) map[string]classCount {
	s := f.Snapshots[k]
	synthetic := ir.SyntheticNodes(f, s)
	labels := objectClassLabels(f, s, synthetic)
	out := map[string]classCount{}
	for i := 0; i < s.Nodes.Len(); i++ {
		if synthetic[i] {
			continue
		}
		c := out[nodeClass(f, s, i, labels)]
		c.count++
		c.size += s.Nodes.SelfSize.At(i)
		out[nodeClass(f, s, i, labels)] = c
	}
	return out
}

// classDiff lists the classes whose counts differ, at most 5.
func classDiff(want, got map[string]classCount) []string {
	var d []string
	for name, w := range want {
		if g := got[name]; g != w && len(d) < 5 {
			d = append(d, fmt.Sprintf("%q: %d objects of %d bytes, want %d of %d", name, g.count, g.size, w.count, w.size))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok && len(d) < 5 {
			d = append(d, fmt.Sprintf("%q: %d objects of %d bytes, not in the source", name, g.count, g.size))
		}
	}
	return d
}

// fixtures reads every fixture of the format, one snapshot a file.
func fixtures(t *testing.T, fm format) map[string]*ir.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
	if err != nil || len(paths) == 0 {
		t.Fatalf("%s: no fixtures", fm.name)
	}
	out := map[string]*ir.File{}
	for _, path := range paths {
		f := read(t, fm, loadFixture(t, path))
		for k := range f.Snapshots {
			g, err := f.Select(k)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%s#%d", fixtureName(path), k)] = g
		}
	}
	return out
}

func mustThrough(t *testing.T, fm format, f *ir.File) (*ir.File, ir.LossReport) {
	t.Helper()
	got, loss, err := through(fm, f)
	if err != nil {
		t.Fatalf("%s: %v", fm.name, err)
	}
	return got, loss
}

// devtoolsSizes sums DevTools' self sizes (arrays and hidden nodes folded
// into their one owner when the root has user roots) per class.
func devtoolsSizes(f *ir.File) map[string]uint64 {
	s := f.Snapshots[0]
	sizes := analysis.DevToolsSelfSizes(f, s)
	if sizes == nil {
		sizes = &s.Nodes.SelfSize
	}
	out := map[string]uint64{}
	for i := 0; i < s.Nodes.Len(); i++ {
		if x := sizes.At(i); x > 0 {
			out[analysis.ClassName(f, s, i)] += x
		}
	}
	return out
}

// namedEdges lists node i's edges that are not indexed, as "kind name".
func namedEdges(f *ir.File, s *ir.Snapshot, i int) []string {
	var out []string
	lo, hi := s.Nodes.EdgeRange(i)
	for e := lo; e < hi; e++ {
		if !s.EdgeKindOf(e).Indexed {
			out = append(out, s.EdgeKindOf(e).Name+" "+f.EdgeName(s, e))
		}
	}
	return out
}

// TestV8ClassesThroughDart: a V8 heap written as Dart and back shows
// DevTools the classes it had (objects by name, "(string)", "(system)",
// "Function", …), not "(system)" for every class without a Dart library:
// node by node the same kind, name and named edges (DevTools names plain
// objects by their properties) and every edge with its kind, name or index
// and target (hidden edges and elements out of place are fields of their
// index in Dart), the same root (DevTools folds arrays into their owners
// only below user roots), so the same self sizes per class.
func TestV8ClassesThroughDart(t *testing.T) {
	t.Parallel()
	v8, dart := formatByName(v8ir.Format), formatByName(dartir.Format)
	for name, f := range fixtures(t, v8) {
		d, _ := mustThrough(t, dart, f)
		back, _ := mustThrough(t, v8, d)
		want, got := classesOf(f, 0), classesOf(back, 0)
		if diff := classDiff(want, got); len(diff) > 0 {
			t.Errorf("%s: v8 → dart → v8: %d classes became %d:\n%s", name, len(want), len(got), strings.Join(diff, "\n"))
		}
		s, b := f.Snapshots[0], back.Snapshots[0]
		if b.Nodes.Len() != s.Nodes.Len() {
			t.Errorf("%s: %d nodes came back, want %d", name, b.Nodes.Len(), s.Nodes.Len())
			continue
		}
		for i := 0; i < s.Nodes.Len(); i++ {
			if s.NodeKindName(i) != b.NodeKindName(i) || f.String(s.Nodes.Name[i]) != back.String(b.Nodes.Name[i]) ||
				!slices.Equal(namedEdges(f, s, i), namedEdges(back, b, i)) || !slices.Equal(allEdges(f, s, i), allEdges(back, b, i)) {
				t.Errorf("%s: node %d came back as %s %q %q, want %s %q %q", name, i, b.NodeKindName(i), back.String(b.Nodes.Name[i]),
					namedEdges(back, b, i), s.NodeKindName(i), f.String(s.Nodes.Name[i]), namedEdges(f, s, i))
				break
			}
		}
		if w, g := devtoolsSizes(f), devtoolsSizes(back); !maps.Equal(w, g) {
			t.Errorf("%s: DevTools' self sizes per class differ", name)
		}
	}
}

// TestV8ClassesThroughMoarVM: MoarVM types are the classes DevTools counts
// V8 nodes under, not one per node name (a string's name is its value); the
// names they replace are counted, and the heap comes back with its classes
// and self sizes (those above 65535 bytes continued in colusize) and, node
// by node, every edge with its kind (kept in MoarVM's descriptions, "(weak)
// name"), name or index and target.
func TestV8ClassesThroughMoarVM(t *testing.T) {
	t.Parallel()
	v8, moar := formatByName(v8ir.Format), formatByName(moarvmir.Format)
	for name, f := range fixtures(t, v8) {
		s := f.Snapshots[0]
		m, loss := mustThrough(t, moar, f)
		types := map[string]bool{}
		for k := 0; k < m.Classes.Len(); k++ {
			types[m.String(m.Classes.Name[k])] = true
		}
		classes := map[string]bool{}
		// The objects' names before and after: synthetic nodes are no
		// objects.
		synthetic := ir.SyntheticNodes(f, s)
		var before, after []string
		for i := 1; i < s.Nodes.Len(); i++ { // node 0, the root, is MoarVM's Root
			c := analysis.ClassName(f, s, i)
			classes[c] = true
			if !synthetic[i] {
				before, after = append(before, f.String(s.Nodes.Name[i])), append(after, c)
			}
		}
		// Counted object by object, as the matrix counts them: a string
		// "RegExp" named "(string)" counts, though RegExp objects are
		// named "RegExp".
		renamed := paired(before, after)
		if len(types) != len(classes) || m.Classes.Len() != len(types) {
			t.Errorf("%s: %d MoarVM types (%d names) for %d classes", name, m.Classes.Len(), len(types), len(classes))
		}
		for c := range classes {
			if !types[c] {
				t.Errorf("%s: class %q has no type", name, c)
				break
			}
		}
		if l, _ := loss.Get(ir.LossNodeNames); l.Count != int64(renamed) {
			t.Errorf("%s: %d node names replaced by their class, the loss report says %d: %v", name, renamed, l.Count, l)
		}

		back, _ := mustThrough(t, v8, m)
		want, got := classesOf(f, 0), classesOf(back, 0)
		if diff := classDiff(want, got); len(diff) > 0 {
			t.Errorf("%s: v8 → moarvm → v8: %d classes became %d:\n%s", name, len(want), len(got), strings.Join(diff, "\n"))
		}
		if b := back.Snapshots[0]; b.Nodes.Len() != s.Nodes.Len() {
			t.Errorf("%s: %d nodes came back, want %d", name, b.Nodes.Len(), s.Nodes.Len())
		} else {
			for i := range s.Nodes.Len() {
				if w, g := allEdges(f, s, i), allEdges(back, b, i); !slices.Equal(w, g) {
					t.Errorf("%s: node %d's edges came back as %q, want %q", name, i, g, w)
					break
				}
			}
		}
		// V8's root is the root again and the edges have their kinds
		// (kept in MoarVM's descriptions), so DevTools folds arrays into
		// their owners as it did.
		w, g := devtoolsSizes(f), devtoolsSizes(back)
		if !maps.Equal(w, g) {
			n := 0
			for c := range w {
				if w[c] != g[c] && n < 5 {
					t.Errorf("%s: DevTools' self size of %q: %d, want %d", name, c, g[c], w[c])
					n++
				}
			}
		}
	}
}

// TestDartMoarVMClasses: Dart classes survive MoarVM (the classes of one
// name from two libraries stay apart, with their self sizes, also those
// beyond colsize's 16 bits) and MoarVM types survive Dart. Dart → MoarVM
// adds MoarVM's Root in front of Dart's root object: the only difference.
func TestDartMoarVMClasses(t *testing.T) {
	t.Parallel()
	dart, moar := formatByName(dartir.Format), formatByName(moarvmir.Format)
	for name, f := range fixtures(t, dart) {
		m, _ := mustThrough(t, moar, f)
		back, _ := mustThrough(t, dart, m)
		want, got := classesOf(f, 0), classesOf(back, 0)
		if r := got["(root)"]; r.count == 1 && want["(root)"].count == 0 {
			delete(got, "(root)")
		}
		if diff := classDiff(want, got); len(diff) > 0 {
			t.Errorf("%s: dart → moarvm → dart: %d classes became %d:\n%s", name, len(want), len(got), strings.Join(diff, "\n"))
		}
	}
	for name, f := range fixtures(t, moar) {
		d, _ := mustThrough(t, dart, f)
		back, _ := mustThrough(t, moar, d)
		if diff := classDiff(classesOf(f, 0), classesOf(back, 0)); len(diff) > 0 {
			t.Errorf("%s: moarvm → dart → moarvm:\n%s", name, strings.Join(diff, "\n"))
		}
	}
}

// TestClassesLostToDevTools: converting Dart or MoarVM to V8 counts the
// objects DevTools puts under another class than their own (its
// categories, synthetic roots) and, for MoarVM, the native nodes added for
// unmanaged memory: the loss report's count is exactly that.
func TestClassesLostToDevTools(t *testing.T) {
	v8 := formatByName(v8ir.Format)
	for _, src := range []string{dartir.Format, moarvmir.Format} {
		for name, f := range fixtures(t, formatByName(src)) {
			s := f.Snapshots[0]
			out, loss := mustThrough(t, v8, f)
			o := out.Snapshots[0]
			// Both converters put the source's nodes in order after the
			// V8 root ("" and, for Dart, "(GC roots)").
			shift := 1
			if src == dartir.Format {
				shift = 2
			}
			labels := ir.ClassLabels(f)
			changed := 0
			for i := 0; i < s.Nodes.Len(); i++ {
				if nodeClass(f, s, i, labels) != analysis.ClassName(out, o, i+shift) {
					changed++
				}
			}
			if src == moarvmir.Format {
				for i := shift + s.Nodes.Len(); i < o.Nodes.Len(); i++ {
					if o.NodeKindName(i) == ir.KindNative {
						changed++
					}
				}
			}
			if l, _ := loss.Get(ir.LossClasses); l.Count != int64(changed) || changed == 0 {
				t.Errorf("%s → v8, %s: %d objects change class, the loss report says %d: %v", src, name, changed, l.Count, l)
			}
		}
	}
}

// TestDartV8Classes: a Dart heap converted to V8 and back has its classes
// again (the V8 file keeps them for converting back: v8ir.HeaderDartClasses), with
// their objects and self sizes, and its external properties (native nodes
// in V8), where DevTools' names and categories ((string), (system), …)
// would have lost them.
func TestDartV8Classes(t *testing.T) {
	dart, v8 := formatByName(dartir.Format), formatByName(v8ir.Format)
	for name, f := range fixtures(t, dart) {
		m, _ := mustThrough(t, v8, f)
		if classes, _, _ := ir.SourceClasses(m.Snapshots[0]); len(classes) != f.Classes.Len() {
			t.Errorf("%s: the V8 file keeps %d classes of %d", name, len(classes), f.Classes.Len())
		}
		back, _ := mustThrough(t, dart, m)
		want, got := classesOf(f, 0), classesOf(back, 0)
		if diff := classDiff(want, got); len(diff) > 0 {
			t.Errorf("%s: dart → v8 → dart: %d classes became %d:\n%s", name, len(want), len(got), strings.Join(diff, "\n"))
		}
		// External properties by their holder's class and place among the
		// objects (ids change: V8's are 2h+1 of Dart's hash h).
		external := func(f *ir.File) []string {
			s := f.Snapshots[0]
			d := dartir.Of(s)
			synthetic := ir.SyntheticNodes(f, s)
			labels := objectClassLabels(f, s, synthetic)
			place := make([]int, s.Nodes.Len())
			for i, k := 0, 0; i < len(place); i++ {
				if !synthetic[i] {
					place[i], k = k, k+1
				}
			}
			var out []string
			for k, node := range d.ExternalNode {
				out = append(out, fmt.Sprintf("%s#%d %s %d", nodeClass(f, s, int(node), labels), place[node],
					f.String(d.ExternalName[k]), d.ExternalSize.At(k)))
			}
			slices.Sort(out)
			return out
		}
		if a, b := external(f), external(back); !slices.Equal(a, b) {
			t.Errorf("%s: external properties %v came back as %v", name, a, b)
		}
	}
}

// allEdges lists node i's edges by kind, name (or index) and target,
// sorted: their order aside.
func allEdges(f *ir.File, s *ir.Snapshot, i int) []string {
	lo, hi := s.Nodes.EdgeRange(i)
	var out []string
	for e := lo; e < hi; e++ {
		out = append(out, fmt.Sprintf("%s %s %d", s.EdgeKindOf(e).Name, f.EdgeName(s, e), s.Edges.Target[e]))
	}
	slices.Sort(out)
	return out
}

// TestV8EdgeKindsThroughMoarVM: V8's edge kinds kept in MoarVM's
// descriptions come back, a property whose name reads like such a mark
// stays a property of that name, and the edges of a node of a kind V8's
// list does not have (no V8-kind REPR name to recognize) keep their names.
func TestV8EdgeKindsThroughMoarVM(t *testing.T) {
	f := &ir.File{Format: v8ir.Format, Strings: []string{"", "A", "B", "(weak) victim", "w", "(element) 2", "plain", "W", "(property) p"}}
	s := &ir.Snapshot{NodeKinds: append(slices.Clone(ir.V8NodeKinds), "wasm object"), EdgeKinds: ir.V8EdgeKinds, Root: 0}
	kind := func(name string) uint8 { return uint8(slices.Index(s.NodeKinds, name)) }
	edge := func(name string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(k ir.EdgeKind) bool { return k.Name == name }))
	}
	element, property, weak, hidden, internal := edge("element"), edge("property"), edge("weak"), edge("hidden"), edge("internal")
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: kind(ir.KindSynthetic), Edges: []e{{element, 1, 1}, {element, 2, 3}}}, // the root, of no size
		{Kind: kind(ir.KindObject), Name: 1, Size: 16, Edges: []e{{property, 3, 2}, {weak, 4, 2}, {hidden, 7, 2},
			{property, 5, 2}, {property, 8, 2}, {internal, 6, 2}}},
		{Kind: kind(ir.KindObject), Name: 2, Size: 16},
		{Kind: kind("wasm object"), Name: 7, Size: 16, Edges: []e{{internal, 6, 2}}},
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	m, _ := mustThrough(t, formatByName(moarvmir.Format), f)
	back, _ := mustThrough(t, formatByName(v8ir.Format), m)
	b := back.Snapshots[0]
	if b.Nodes.Len() != s.Nodes.Len() {
		for i := range b.Nodes.Len() {
			t.Logf("%d %s %q %v", i, b.NodeKindName(i), back.String(b.Nodes.Name[i]), allEdges(back, b, i))
		}
		t.Fatalf("%d nodes came back, want %d", b.Nodes.Len(), s.Nodes.Len())
	}
	if w, g := allEdges(f, s, 1), allEdges(back, b, 1); !slices.Equal(w, g) {
		t.Errorf("A's edges came back as %q, want %q", g, w)
	}
	if g := allEdges(back, b, 3); len(g) != 1 || !strings.HasSuffix(g[0], " plain 2") {
		t.Errorf("W's edge came back as %q, want one named plain", g)
	}
}
