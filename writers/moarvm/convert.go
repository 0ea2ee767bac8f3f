package moarvm

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// RootEdgeName describes the reference from a synthetic root (collectable 0)
// to the source's root node.
const RootEdgeName = "Heap Root"

// Convert turns IR from any other format (V8, Dart, generated graphs, …)
// into MoarVM IR, which Write writes. IR that already has a MoarVM section
// is returned as it is. Every snapshot is kept; they share the string heap
// and the type table as a MoarVM file's snapshots do. The mapping:
//
//   - collectable 0 is MoarVM's Root (kind 9). The source's node 0 becomes
//     it when it is the source's root, there are no GC roots, and it has no
//     size and no class but "(root)" (a MoarVM Root's, when a MoarVM heap
//     comes back from Dart); otherwise a synthetic Root goes in front (every
//     node moves up by one) with a string reference described RootEdgeName
//     to the source's root, then one per GC root described by its category.
//     A Root is a root collectable, not an object of the heap, which is how
//     reading the file back tells the one added from the heap's objects
//     (ir.SyntheticNodes);
//   - every other node becomes an object (kind 1);
//   - types are the classes nodes are counted under (analysis.NodeClass): a
//     node's type is its class (named by the class's name; its REPR name,
//     below, tells apart classes of one name, as MoarVM's viewers do), or,
//     for a node without a class,
//     by the class DevTools gives it (objects and natives by name,
//     "(string)", "(system)", "Function", …), so that a string's value
//     does not make a type. The REPR name (reprname) is the class's library
//     (a Dart library URI, a Fuchsia module; for a Dart class heapconv made
//     from another format, its library name), else the kind of the type's
//     first node ("string", "hidden", …), so that a V8 heap's kinds
//     survive, and a synthetic node's ("synthetic") marks its object as
//     one (ir.SyntheticNodes). A node's name is its type's name;
//   - edges of named (non-indexed) kinds become string references described
//     by the edge name, edges of indexed kinds index references; V8's kinds
//     other than property and element (weak, internal, hidden, …) become
//     string references whose description keeps the kind,
//     moarvmir.EdgeKindMark ("(weak) name", "(hidden) 3"), which converting
//     back to V8 reads;
//   - colsize is 16 bits: a self size above 65535 is written as 65535
//     (ir/moarvm's SizeContinued) and the rest is added to the unmanaged size
//     (colusize), which is the source's external size; the reader joins
//     them again;
//   - reference ranges are in node order (colrfstr = first edge); snapmeta
//     totals and highscores are computed as MoarVM computes them; times are
//     0 (MoarVM's are µs of a monotonic clock, not wall time); a node's id
//     is its index (as the reader gives it); there are no static frames.
//
// A V8 snapshot writers/v8 made from a MoarVM heap (marked, see
// ir.UnmanagedOwners) is that heap again (fromV8): its native nodes of
// unmanaged memory are folded back into their owners' unmanaged sizes, and
// its kinds, types, frames and references are MoarVM's once more.
//
// The strings, types and frames a snapshot first uses are added by its own
// inner TOC, as MoarVM does. What MoarVM cannot hold (edge kind names,
// primitive values, node ids, node names and kinds, field names, snapshot
// names, capture times, foreign totals, format sections) and what it
// computes in their place (snapmeta's totals, ids) is listed in the loss
// report.
func Convert(f *ir.File) (*ir.File, ir.LossReport, error) {
	if moarvmir.FileOf(f) != nil {
		return f, nil, nil
	}
	// An object is a node: a sample of several allocations becomes as
	// many objects.
	f, expanded := ir.ExpandObjects(f)
	c := &converter{
		loss:      expanded,
		src:       f,
		out:       &ir.File{Format: moarvmir.Format, FormatVersion: "moarvm v3, converted from " + f.Format, Producer: f.Producer},
		strs:      ir.NewInterner(f),
		types:     map[typeKey]uint32{},
		frames:    map[[3]string]uint32{},
		edgeKinds: map[string]int{},
		labels:    ir.ClassLabels(f),
	}
	m := &moarvmir.File{Version: 3, HasMeta: true, Subversion: 1, EntryCount: DefaultEntryCount,
		DataOrder: slices.Clone(moarvmir.DefaultDataOrder)}
	c.out.SetSection(m)
	for k, s := range f.Snapshots {
		ns, nt, nf := len(c.out.Strings), c.out.Classes.Len(), m.Frames()
		var o *ir.Snapshot
		var err error
		if owner := unmanagedNodes(f, s); owner != nil {
			o = c.fromV8(k, s, owner)
		} else {
			o, err = c.snapshot(k, s)
		}
		if err != nil {
			return nil, nil, err
		}
		c.out.Snapshots = append(c.out.Snapshots, o)
		m.TOCs = append(m.TOCs, moarvmir.TOC{NewStrings: uint32(len(c.out.Strings) - ns), NewTypes: uint32(c.out.Classes.Len() - nt),
			NewFrames: uint32(m.Frames() - nf)})
	}
	m.TOCs = append(m.TOCs, moarvmir.TOC{})
	if uint64(len(c.out.Strings)) > math.MaxUint32 {
		return nil, nil, fmt.Errorf("moarvm: %d strings are more than the string heap can index", len(c.out.Strings))
	}
	m.StringCount = len(c.out.Strings)
	if nt := c.out.Classes.Len(); nt > 0 {
		c.out.Classes.FirstField = make([]uint32, nt+1)
	}
	c.report()
	if err := c.out.Validate(); err != nil {
		return nil, nil, fmt.Errorf("moarvm: internal error: the converted IR is invalid: %w", err)
	}
	return c.out, c.loss, nil
}

type converter struct {
	src    *ir.File
	labels []string // the source's class labels (ir.ClassLabels)
	out    *ir.File
	strs   *ir.Interner // c.out.Strings is strs.Strings
	types  map[typeKey]uint32
	frames map[[3]string]uint32 // static frames by name, file and line (fromV8)
	loss   ir.LossReport

	// What is lost, summed over the snapshots.
	edgeKinds            map[string]int
	values, ids, renamed int
	kindsLost            int // nodes of a kind other than object
	kindsInREPR          int // … whose kind their type's REPR name keeps
	gcRoots              int
	extTotals            uint64 // external memory the source's totals count (extra_native_bytes)
	markedKinds          bool   // edge kinds kept in descriptions (moarvmir.EdgeKindMark)

	weak          int // weak edges between objects, made strong
	extTotalCount int // external totals not kept, whose bytes extTotals sums
	// The same losses of nodes that are no objects (ir.ObjectNodes), which
	// the counts, of objects, leave out and the report mentions.
	apart struct{ ids, renamed, values, weak int }
}

// rootClass is the class analysis.ClassName counts MoarVM's Root under.
var rootClass = "(" + moarvmir.NodeKinds[moarvmir.Root] + ")"

// typeKey names a MoarVM type made for source nodes: the label of the class
// they are counted under.
type typeKey string

func (c *converter) intern(s string) uint32 {
	i := c.strs.Intern(s)
	c.out.Strings = c.strs.Strings
	return i
}

// internSrc is intern of the source's string i.
func (c *converter) internSrc(i uint32) uint32 {
	v := c.strs.InternSrc(i)
	c.out.Strings = c.strs.Strings
	return v
}

// typeOf returns the type index for a key, adding the type with the REPR
// name repr when new.
func (c *converter) typeOf(k typeKey, repr string) uint32 { return c.typeNamed(k, string(k), repr) }

// typeNamed is typeOf for a type whose name is not its key.
func (c *converter) typeNamed(k typeKey, name, repr string) uint32 {
	if t, ok := c.types[k]; ok {
		return t
	}
	cl := &c.out.Classes
	t := uint32(cl.Len())
	cl.Name = append(cl.Name, c.intern(name))
	cl.Library = append(cl.Library, c.intern(repr))
	c.types[k] = t
	return t
}

func (c *converter) snapshot(k int, s *ir.Snapshot) (*ir.Snapshot, error) {
	src := c.src
	sn := &s.Nodes
	n := sn.Len()
	hasExt := sn.ExternalSize.Len() > 0
	hasClass := len(sn.Class) > 0
	// What stands for no object of the source's heap keeps that mark
	// through its type's REPR name; the loss report counts only objects.
	synthetic := ir.SyntheticNodes(src, s)
	object := ir.ObjectNodes(src, s)
	// Objects renamed, each counted once: object by object, as a name
	// another object gives up is still this object's loss.
	rename := func(i int, _ uint32) { count(object[i], &c.renamed, &c.apart.renamed) }
	// Node 0 can be MoarVM's Root when nothing of it would be lost but its
	// kind and name: no size, and no class other than the one a MoarVM
	// Root is counted under (a MoarVM heap's, converted to Dart and back).
	reuse := s.Root == 0 && len(s.Roots) == 0 && n > 0 && sn.SelfSize.At(0) == 0 &&
		(!hasExt || sn.ExternalSize.At(0) == 0) &&
		(!hasClass || sn.Class[0] == 0 || analysis.NodeClass(src, s, 0, c.labels) == rootClass)
	shift := uint32(1)
	if reuse {
		shift = 0
	}
	total := uint64(n) + uint64(shift)
	extraEdges := uint64(len(s.Roots))
	if !reuse && s.Root != ir.NoNode {
		extraEdges++
	}
	if total >= math.MaxUint32 || uint64(s.Edges.Len())+extraEdges >= math.MaxUint32 {
		return nil, fmt.Errorf("moarvm: snapshot %d: %d nodes and %d edges are more than the IR can index", k, n, s.Edges.Len())
	}

	o := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
	ms := &moarvmir.Snapshot{HasMeta: true, GCSeqNum: uint64(k) + 1}
	o.SetSection(ms)
	nd, ed := &o.Nodes, &o.Edges
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.Class = make([]uint32, 0, total)
	nd.FirstEdge = make([]uint32, 1, total+1)
	nd.SelfSize.Reserve(int(total))
	ms.TOFI.Reserve(int(total))
	ms.RefStart.Reserve(int(total))
	m := uint64(s.Edges.Len()) + extraEdges
	ed.Kind = make([]uint8, 0, m)
	ed.Name = make([]uint32, 0, m)
	ed.Target = make([]uint32, 0, m)
	var ext []uint64 // unmanaged sizes, made when one is not zero
	addNode := func(kind uint8, name, class, tofi uint32, size, x uint64) {
		i := len(nd.Kind)
		nd.Kind = append(nd.Kind, kind)
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, class)
		nd.SelfSize.Append(size)
		ms.TOFI.Append(uint64(tofi))
		ms.RefStart.Append(uint64(ed.Len()))
		if x != 0 && ext == nil {
			ext = make([]uint64, total)
		}
		if ext != nil {
			ext[i] = x
		}
	}
	edge := func(kind uint8, name, target uint32) {
		ed.Kind = append(ed.Kind, kind)
		ed.Name = append(ed.Name, name)
		ed.Target = append(ed.Target, target)
	}
	rootName := c.intern(moarvmir.RootNames[moarvmir.Root])
	if !reuse {
		addNode(moarvmir.Root, rootName, 0, 0, 0, 0)
		if s.Root != ir.NoNode {
			edge(moarvmir.StringRef, c.intern(RootEdgeName), s.Root+1)
		}
		for _, r := range s.Roots {
			edge(moarvmir.StringRef, c.internSrc(r.Category), r.Node+1)
		}
		c.gcRoots += len(s.Roots)
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}

	// Source edge kinds: named ones become string references.
	indexed := make([]bool, len(s.EdgeKinds))
	kindCount := make([]int, len(s.EdgeKinds))
	// Of a V8 heap (V8's node kinds, which its types' REPR names keep), the
	// edge kinds other than property and element are marked in the
	// description, which converting back to V8 reads.
	v8Heap := ir.HasV8NodeKinds(s)
	marked := make([]bool, len(s.EdgeKinds))
	weak := make([]bool, len(s.EdgeKinds)) // MoarVM has no weak references
	for i, ek := range s.EdgeKinds {
		indexed[i] = ek.Indexed
		weak[i] = ek.Name == ir.EdgeWeak
		marked[i] = v8Heap && ek.Name != ir.EdgeProperty && ek.Name != ir.EdgeElement && slices.Contains(ir.V8EdgeKinds, ek)
		if marked[i] {
			c.markedKinds = true
		}
	}
	// Types per (class, kind) and, for nodes without a class, per (kind,
	// name), memoized for this snapshot's kind table, with whether the
	// type's REPR name keeps the kind.
	type typed struct {
		t        uint32
		kindKept bool
	}
	byClass := map[uint64]typed{}
	byName := map[uint64]typed{}
	kindKept := func(t uint32, i int) bool { return c.out.String(c.out.Classes.Library[t]) == s.NodeKindName(i) }
	for i := 0; i < n; i++ {
		size := sn.SelfSize.At(i)
		var x uint64
		if hasExt {
			x = sn.ExternalSize.At(i)
		}
		// The reader gives a collectable its index for an id.
		id := uint64(0)
		if sn.ID.Len() > 0 {
			id = sn.ID.At(i)
		}
		if id != uint64(i)+uint64(shift) {
			count(object[i], &c.ids, &c.apart.ids)
		}
		// The edges of a V8 heap's objects (a type whose REPR name is a
		// V8 node kind, which writers/v8 recognizes) and of its root keep
		// their kinds in their descriptions.
		markHere := false
		if reuse && i == 0 {
			markHere = v8Heap
			c.loss.Add("root-node", 1, "the source's root (node 0) becomes MoarVM's Root; its kind and name are not kept").
				WithExample(fmt.Sprintf("snapshot %d: kind %q, name %q", k, s.NodeKindName(0), src.String(sn.Name[0])))
			addNode(moarvmir.Root, rootName, 0, 0, size, x)
		} else {
			kind := sn.Kind[i]
			var ty typed
			if hasClass && sn.Class[i] != 0 && int(sn.Class[i]) <= len(c.labels) {
				cl := sn.Class[i]
				key := uint64(cl)<<8 | uint64(kind)
				var ok bool
				if ty, ok = byClass[key]; !ok {
					repr := c.repr(int(cl - 1))
					switch {
					case repr == "" && synthetic[i]:
						repr = ir.KindSynthetic
					case repr == "":
						repr = s.NodeKindName(i)
					}
					// The type's name is the class's; its REPR name, the
					// library, tells apart classes of one name.
					ty.t = c.typeNamed(typeKey(c.labels[cl-1]), src.String(src.Classes.Name[cl-1]), repr)
					ty.kindKept = kindKept(ty.t, i)
					byClass[key] = ty
				}
				if src.String(sn.Name[i]) != c.out.String(c.out.Classes.Name[ty.t]) {
					rename(i, ty.t)
				}
			} else {
				key := uint64(kind)<<32 | uint64(sn.Name[i])
				var ok bool
				if ty, ok = byName[key]; !ok {
					ty.t = c.typeOf(typeKey(analysis.ClassName(src, s, i)), s.NodeKindName(i))
					ty.kindKept = kindKept(ty.t, i)
					byName[key] = ty
				}
				if src.String(sn.Name[i]) != c.out.String(c.out.Classes.Name[ty.t]) {
					rename(i, ty.t)
				}
			}
			if kind := s.NodeKindName(i); kind != ir.KindObject {
				c.kindsLost++
				if ty.kindKept {
					c.kindsInREPR++
				}
			}
			t := ty.t
			markHere = v8Heap && slices.Contains(ir.V8NodeKinds, c.out.String(c.out.Classes.Library[t]))
			addNode(moarvmir.Object, c.out.Classes.Name[t], t+1, t, size, x)
		}
		lo, hi := sn.EdgeRange(i)
		for e := lo; e < hi; e++ {
			ek := s.Edges.Kind[e]
			to := s.Edges.Target[e] + shift
			if int(ek) < len(indexed) {
				kindCount[ek]++
				if weak[ek] {
					count(object[i] && object[s.Edges.Target[e]], &c.weak, &c.apart.weak)
				}
				switch {
				case markHere && marked[ek] && indexed[ek]:
					edge(moarvmir.StringRef, c.intern(moarvmir.EdgeKindMark(s.EdgeKinds[ek].Name, strconv.FormatUint(uint64(s.Edges.Name[e]), 10))), to)
					continue
				case markHere && marked[ek]:
					edge(moarvmir.StringRef, c.intern(moarvmir.EdgeKindMark(s.EdgeKinds[ek].Name, src.String(s.Edges.Name[e]))), to)
					continue
				case indexed[ek]:
					edge(moarvmir.IndexRef, s.Edges.Name[e], to)
					continue
				}
			}
			if name := src.String(s.Edges.Name[e]); markHere {
				if _, _, ok := moarvmir.ParseEdgeKindMark(name); ok {
					// A name that reads as a mark is marked a property.
					edge(moarvmir.StringRef, c.intern(moarvmir.EdgeKindMark(ir.EdgeProperty, name)), to)
					continue
				}
			}
			edge(moarvmir.StringRef, c.internSrc(s.Edges.Name[e]), to)
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	// A collectable's identity is its index, as the reader has it.
	nd.ID.Reserve(int(total))
	for i := range total {
		nd.ID.Append(i)
	}
	if ext != nil {
		nd.ExternalSize.AppendAll(ext)
	}
	for i, cnt := range kindCount {
		if cnt > 0 {
			c.edgeKinds[s.EdgeKinds[i].Name] += cnt
		}
	}
	for _, i := range s.Values.Node {
		count(object[i], &c.values, &c.apart.values)
	}
	c.finish(k, s, o, false)
	return o, nil
}

// count adds one to objects when the item is an object's, else to apart.
func count(object bool, objects, apart *int) {
	if object {
		*objects++
	} else {
		*apart++
	}
}

// repr returns the REPR name of the type made for the source's class k: its
// library (ir.ClassLibrary), or for a class heapconv made from another
// format (ir.ClassMadeFrom, as a Dart file marks them) the library name,
// which keeps the source class's library or its nodes' kind, as the REPR
// name does.
func (c *converter) repr(k int) string {
	if ir.ClassMadeFrom(c.src, k) != "" {
		if lib := c.src.String(c.src.Classes.Library[k]); lib != "" {
			return lib
		}
	}
	return ir.ClassLibrary(c.src, k)
}

// finish computes a converted snapshot's snapmeta totals and highscores and
// notes what the source snapshot has that MoarVM does not keep; fromV8 says
// the source is a V8 file writers/v8 made from a MoarVM heap.
func (c *converter) finish(k int, s, o *ir.Snapshot, fromV8 bool) {
	src := c.src
	if name := ir.SnapshotName(src, s); name != "" {
		c.loss.Add(ir.LossSnapshotNames, 1, "snapshot names have no place in a MoarVM file").
			WithExample(fmt.Sprintf("snapshot %d: %q", k, name))
	}
	if s.CaptureTime != 0 {
		c.loss.Add(ir.LossCaptureTime, 1, "capture times are not kept (MoarVM's snap_time is µs of a monotonic clock; written as 0)").
			WithExample(fmt.Sprintf("snapshot %d: %s", k, time.Unix(0, s.CaptureTime).UTC().Format(time.RFC3339Nano)))
	}
	o.Totals = Totals(o)
	if n, example := ir.TotalsChanged(s.Totals, o.Totals); n > 0 {
		c.loss.Add(ir.LossTotals, int64(n), "the source's totals are not kept; snapmeta's totals (total_heap_size, total_objects, …) are computed from the graph, as MoarVM computes them").
			WithExample(fmt.Sprintf("snapshot %d: %s", k, example))
	}
	// An external total of 0 bytes holds no memory to lose (the totals
	// line names the total itself); of a V8 file writers/v8 made from a
	// MoarVM heap, that is its writer's 0, the unmanaged memory being in
	// the native nodes fromV8 folds back.
	n, bytes := ir.ExternalTotals(s.Totals)
	c.extTotalCount += n
	c.extTotals = satAdd(c.extTotals, bytes)
	c.loss.Merge(ir.SectionLoss(c.src, s, target))
	ms := moarvmir.Of(o)
	ms.TopIDs, ms.TopScores, _ = Leaderboards(o, DefaultEntryCount, moarvmir.DefaultDataOrder)
}

// target is what the loss report says of a MoarVM file: it keeps neither
// allocation stacks nor another format's code locations.
var target = ir.Target{Format: moarvmir.Format, Name: "a MoarVM file"}

// apart says what nodes that are no objects (roots, groups) lose besides,
// which the counts, being of objects, leave out: n of what.
func apart(n int, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; the same goes for %d %s of nodes that stand for no object (roots, groups), not counted here", n, what)
}

// report adds the summed losses to the loss report.
func (c *converter) report() {
	c.loss.Merge(ir.SectionLoss(c.src, nil, target))
	if c.gcRoots > 0 {
		c.loss.Add(ir.LossGCRoots, int64(c.gcRoots), "GC roots become references of the Root (collectable 0) described by their category")
	}
	if len(c.edgeKinds) > 0 {
		names := make([]string, 0, len(c.edgeKinds))
		for name := range c.edgeKinds {
			names = append(names, name)
		}
		sort.Strings(names)
		var parts []string
		total := 0
		for _, name := range names {
			parts = append(parts, fmt.Sprintf("%s %d", name, c.edgeKinds[name]))
			total += c.edgeKinds[name]
		}
		what := "edges' kinds are not kept: a MoarVM reference is described only by a string or an index"
		if c.markedKinds {
			what += "; V8's kinds other than property and element are kept in the description, \"(weak) name\", \"(hidden) 3\", which converting back to V8 reads"
		}
		c.loss.Add(ir.LossEdgeKinds, int64(total), what).WithExample(strings.Join(parts, ", "))
	}
	if c.weak+c.apart.weak > 0 {
		what := "weak references between objects become strong: a MoarVM file has none"
		if c.markedKinds {
			what += " (a V8 heap's keep \"(weak)\" in their description, which converting back to V8 reads)"
		}
		c.loss.Add(ir.LossWeakEdges, int64(c.weak), what+apart(c.apart.weak, "weak references"))
	}
	if c.extTotalCount > 0 {
		c.loss.Addf(ir.LossExternalSizes, int64(c.extTotalCount), "external totals of the source (extra_native_bytes), %d bytes in all, belong to no collectable and are not kept", c.extTotals)
	}
	if c.renamed > 0 {
		what := "objects' names are lost: a MoarVM object's name is its type's, so objects named otherwise than their class are named by it"
		c.loss.Add(ir.LossNodeNames, int64(c.renamed), what+apart(c.apart.renamed, "names"))
	} else if c.apart.renamed > 0 {
		c.loss.Addf(ir.LossNodeNames, 0, "no object's name is lost, but nodes that stand for no object (roots, groups) lose %d names: a MoarVM object's name is its type's", c.apart.renamed)
	}
	if c.kindsLost > 0 {
		c.loss.Addf(ir.LossNodeKinds, int64(c.kindsLost), "nodes of kinds other than object become MoarVM objects; for %d the REPR name of their type (one without a library whose nodes share the kind) keeps the kind", c.kindsInREPR)
	}
	if c.values+c.apart.values > 0 {
		c.loss.Add(ir.LossValues, int64(c.values), "objects' primitive values (strings, numbers, lengths, …) have no place in a MoarVM file"+apart(c.apart.values, "values"))
	}
	if c.ids+c.apart.ids > 0 {
		c.loss.Add(ir.LossNodeIDs, int64(c.ids), "objects' ids are not kept: a collectable's identity is its index, which the reader gives it for an id"+apart(c.apart.ids, "ids"))
	}
	sc := &c.src.Classes
	fields := len(sc.FieldName)
	libs := 0 // library names the REPR name does not keep (a Dart class's, beside its URI)
	for k, l := range sc.Library {
		if name := c.src.String(l); name != "" && name != ir.ClassLibrary(c.src, k) {
			libs++
		}
	}
	if fields > 0 || libs > 0 {
		c.loss.Add(ir.LossClasses, int64(libs+fields), "field names, and library names beside a library URI, are not kept: a MoarVM type has a name and a REPR name (the library) only").
			WithExample(fmt.Sprintf("%d library names, %d field names", libs, fields))
	}
}
