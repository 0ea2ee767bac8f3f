package devtools

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// A Dart heap converted to V8 should read in DevTools as naturally as a
// JavaScript heap. fromDart (which Convert calls for a snapshot read from a
// Dart file, see ir/dart/snapshot.go) builds a graph with V8's node and edge kinds:
//
//   - node 0 is V8's synthetic root "", with one edge to "(GC roots)", whose
//     only child is the Dart root; the Dart root, the read-only pages and
//     the isolates are synthetic nodes, and an isolate's statics are
//     property edges named by the static fields. The Dart root still
//     dominates everything, as in the Dart graph, so DevTools' retained
//     sizes are the Dart ones;
//   - objects are named by their class, qualified by the library where two
//     libraries define the same name (DevTools' Summary groups objects by
//     name); strings are "string" nodes named by their value; _Smi, _Mint
//     and _Double are "number" nodes named by theirs;
//   - user-visible collections (lists, maps, sets) are "object" nodes with
//     element edges, while their backing stores (a growable list's or a
//     map's _data and _index arrays) are "array" nodes, as V8's own
//     FixedArrays are: DevTools folds arrays into their owner;
//   - VM internals (classes without a library: Code, Function, Class, …)
//     are "hidden" (DevTools' "(system)"), code-like ones "code";
//   - classes heapconv made from another format (library URI
//     dartir.ForeignURI, see writers/dart) are nobody's internals: their
//     objects get back the kind the library name names when it is one of
//     V8's (else "object") and the name their name data holds (else the
//     class's), and their fields the edge kind their reserved string names
//     (else "property"), so that a V8 heap converted to Dart and back shows
//     DevTools the classes it had. A root of such a class (V8's own root,
//     synthetic) stays the root, without the "" and "(GC roots)" above it:
//     DevTools folds arrays into their owners only when the root has user
//     roots;
//   - each external property becomes a "native" node of its size, owned by
//     its object, so external memory is visible and retained;
//   - weak slots (_WeakProperty, _WeakReference, FinalizerEntry) are weak
//     edges; references 0 (unboxed slots) are not references and vanish;
//   - node ids come from identity hash codes (2h+1), so objects keep their
//     id across snapshots of one process; objects without a usable hash get
//     the free odd ids from 2^32 down;
//   - the header says the file was made from a Dart heap (v8ir.HeaderFrom
//     "dart") and keeps its class table (v8ir.HeaderDartClasses), and a
//     node field each node's class (v8ir.DartClassField), which DevTools
//     ignores: converting the file back to Dart gives every object its
//     class and every object its external properties again.
//
// It builds the V8 file directly (not through Convert's general path), so
// that a big heap is not copied twice.
func fromDart(f *ir.File) (*ir.File, ir.LossReport, error) {
	s := f.Snapshots[0]
	d := dartir.Of(s)
	n := s.Nodes.Len()
	out := &ir.File{Format: v8ir.Format, FormatVersion: "converted from " + f.Format, Producer: f.Producer}
	conv := &converter{src: f, s: s, strs: newInterner(f)}
	intern := conv.intern
	intern("<dummy>")
	intern("")
	kind, ekind := v8NodeKind, v8EdgeKind
	var (
		kHidden, kArray, kString, kObject = kind("hidden"), kind("array"), kind("string"), kind("object")
		kCode, kClosure, kNumber, kNative = kind("code"), kind("closure"), kind("number"), kind("native")
		kSynthetic                        = kind("synthetic")
		eElement, eProperty, eInternal    = ekind("element"), ekind("property"), ekind("internal")
		eWeak                             = ekind("weak")
	)

	// Class names, qualified where two libraries share one.
	c := &f.Classes
	className := make([]string, c.Len()+1) // by 1-origin class id
	labels := ir.ClassLabels(f)
	internal := make([]bool, c.Len()+1)
	foreign := make([]bool, c.Len()+1)
	fromV8 := make([]bool, c.Len()+1) // strings V8 cut already (stringName)
	for k := 0; k < c.Len(); k++ {
		className[k+1] = labels[k]
		internal[k+1] = f.String(d.ClassURI[k]) == "" && f.String(c.Library[k]) == ""
		foreign[k+1] = dartir.IsForeignURI(f.String(d.ClassURI[k]))
		fromV8[k+1] = d.ClassMadeFrom(f, k) == v8ir.Format
	}

	// The edge kinds of the fields of classes made from another format,
	// which writers/dart keeps in the fields' reserved strings. They are
	// the references of objects in order while no reference is 0 (the
	// reader leaves those out).
	// A field of an indexed kind (a hidden edge, an element out of place)
	// is named by the edge's index.
	fieldKind := make([]uint8, len(c.FieldName))
	fieldIndex := make([]int64, len(c.FieldName)) // -1: named by the field's name
	for j := range fieldKind {
		fieldKind[j], fieldIndex[j] = eProperty, -1
		if j < len(d.FieldReserved) {
			name := f.String(d.FieldReserved[j])
			k := slices.IndexFunc(ir.V8EdgeKinds, func(x ir.EdgeKind) bool { return x.Name == name })
			if k < 0 {
				continue
			}
			if !ir.V8EdgeKinds[k].Indexed {
				fieldKind[j] = uint8(k)
			} else if x, err := strconv.ParseUint(f.String(c.FieldName[j]), 10, 32); err == nil {
				fieldKind[j], fieldIndex[j] = uint8(k), int64(x)
			}
		}
	}

	// Backing stores: what a collection's _data / _index slots hold.
	backing := make([]bool, n)
	for i := 0; i < n; i++ {
		cls := s.Nodes.Class[i]
		if cls == 0 || foreign[cls] || !dartCollection(f.String(c.Name[cls-1])) {
			continue
		}
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			if s.EdgeKindOf(e).Indexed {
				continue
			}
			switch strings.Trim(f.String(s.Edges.Name[e]), "_") {
			case "data", "index":
				backing[s.Edges.Target[e]] = true
			}
		}
	}

	o := &ir.Snapshot{Name: intern(f.String(s.Name)), CaptureTime: s.CaptureTime, Root: 0,
		NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds)}
	out.Snapshots = []*ir.Snapshot{o}
	nd, ed := &o.Nodes, &o.Edges
	// "" and "(GC roots)" come first, unless the root is V8's own: a heap
	// heapconv made from V8 keeps its root, which is synthetic, and the
	// roots below it (whether one is a user root decides whether DevTools
	// folds arrays into their owners' sizes).
	shift := 2
	if n > 0 && s.Root == 0 {
		if cls := s.Nodes.Class[0]; cls > 0 && foreign[cls] && int(cls) <= len(c.Library) && f.String(c.Library[cls-1]) == ir.KindSynthetic {
			shift = 0
		}
	}
	total := n + shift + len(d.ExternalNode)
	if uint64(total) >= math.MaxUint32/8 {
		return nil, nil, fmt.Errorf("v8: %d nodes are more than DevTools can index", total)
	}
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.FirstEdge = make([]uint32, 1, total+1)
	ids := make([]uint64, 0, total)
	var dartClass ir.Uints // per node: its Dart class, 0 for none (v8ir.DartClassField)
	dartClass.AppendZeros(shift)
	classIdx := make([]uint32, len(className)) // interned class names, +1
	srcIdx := make([]uint32, len(f.Strings))   // interned source strings, +1
	srcName := func(i uint32) uint32 {
		if int(i) >= len(srcIdx) {
			return intern(f.String(i))
		}
		if srcIdx[i] == 0 {
			srcIdx[i] = intern(f.Strings[i]) + 1
		}
		return srcIdx[i] - 1
	}
	var bigSizes int
	addNodeIdx := func(k uint8, name uint32, size, id uint64) {
		nd.Kind = append(nd.Kind, k)
		nd.Name = append(nd.Name, name)
		if size > math.MaxUint32 {
			size = math.MaxUint32
			bigSizes++
		}
		nd.SelfSize.Append(size)
		ids = append(ids, id)
	}
	addNode := func(k uint8, name string, size, id uint64) { addNodeIdx(k, intern(name), size, id) }
	edge := func(k uint8, name uint32, target int) {
		ed.Kind = append(ed.Kind, k)
		ed.Name = append(ed.Name, name)
		ed.Target = append(ed.Target, uint32(target))
	}
	endNode := func() { nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len())) }

	if shift > 0 {
		addNode(kSynthetic, "", 0, 0)
		if n > 0 && s.Root != ir.NoNode {
			edge(eElement, 1, 1)
		}
		endNode()
		addNode(kSynthetic, "(GC roots)", 0, 0)
		if n > 0 && s.Root != ir.NoNode {
			edge(eElement, 1, int(s.Root)+shift)
		}
		endNode()
	}

	// Values by node.
	v := &s.Values
	vi := 0
	ext := 0 // next external property, in node order below
	extOrder := make([]int, len(d.ExternalNode))
	for k := range extOrder {
		extOrder[k] = k
	}
	slices.SortStableFunc(extOrder, func(a, b int) int { return int(d.ExternalNode[a]) - int(d.ExternalNode[b]) })
	nextNative := n + shift
	// How a node's name was shortened, for the loss report, which counts
	// each renamed object once: vmCut, a string the VM truncated, named
	// with "..." (dart-truncated-strings); lengthCut, a string whose
	// contents stringName cut (truncated-names). Made when first needed.
	const (
		vmCut = 1 + iota
		lengthCut
	)
	var cut []uint8
	markCut := func(i int, how uint8) {
		if cut == nil {
			cut = make([]uint8, n)
		}
		cut[i] = how
	}
	// What each class makes of its objects, decided once per class.
	kindOf := make([]uint8, len(className))
	special := make([]uint8, len(className)) // 1 Read-Only Pages, 2 Isolate
	for cls := range kindOf {
		cname := ""
		if cls > 0 {
			cname = f.String(c.Name[cls-1])
		}
		switch {
		case foreign[cls]:
			kindOf[cls] = kObject
			if int(cls) <= len(c.Library) && slices.Contains(ir.V8NodeKinds, f.String(c.Library[cls-1])) {
				kindOf[cls] = kind(f.String(c.Library[cls-1]))
			}
		case cls > 0 && cls <= 3 && internal[cls] && cname == "Read-Only Pages":
			kindOf[cls], special[cls] = kSynthetic, 1
		case cls > 0 && cls <= 3 && internal[cls] && cname == "Isolate":
			kindOf[cls], special[cls] = kSynthetic, 2
		case dartString(cname):
			kindOf[cls] = kString
		case cname == "_Smi" || cname == "_Mint" || cname == "_Double":
			kindOf[cls] = kNumber
		case cname == "_Closure":
			kindOf[cls] = kClosure
		case dartCode(cname):
			kindOf[cls] = kCode
		case cls == 0 || internal[cls]:
			kindOf[cls] = kHidden
		default:
			kindOf[cls] = kObject
		}
	}
	for i := 0; i < n; i++ {
		cls := s.Nodes.Class[i]
		for vi < len(v.Node) && v.Node[vi] < uint32(i) {
			vi++
		}
		hasVal := vi < len(v.Node) && v.Node[vi] == uint32(i)
		value := func() string {
			switch v.Kind[vi] {
			case ir.ValueString:
				if v.Aux[vi] != 0 {
					markCut(i, vmCut)
					return f.String(uint32(v.Bits[vi])) + "..."
				}
				return f.String(uint32(v.Bits[vi]))
			case ir.ValueInt:
				return strconv.FormatInt(int64(v.Bits[vi]), 10)
			case ir.ValueFloat:
				return strconv.FormatFloat(math.Float64frombits(v.Bits[vi]), 'g', -1, 64)
			case ir.ValueBool:
				return strconv.FormatBool(v.Bits[vi] != 0)
			case ir.ValueLength:
				return "length " + strconv.FormatUint(v.Bits[vi], 10)
			}
			return "null"
		}
		k := kindOf[cls]
		name := ""
		named := false // name set; else the class's
		switch {
		case i == int(s.Root) && shift > 0:
			k, name, named = kSynthetic, "(Dart VM roots)", true
		case special[cls] == 1:
			name, named = "(Read-Only Pages)", true
		case special[cls] == 2:
			name, named = "(Isolate "+f.String(s.Name)+")", true
			if hasVal {
				name = "(Isolate " + f.String(s.Name) + " port " + value() + ")"
			}
		case foreign[cls]:
			// The source's name, which the Dart writer kept as name data
			// (a string's and a number's is their value).
			if hasVal && (s.Nodes.Kind[i] == dartir.NameData || k == kString || k == kNumber) {
				name, named = value(), true
			}
		case k == kString || k == kNumber:
			if hasVal {
				name, named = value(), true
			}
		case k == kObject && backing[i]:
			k = kArray
		case (k == kCode || k == kHidden) && hasVal && s.Nodes.Kind[i] == dartir.NameData:
			name, named = className[cls]+" "+value(), true
		}
		id := uint64(0)
		if d.IdentityHashes {
			id = s.Nodes.ID.At(i)
		}
		if !named {
			if classIdx[cls] == 0 {
				classIdx[cls] = intern(className[cls]) + 1
			}
			addNodeIdx(k, classIdx[cls]-1, s.Nodes.SelfSize.At(i), id)
		} else if isStringKind(o.NodeKinds[k]) {
			before := conv.cutStrings
			addNodeIdx(k, conv.stringName(name, fromV8[cls]), s.Nodes.SelfSize.At(i), id)
			if conv.cutStrings > before {
				markCut(i, lengthCut)
			}
		} else {
			addNode(k, name, s.Nodes.SelfSize.At(i), id)
		}
		if k == kSynthetic {
			dartClass.Append(0) // the VM's pseudo-objects: DevTools' synthetic nodes
		} else {
			dartClass.Append(uint64(cls))
		}
		lo, hi := s.Nodes.EdgeRange(i)
		first, nf := 0, 0 // the fields whose kinds fieldKind has
		if foreign[cls] && len(d.ZeroRefNode) == 0 {
			first, nf = int(c.FirstField[cls-1]), int(c.FirstField[cls]-c.FirstField[cls-1])
		}
		for e := lo; e < hi; e++ {
			to := int(s.Edges.Target[e]) + shift
			if p := e - lo; p < nf {
				if x := fieldIndex[first+p]; x >= 0 {
					edge(fieldKind[first+p], uint32(x), to)
				} else {
					edge(fieldKind[first+p], srcName(s.Edges.Name[e]), to)
				}
				continue
			}
			switch ek := s.EdgeKindOf(e); {
			case ek.Name == "weak":
				edge(eWeak, srcName(s.Edges.Name[e]), to)
			case ek.Indexed:
				edge(eElement, s.Edges.Name[e], to)
			default:
				if f.String(s.Edges.Name[e]) == "" {
					edge(eElement, uint32(e-lo), to)
				} else {
					edge(eProperty, srcName(s.Edges.Name[e]), to)
				}
			}
		}
		for ext < len(extOrder) && d.ExternalNode[extOrder[ext]] == uint32(i) {
			edge(eInternal, intern(v8ir.ExternalEdge), nextNative)
			nextNative++
			ext++
		}
		endNode()
	}
	for _, k := range extOrder {
		addNode(kNative, f.String(d.ExternalName[k]), d.ExternalSize.At(k), 0)
		endNode()
	}
	dartClass.AppendZeros(len(extOrder))

	var loss ir.LossReport
	assignIDs(nd, ids)
	// Counted among the objects: the VM's pseudo-objects (the root, the
	// isolates, the read-only pages) are none.
	objects := ir.ObjectNodes(f, s)
	// Each object whose name changed counts under one kind: strings the VM
	// truncated, strings cut to MaxStringUnits (stringsLoss), or the rest.
	var renamed, vmTruncated int
	var renamedExample string
	for i := range n {
		srcName, outName := f.String(s.Nodes.Name[i]), conv.strs.Strings[nd.Name[i+shift]]
		if !objects[i] || srcName == outName {
			continue
		}
		switch {
		case cut != nil && cut[i] == vmCut:
			vmTruncated++
		case cut != nil && cut[i] == lengthCut:
		default:
			if renamed == 0 {
				renamedExample = fmt.Sprintf("%q named %q", srcName, outName)
			}
			renamed++
		}
	}
	if vmTruncated > 0 {
		loss.Add("dart-truncated-strings", int64(vmTruncated), "strings were truncated by the Dart VM (it keeps 128 code units); their names end in \"...\" and their full length is not kept")
	}
	conv.stringsLoss(&loss)
	if bigSizes > 0 {
		loss.Add(ir.LossSizesCapped, int64(bigSizes), "objects or external properties of 4 GiB or more: DevTools stores sizes in 32 bits, so they are capped at 2^32-1")
	}
	if len(d.ZeroRefNode) > 0 {
		loss.Add("dart-zero-refs", int64(len(d.ZeroRefNode)), "references 0 (unboxed slots, omitted targets) are not references in V8")
	}
	o.Totals = []ir.Total{{Name: v8ir.HeaderExtraNativeBytes, Value: 0}} // external properties are native nodes
	if changed, example := ir.TotalsChanged(s.Totals, o.Totals); changed > 0 {
		loss.Add(ir.LossTotals, int64(changed), "the Dart header figures (shallowSize, capacity, externalSize) have no place in a V8 snapshot; its extra_native_bytes is 0, as external properties are native nodes").
			WithExample(example)
	}
	externalTotalsLoss(&loss, s.Totals, "extra_native_bytes is 0, as external properties are native nodes held by their objects")
	if err := conv.checkStringsSize(); err != nil {
		return nil, loss, err
	}
	loss.Merge(conv.loss)
	out.Strings = conv.strs.Strings
	if changed, example := classesChanged(out, o, n, shift, func(i int) string { return className[s.Nodes.Class[i]] }); changed > 0 {
		loss.Add(ir.LossClasses, int64(changed), "objects are counted by DevTools under another class than their Dart class: strings, numbers, backing stores, closures, code and VM internals under its categories ((string), (number), (array), Function, (compiled code), (system)); the root, isolates and read-only pages are synthetic").
			WithExample(example)
	}
	if renamed > 0 {
		loss.Add(ir.LossNodeNames, int64(renamed), "objects are named as DevTools shows them: by their class, strings and numbers by their value, code and VM internals by class and name").
			WithExample(renamedExample)
	}
	if changed, example := changedNodes(n, objects, s.Nodes.ID.At, func(i int) uint64 { return o.Nodes.ID.At(i + shift) }, "id %d became %d"); changed > 0 {
		loss.Add(ir.LossNodeIDs, int64(changed), "V8 ids are unique odd numbers: an identity hash h is the id 2h+1; objects without one, or sharing one, get free odd ids from 2^32 down").
			WithExample(example)
	}
	// The values of objects: an isolate's port is in its name.
	if lost := objectValues(s, objects); lost > 0 {
		loss.Add(ir.LossValues, int64(lost), "values have no place in a V8 snapshot: strings and numbers are named by theirs, the rest is not kept")
	}
	loss.Merge(ir.SectionLoss(f, s, target))
	o.SetSection(v8ir.DefaultSection(o, ir.SnapshotName(f, s)))
	// The mark by which ir.UnmanagedOwners tells the native nodes of
	// external properties from objects.
	v8ir.Of(o).Header.Set(v8ir.HeaderFrom, ir.JSONStr(dartir.Format))
	// The Dart classes, for converting back (v8ir.HeaderDartClasses).
	table := make([]string, 0, 3*c.Len())
	for k := range c.Len() {
		table = append(table, f.String(c.Name[k]), f.String(c.Library[k]), f.String(d.ClassURI[k]))
	}
	v8ir.Of(o).Header.Set(v8ir.HeaderDartClasses, ir.JSONStrs(table...))
	v8ir.SetNodeFields(&v8ir.Of(o).Header, o.NodeKinds, v8ir.NodeDetachedness, v8ir.DartClassField)
	v8ir.Of(o).NodeExtra = append(v8ir.Of(o).NodeExtra, v8ir.Field{Name: v8ir.DartClassField, Values: dartClass})
	if err := out.Validate(); err != nil {
		return nil, loss, fmt.Errorf("v8: the Dart conversion produced an invalid graph: %w", err)
	}
	return out, loss, nil
}

// assignIDs gives every node a unique odd id below 2^32: 2h+1 for a node
// with a hash h (below 2^31) no other node has, else the free odd ids from
// the top. Nodes are sorted by hash with a radix sort: a map or a
// comparison sort would dominate converting a big heap.
func assignIDs(nd *ir.Nodes, hashes []uint64) {
	// Keys: hash in the high 32 bits, node in the low; nodes without a
	// usable hash are left out.
	keys := make([]uint64, 0, len(hashes))
	for i, h := range hashes {
		if h != 0 && h < 1<<31 {
			keys = append(keys, h<<32|uint64(i))
		}
	}
	tmp := make([]uint64, len(keys))
	for shift := uint(32); shift < 64; shift += 11 { // LSD radix on the hash bits
		var count [1 << 11]int
		for _, k := range keys {
			count[(k>>shift)&(1<<11-1)]++
		}
		sum := 0
		for b := range count {
			count[b], sum = sum, sum+count[b]
		}
		for _, k := range keys {
			b := (k >> shift) & (1<<11 - 1)
			tmp[count[b]] = k
			count[b]++
		}
		keys, tmp = tmp, keys
	}
	ids := make([]uint64, len(hashes))
	var used []uint64 // ascending
	for a := 0; a < len(keys); {
		b := a + 1
		for b < len(keys) && keys[b]>>32 == keys[a]>>32 {
			b++
		}
		if b == a+1 {
			id := 2*(keys[a]>>32) + 1
			ids[keys[a]&(1<<32-1)] = id
			used = append(used, id)
		}
		a = b
	}
	taken := func(id uint64) bool { _, ok := slices.BinarySearch(used, id); return ok }
	// Free ids from the top: walk down, skipping the used ones in step.
	next := uint64(math.MaxUint32 - 4) // odd, and below what Convert keeps
	top := len(used) - 1
	for i := range ids {
		switch {
		case ids[i] != 0:
		case i < 2 && !taken(uint64(2*i+1)):
			ids[i] = uint64(2*i + 1) // V8's root is id 1 and (GC roots) id 3, when free
		default:
			for {
				for top >= 0 && used[top] > next {
					top--
				}
				if (top < 0 || used[top] != next) && next > 3 {
					break
				}
				next -= 2
			}
			ids[i] = next
			next -= 2
		}
	}
	nd.ID.AppendAll(ids)
}

// dartString reports whether a Dart class is one of the VM's string classes.
func dartString(class string) bool {
	switch class {
	case "_OneByteString", "_TwoByteString", "_ExternalOneByteString", "_ExternalTwoByteString", "String":
		return true
	}
	return false
}

// dartCollection reports whether a Dart class is a user-visible collection
// whose backing stores are held in _data / _index slots.
func dartCollection(class string) bool {
	switch class {
	case "_GrowableList", "_Map", "_ConstMap", "_Set", "_ConstSet", "_HashMap", "_LinkedHashMap",
		"_InternalLinkedHashMap", "_CompactLinkedHashSet", "_InternalImmutableLinkedHashMap",
		"_CompactImmutableLinkedHashSet", "_LinkedHashSet", "_HashSet":
		return true
	}
	return false
}

// dartCode reports whether a Dart class holds compiled code or its
// metadata (DevTools' "(compiled code)").
func dartCode(class string) bool {
	switch class {
	case "Code", "Instructions", "InstructionsSection", "InstructionsTable", "ObjectPool", "PcDescriptors",
		"CodeSourceMap", "CompressedStackMaps", "ExceptionHandlers", "Bytecode":
		return true
	}
	return false
}

// changedNodes counts the nodes i < n whose want(i) (the source's) is not
// got(i) (the output's), of those objects marks (all when nil), and shows
// the first as format shows the pair.
func changedNodes[T comparable](n int, objects []bool, want, got func(i int) T, format string) (int, string) {
	changed, example := 0, ""
	for i := 0; i < n; i++ {
		if objects != nil && !objects[i] {
			continue
		}
		if w, g := want(i), got(i); w != g {
			if changed == 0 {
				example = fmt.Sprintf(format, w, g)
			}
			changed++
		}
	}
	return changed, example
}

// classesChanged counts the source's nodes (node i is out's node i+shift)
// that DevTools counts under another class than class(i), the one the
// source counts them under, and shows the first.
func classesChanged(out *ir.File, o *ir.Snapshot, n, shift int, class func(i int) string) (int, string) {
	return changedNodes(n, nil, class, func(i int) string { return analysis.ClassName(out, o, i+shift) }, "%q counted as %q")
}

// objectValues counts the values of s that belong to objects (ir.ObjectNodes'
// marks), which a conversion that keeps no values loses.
func objectValues(s *ir.Snapshot, objects []bool) int {
	n := 0
	for _, node := range s.Values.Node {
		if int(node) < len(objects) && objects[node] {
			n++
		}
	}
	return n
}

// externalTotalsLoss names, as a loss of external sizes, the source's
// external memory totals that count some memory (ir.ExternalTotals): V8's
// own, extra_native_bytes, is 0 in what the converter writes, and why says
// where that memory is instead. A total of 0 bytes loses no memory (the
// totals line names the total itself).
func externalTotalsLoss(loss *ir.LossReport, from []ir.Total, why string) {
	n, bytes := ir.ExternalTotals(from)
	if n == 0 {
		return
	}
	var kept []string
	for _, t := range from {
		if ir.IsExternalTotal(t.Name) && t.Value > 0 {
			kept = append(kept, fmt.Sprintf("%s=%d", t.Name, t.Value))
		}
	}
	loss.Addf(ir.LossExternalSizes, int64(n), "the source's external memory totals (%d bytes) are not kept: %s", bytes, why).
		WithExample(strings.Join(kept, ", "))
}
