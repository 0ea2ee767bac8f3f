package moarvm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	wmoar "github.com/heapconv/heapconv/writers/moarvm"
)

// snapMeta is snapmeta's JSON.
type snapMeta struct {
	SnapTime   uint64 `json:"snap_time"`
	GCSeqNum   uint64 `json:"gc_seq_num"`
	Heap       uint64 `json:"total_heap_size"`
	Objects    uint64 `json:"total_objects"`
	TypeObjs   uint64 `json:"total_typeobjects"`
	STables    uint64 `json:"total_stables"`
	Frames     uint64 `json:"total_frames"`
	References uint64 `json:"total_refs"`
}

// checkTotals checks a written snapshot's snapmeta against its columns.
func checkTotals(t *testing.T, k int, ds decodedSnap) snapMeta {
	t.Helper()
	var sm snapMeta
	if err := json.Unmarshal([]byte(ds.meta), &sm); err != nil {
		t.Fatalf("snapshot %d: snapmeta %q: %v", k, ds.meta, err)
	}
	var heap uint64
	var counts [12]uint64
	for i := range ds.kind {
		heap = satAdd(satAdd(heap, ds.size[i]), ds.usize[i])
		if ds.kind[i] < 12 {
			counts[ds.kind[i]]++
		}
	}
	want := snapMeta{sm.SnapTime, sm.GCSeqNum, heap, counts[1], counts[2], counts[3], counts[4], uint64(len(ds.descr))}
	if sm != want {
		t.Errorf("snapshot %d: snapmeta %+v, the columns say %+v", k, sm, want)
	}
	return sm
}

func TestConvertRandom(t *testing.T) {
	tests := []struct {
		name string
		opts irtest.Options
	}{
		{"default", irtest.Options{}},
		{"root first", irtest.Options{RootFirst: true, MinNodes: 1}},
		{"everything", irtest.Everything(0, 80)},
		{"v8 shaped", irtest.V8Shaped(1, 64)},
		{"v8 section", irtest.Options{V8: &irtest.V8Options{Trace: true, Locations: true}, Values: true}},
		{"custom kinds, classes, GC roots", irtest.Options{Kinds: irtest.KindsCustom, Classes: true, GCRoots: true, Snapshots: 2, MaxOutDegree: 8}},
		{"big sizes", irtest.Options{BigSizes: true, ExternalSizes: true, IDs: irtest.IDsAny}},
		{"dart", irtest.Options{Dart: &irtest.DartOptions{Hashes: true, ZeroRefs: true, External: true, Data: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := int64(1); seed <= 40; seed++ {
				src := irtest.Random(seed, tc.opts)
				if !checkConvert(t, seed, src) {
					return
				}
			}
		})
	}
}

// checkConvert converts and writes src and checks the result against it.
func checkConvert(t *testing.T, seed int64, src *ir.File) bool {
	t.Helper()
	out, loss, err := wmoar.Convert(src)
	if err != nil {
		t.Errorf("seed %d: Convert: %v", seed, err)
		return false
	}
	if err := out.Validate(); err != nil {
		t.Errorf("seed %d: the converted IR is invalid: %v", seed, err)
		return false
	}
	if len(out.Snapshots) != len(src.Snapshots) {
		t.Errorf("seed %d: %d snapshots from %d", seed, len(out.Snapshots), len(src.Snapshots))
		return false
	}
	var direct bytes.Buffer
	loss2, err := wmoar.Write(&direct, src, wmoar.Options{})
	if err != nil {
		t.Errorf("seed %d: Write of the source: %v", seed, err)
		return false
	}
	b, p, d, written := writeParse(t, out)
	loss.Merge(written) // what writing the converted file loses besides
	if !bytes.Equal(b, direct.Bytes()) || !slices.Equal(loss, loss2) {
		t.Errorf("seed %d: Write(source) differs from Write(Convert(source))", seed)
		return false
	}
	m := moarvmir.FileOf(out)
	if len(d.strings) != m.StringCount || len(d.tnames) != out.Classes.Len() || len(d.snaps) != len(src.Snapshots) {
		t.Errorf("seed %d: %d strings, %d types, %d snapshots written; want %d, %d, %d", seed,
			len(d.strings), len(d.tnames), len(d.snaps), m.StringCount, out.Classes.Len(), len(src.Snapshots))
		return false
	}
	for i, s := range d.strings {
		if s != out.Strings[i] {
			t.Errorf("seed %d: string %d is %q, want %q", seed, i, s, out.Strings[i])
			return false
		}
	}
	for i := range d.tnames {
		if d.tnames[i] >= uint64(len(d.strings)) || d.reprs[i] >= uint64(len(d.strings)) {
			t.Errorf("seed %d: type %d names strings beyond the heap", seed, i)
			return false
		}
	}
	if len(p.inner) != len(src.Snapshots)+1 || len(p.inner[len(p.inner)-1]) != 0 {
		t.Errorf("seed %d: %d inner TOCs, the last with %d blocks", seed, len(p.inner), len(p.inner[len(p.inner)-1]))
		return false
	}
	reprs := typeREPRs(src)
	for k, s := range src.Snapshots {
		o, ds := out.Snapshots[k], d.snaps[k]
		checkSnapshot(t, k, o, ds)
		sm := checkTotals(t, k, ds)
		if sm.GCSeqNum != uint64(k+1) || len(ds.topIDs) != 4*wmoar.DefaultEntryCount {
			t.Errorf("seed %d, snapshot %d: gc_seq_num %d, %d highscore entries", seed, k, sm.GCSeqNum, len(ds.topIDs))
		}
		if err := checkSemantics(src, s, out, o, ds, d, reprs); err != nil {
			t.Errorf("seed %d, snapshot %d: %v", seed, k, err)
			return false
		}
		if s.Values.Len() > 0 && !loss.Has(ir.LossValues) {
			t.Errorf("seed %d: values are lost without a word:\n%v", seed, loss)
		}
		if s.Edges.Len() > 0 && !loss.Has(ir.LossEdgeKinds) {
			t.Errorf("seed %d: edge kinds are lost without a word:\n%v", seed, loss)
		}
	}
	return !t.Failed()
}

// typeREPRs gives, for each class label (analysis.NodeClass) of the source's
// nodes, the REPR names its type may have: the class's library when it has
// one, else the kinds of the label's nodes (the first node's, which the
// test does not track; exactly that one when they share it).
func typeREPRs(f *ir.File) map[string]map[string]bool {
	labels := ir.ClassLabels(f)
	out := map[string]map[string]bool{}
	for _, s := range f.Snapshots {
		for i := 0; i < s.Nodes.Len(); i++ {
			l := analysis.NodeClass(f, s, i, labels)
			if out[l] == nil {
				out[l] = map[string]bool{}
			}
			if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && ir.ClassLibrary(f, int(s.Nodes.Class[i]-1)) != "" {
				out[l][ir.ClassLibrary(f, int(s.Nodes.Class[i]-1))] = true
			} else {
				out[l][s.NodeKindName(i)] = true
			}
		}
	}
	return out
}

// checkSemantics checks that the written snapshot is the source's graph:
// node i is collectable i+shift, with its size (split at 65535), its type
// named after the class it is counted under, with one of the REPR names
// reprs allows for the class's label, and its edges with their names or
// indices.
func checkSemantics(srcF *ir.File, s *ir.Snapshot, outF *ir.File, o *ir.Snapshot, ds decodedSnap, d *decoded, reprs map[string]map[string]bool) error {
	labels := ir.ClassLabels(srcF)
	n := s.Nodes.Len()
	shift := len(ds.kind) - n
	if shift != 0 && shift != 1 || ds.kind[0] != moarvmir.Root {
		return fmt.Errorf("%d collectables for %d nodes, collectable 0 of kind %d", len(ds.kind), n, ds.kind[0])
	}
	if shift == 1 {
		// The synthetic root: the source's root, then the GC roots.
		var want []uint64
		if s.Root != ir.NoNode {
			want = append(want, uint64(s.Root)+1)
		}
		for _, r := range s.Roots {
			want = append(want, uint64(r.Node)+1)
		}
		if ds.rfcnt[0] != uint64(len(want)) {
			return fmt.Errorf("the root has %d references, want %d", ds.rfcnt[0], len(want))
		}
		for j, w := range want {
			if got := ds.target[ds.rfstr[0]+uint64(j)]; got != w {
				return fmt.Errorf("root reference %d goes to %d, want %d", j, got, w)
			}
			descr := ds.descr[ds.rfstr[0]+uint64(j)]
			name := RootEdgeNameFor(srcF, s, j)
			if descr&3 != 2 || d.strings[descr>>2] != name {
				return fmt.Errorf("root reference %d is described %#x, want the string %q", j, descr, name)
			}
		}
	}
	for i := 0; i < n; i++ {
		c := i + shift
		size := s.Nodes.SelfSize.At(i)
		var x uint64
		if s.Nodes.ExternalSize.Len() > 0 {
			x = s.Nodes.ExternalSize.At(i)
		}
		if size > math.MaxUint16 {
			// The sum, capped, less colsize's part.
			x = satAdd(x, size) - math.MaxUint16
			size = math.MaxUint16
		}
		if ds.size[c] != size || ds.usize[c] != x {
			return fmt.Errorf("node %d: size %d+%d, want %d+%d", i, ds.size[c], ds.usize[c], size, x)
		}
		// A V8 heap's objects (a type whose REPR name is a V8 kind) and
		// root keep their edges' kinds in their descriptions.
		v8Heap := ir.HasV8NodeKinds(s)
		markHere := v8Heap && c == 0
		if c > 0 {
			markHere = v8Heap && slices.Contains(ir.V8NodeKinds, d.strings[d.reprs[ds.tofi[c]]])
			if ds.kind[c] != moarvmir.Object {
				return fmt.Errorf("node %d: kind %d, want an object", i, ds.kind[c])
			}
			// The type is named by the class and its REPR name is the
			// class's library, which tells apart classes of one name.
			t := ds.tofi[c]
			label, name := analysis.NodeClass(srcF, s, i, labels), analysis.ClassName(srcF, s, i)
			repr := d.strings[d.reprs[t]]
			if d.strings[d.tnames[t]] != name || !reprs[label][repr] {
				return fmt.Errorf("node %d: type %q (REPR %q), want %q (one of %v)", i, d.strings[d.tnames[t]], repr, name, reprs[label])
			}
		}
		lo, hi := s.Nodes.EdgeRange(i)
		if ds.rfcnt[c] != uint64(hi-lo) {
			return fmt.Errorf("node %d: %d references for %d edges", i, ds.rfcnt[c], hi-lo)
		}
		for e := lo; e < hi; e++ {
			pos := ds.rfstr[c] + uint64(e-lo)
			if ds.target[pos] != uint64(s.Edges.Target[e])+uint64(shift) {
				return fmt.Errorf("edge %d goes to %d, want %d", e, ds.target[pos], uint64(s.Edges.Target[e])+uint64(shift))
			}
			// V8's kinds but property and element are kept in the
			// description: "(weak) name", "(hidden) 3"; a name that reads
			// as such a mark is marked a property.
			descr, ek := ds.descr[pos], s.EdgeKindOf(e)
			name := srcF.String(s.Edges.Name[e])
			if ek.Indexed {
				name = strconv.FormatUint(uint64(s.Edges.Name[e]), 10)
			}
			marked := markHere && ek.Name != ir.EdgeProperty && ek.Name != ir.EdgeElement && slices.Contains(ir.V8EdgeKinds, ek)
			if _, _, looksMarked := moarvmir.ParseEdgeKindMark(name); markHere && !ek.Indexed && !marked && looksMarked {
				name = "(property) " + name
			}
			if marked {
				name = "(" + ek.Name + ") " + name
			}
			if ek.Indexed && !marked {
				if descr != uint64(s.Edges.Name[e])<<2|1 {
					return fmt.Errorf("edge %d: description %#x, want index %d", e, descr, s.Edges.Name[e])
				}
			} else if descr&3 != 2 || d.strings[descr>>2] != name {
				return fmt.Errorf("edge %d: description %#x, want the string %q", e, descr, name)
			}
		}
	}
	return nil
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// RootEdgeNameFor is the description of the synthetic root's reference j.
func RootEdgeNameFor(f *ir.File, s *ir.Snapshot, j int) string {
	if s.Root != ir.NoNode {
		if j == 0 {
			return wmoar.RootEdgeName
		}
		j--
	}
	return f.String(s.Roots[j].Category)
}

// foreignFile is a small V8-like graph with a class, GC roots, a weak edge,
// a value, an id and a node bigger than colsize holds.
func foreignFile(rootFirst bool) *ir.File {
	f := &ir.File{Format: "test", Strings: []string{"", "Point", "x", "y", "(GC roots)", "big", "lib", "hello"}}
	f.Classes = ir.Classes{Name: []uint32{1}, Library: []uint32{6}, FirstField: []uint32{0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	const synthetic, object, str = 9, 3, 2
	const prop, elem, weak = 2, 1, 6
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: synthetic, Edges: []e{{elem, 1, 1}, {elem, 2, 3}}},
		{Kind: object, Name: 1, Class: 1, Size: 16, Edges: []e{{prop, 2, 2}, {weak, 3, 3}}},
		{Kind: str, Name: 7, Size: 32},
		{Kind: object, Name: 5, Size: 100000, Edges: []e{{prop, 2, 1}}},
	}, true)
	s.Nodes.ExternalSize.AppendAll([]uint64{0, 0, 0, 7})
	s.Values = ir.Values{Node: []uint32{2}, Kind: []ir.ValueKind{ir.ValueString}, Bits: []uint64{7}, Aux: []uint64{0}}
	if !rootFirst {
		s.Root = 1
		s.Roots = []ir.RootRef{{Node: 3, Category: 4}}
	}
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

func TestConvert(t *testing.T) {
	type lossWant struct {
		kind  string
		count int64
		text  string // in the line
	}
	tests := []struct {
		name      string
		rootFirst bool
		shift     int
		loss      []lossWant
	}{
		{"node 0 is the root", true, 0, []lossWant{
			{"root-node", 1, `kind "synthetic"`},
			{ir.LossEdgeKinds, 5, "weak 1"},
			{ir.LossValues, 1, "primitive values"},
			// Nodes 1–3; the root (node 0) is no object.
			{ir.LossNodeIDs, 3, "1 ids of nodes that stand for no object"},
			{ir.LossNodeNames, 1, "named by it"}, // "hello", a string: "(string)"
			{ir.LossNodeKinds, 1, "for 1 the REPR"},
		}},
		{"synthetic root", false, 1, []lossWant{
			// "hello", a string: "(string)"; "" (synthetic) is no object.
			{ir.LossNodeNames, 1, "1 names of nodes that stand for no object"},
			{ir.LossNodeKinds, 2, "for 2 the REPR"},
			{ir.LossGCRoots, 1, "GC roots"},
			{ir.LossEdgeKinds, 5, "weak 1"},
			{ir.LossValues, 1, "primitive values"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := foreignFile(tc.rootFirst)
			if !checkConvert(t, 1, src) {
				return
			}
			out, loss, _ := wmoar.Convert(src)
			o := out.Snapshots[0]
			if o.Nodes.Len() != 4+tc.shift || o.Nodes.Kind[0] != moarvmir.Root {
				t.Fatalf("%d collectables, the first of kind %d", o.Nodes.Len(), o.Nodes.Kind[0])
			}
			big := 3 + tc.shift
			// The writer continues colsize in colusize.
			if o.Nodes.SelfSize.At(big) != 100000 || o.Nodes.ExternalSize.At(big) != 7 {
				t.Errorf("big node: size %d + %d", o.Nodes.SelfSize.At(big), o.Nodes.ExternalSize.At(big))
			}
			for _, want := range tc.loss {
				irtest.WantLoss(t, loss, want.kind, want.count, want.text)
			}
		})
	}
}

func TestConvertKeepsMoarVMIR(t *testing.T) {
	f := handFile()
	out, loss, err := wmoar.Convert(f)
	if err != nil || out != f || len(loss) != 0 {
		t.Errorf("Convert of MoarVM IR: %p %v %v, want the file itself", out, loss, err)
	}
}

func TestConvertEmpty(t *testing.T) {
	f := &ir.File{Format: "test"}
	_, p, d, _ := writeParse(t, f)
	if len(p.inner) != 1 || len(p.inner[0]) != 0 || len(d.snaps) != 0 {
		t.Errorf("a file without snapshots: %d inner TOCs", len(p.inner))
	}
}

// TestConvertTypesAreClasses: a node's type is the class it is counted
// under, not its name: strings of any value share "(string)", classes of
// one name from two libraries stay apart, and the kinds of nodes without a
// class stay in the REPR name. The names and kinds MoarVM cannot keep are
// counted.
func TestConvertTypesAreClasses(t *testing.T) {
	f := &ir.File{Format: "test", Strings: []string{"", "x", "y", "z", "Foo", "Node", "a", "b", "Solo", "(root)"}}
	f.Classes = ir.Classes{Name: []uint32{5, 5, 8}, Library: []uint32{6, 7, 0}, FirstField: []uint32{0, 0, 0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	kind := func(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }
	nodes := []struct {
		kind        string
		name, class uint32
	}{
		{ir.KindSynthetic, 0, 0}, // the root: MoarVM's Root
		{ir.KindString, 1, 0},
		{ir.KindString, 2, 0},
		{ir.KindString, 3, 0},
		{ir.KindObject, 4, 0},
		{ir.KindNative, 4, 0}, // Foo too: its type's, whose REPR is object
		{ir.KindObject, 5, 1}, // Node (a)
		{ir.KindObject, 5, 2}, // Node (b)
		{ir.KindObject, 8, 3}, // Solo, whose class has no library
	}
	s.Nodes.FirstEdge = []uint32{0}
	for _, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, kind(n.kind))
		s.Nodes.Name = append(s.Nodes.Name, n.name)
		s.Nodes.Class = append(s.Nodes.Class, n.class)
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, 0)
	}
	s.Nodes.SelfSize = ir.UintsOf(0, 8, 8, 8, 8, 8, 8, 8, 8) // the root has none
	f.Snapshots = []*ir.Snapshot{s}
	if !checkConvert(t, 1, f) {
		return
	}
	out, loss, _ := wmoar.Convert(f)
	var types []string
	for k := 0; k < out.Classes.Len(); k++ {
		types = append(types, out.String(out.Classes.Name[k])+" / "+out.String(out.Classes.Library[k]))
	}
	want := []string{"(string) / string", "Foo / object", "Node / a", "Node / b", "Solo / object"}
	if !slices.Equal(types, want) {
		t.Errorf("types %q, want %q", types, want)
	}
	for _, w := range []struct {
		kind  string
		count int64
		text  string
	}{
		{ir.LossNodeNames, 3, "named by it"},    // x, y, z
		{ir.LossNodeKinds, 4, "for 3 the REPR"}, // the strings and the native
	} {
		irtest.WantLoss(t, loss, w.kind, w.count, w.text)
	}

	// Node 0 of a class "(root)", the one a MoarVM Root is counted under
	// (a MoarVM heap back from Dart), is MoarVM's Root again.
	f.Classes.Name[2] = 9
	s.Nodes.Class[0] = 3
	out, _, _ = wmoar.Convert(f)
	if o := out.Snapshots[0]; o.Nodes.Len() != len(nodes) || o.Nodes.Kind[0] != moarvmir.Root {
		t.Errorf("%d collectables, the first of kind %d: want node 0 as the Root", o.Nodes.Len(), o.Nodes.Kind[0])
	}
}

// TestConvertCountsObjects: the losses the report counts are the objects'
// (what the conformance matrix measures): a synthetic node's id, name,
// value and weak references are mentioned, not counted; an id written as
// it was is no loss; names are counted object by object, so a string "Foo"
// named "(string)" while an object of class Foo is named "Foo" counts both
// objects; and each external total the file cannot keep counts one, but a
// total of 0 bytes holds no memory to lose.
func TestConvertCountsObjects(t *testing.T) {
	f := &ir.File{Format: "test"}
	str := irtest.Strings(f, "", "(GC roots)", "Foo", "bar", "Baz", "w", "lib")
	f.Classes = ir.Classes{Name: []uint32{str[2]}, Library: []uint32{str[6]}, FirstField: []uint32{0, 0}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0,
		Totals: []ir.Total{{Name: "extra_native_bytes", Value: 0}}}
	const synthetic, object, stringKind = 9, 3, 2
	const elem, weak = 1, 6
	type e = irtest.Edge
	irtest.Build(s, []irtest.Node{
		{Kind: synthetic, Edges: []e{{elem, 1, 1}, {elem, 2, 2}, {elem, 3, 3}}},
		{Kind: synthetic, Name: str[1], Edges: []e{{weak, str[5], 3}}},                 // a group: no object
		{Kind: stringKind, Name: str[2], Size: 8},                                      // "Foo" → "(string)"
		{Kind: object, Name: str[3], Class: 1, Size: 8, Edges: []e{{weak, str[5], 4}}}, // "bar" → "Foo"
		{Kind: object, Name: str[4], Size: 8},                                          // "Baz" stays
	}, true)
	s.Nodes.ID = ir.UintsOf(1, 3, 5, 7, 4) // node 4 is collectable 4: its id is kept
	s.Values = ir.Values{Node: []uint32{1, 4}, Kind: []ir.ValueKind{ir.ValueInt, ir.ValueInt}, Bits: []uint64{1, 2}, Aux: []uint64{0, 0}}
	f.Snapshots = []*ir.Snapshot{s}
	if !checkConvert(t, 1, f) {
		return
	}
	_, loss, err := wmoar.Convert(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		kind  string
		count int64
		text  []string
	}{
		{ir.LossNodeIDs, 2, []string{"2 ids of nodes that stand for no object"}},
		{ir.LossNodeNames, 2, []string{"1 names of nodes that stand for no object"}},
		{ir.LossValues, 1, []string{"1 values of nodes that stand for no object"}},
		{ir.LossWeakEdges, 1, []string{"1 weak references of nodes that stand for no object"}},
	} {
		irtest.WantLoss(t, loss, w.kind, w.count, w.text...)
	}
	if l, ok := loss.Get(ir.LossExternalSizes); ok {
		t.Errorf("an external total of 0 bytes is no lost memory: %v", l)
	}
	s.Totals[0].Value = 24
	if _, loss, err = wmoar.Convert(f); err != nil {
		t.Fatal(err)
	}
	irtest.WantLoss(t, loss, ir.LossExternalSizes, 1, "extra_native_bytes), 24 bytes")
}
