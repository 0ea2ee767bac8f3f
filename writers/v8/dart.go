package v8

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"heapconv/ir"
)

// A Dart heap converted to V8 should read in DevTools as naturally as a
// JavaScript heap. fromDart reshapes a snapshot read from a Dart file (see
// ir/dart.go) into a graph with V8's node and edge kinds, which Convert then
// writes like any other:
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
//   - each external property becomes a "native" node of its size, owned by
//     its object, so external memory is visible and retained;
//   - weak slots (_WeakProperty, _WeakReference, FinalizerEntry) are weak
//     edges; references 0 (unboxed slots) are not references and vanish;
//   - node ids come from identity hash codes (2h+1), so objects keep their
//     id across snapshots of one process; objects without a usable hash get
//     the free odd ids from 2^32 down.
func fromDart(f *ir.File) (*ir.File, ir.LossReport) {
	s := f.Snapshots[0]
	d := s.Dart
	n := s.Nodes.Len()
	out := &ir.File{Format: f.Format, FormatVersion: f.FormatVersion, Producer: f.Producer}
	strs := map[string]uint32{}
	intern := func(str string) uint32 {
		if i, ok := strs[str]; ok {
			return i
		}
		i := uint32(len(out.Strings))
		out.Strings = append(out.Strings, str)
		strs[str] = i
		return i
	}
	intern("")
	kind := func(name string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, name)) }
	ekind := func(name string) uint8 {
		return uint8(slices.IndexFunc(ir.V8EdgeKinds, func(k ir.EdgeKind) bool { return k.Name == name }))
	}
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
	libOf := func(k int) string {
		if k < len(d.ClassURI) && f.String(d.ClassURI[k]) != "" {
			return f.String(d.ClassURI[k])
		}
		return f.String(c.Library[k])
	}
	libsOf := map[string]map[string]bool{}
	for k := 0; k < c.Len(); k++ {
		name := f.String(c.Name[k])
		if libsOf[name] == nil {
			libsOf[name] = map[string]bool{}
		}
		libsOf[name][libOf(k)] = true
	}
	internal := make([]bool, c.Len()+1)
	for k := 0; k < c.Len(); k++ {
		name := f.String(c.Name[k])
		className[k+1] = name
		if len(libsOf[name]) > 1 && libOf(k) != "" {
			className[k+1] = name + " (" + libOf(k) + ")"
		}
		internal[k+1] = libOf(k) == "" && f.String(c.Library[k]) == ""
	}

	// Backing stores: what a collection's _data / _index slots hold.
	backing := make([]bool, n)
	for i := 0; i < n; i++ {
		cls := s.Nodes.Class[i]
		if cls == 0 || !dartCollection(f.String(c.Name[cls-1])) {
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
	const shift = 2 // "" and "(GC roots)" come first
	total := n + shift + len(d.ExternalNode)
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.FirstEdge = make([]uint32, 1, total+1)
	ids := make([]uint64, 0, total)
	addNode := func(k uint8, name string, size, id uint64) {
		nd.Kind = append(nd.Kind, k)
		nd.Name = append(nd.Name, intern(name))
		nd.SelfSize.Append(min(size, math.MaxUint32))
		ids = append(ids, id)
	}
	edge := func(k uint8, name uint32, target int) {
		ed.Kind = append(ed.Kind, k)
		ed.Name = append(ed.Name, name)
		ed.Target = append(ed.Target, uint32(target))
	}
	endNode := func() { nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len())) }

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
	var truncated int
	for i := 0; i < n; i++ {
		cls := s.Nodes.Class[i]
		name := className[cls]
		cname := ""
		if cls > 0 {
			cname = f.String(c.Name[cls-1])
		}
		var val string
		hasVal := false
		for vi < len(v.Node) && v.Node[vi] < uint32(i) {
			vi++
		}
		if vi < len(v.Node) && v.Node[vi] == uint32(i) {
			hasVal = true
			switch v.Kind[vi] {
			case ir.ValueString:
				val = f.String(uint32(v.Bits[vi]))
				if v.Aux[vi] != 0 {
					val += "..."
					truncated++
				}
			case ir.ValueInt:
				val = strconv.FormatInt(int64(v.Bits[vi]), 10)
			case ir.ValueFloat:
				val = strconv.FormatFloat(math.Float64frombits(v.Bits[vi]), 'g', -1, 64)
			case ir.ValueBool:
				val = strconv.FormatBool(v.Bits[vi] != 0)
			case ir.ValueLength:
				val = "length " + strconv.FormatUint(v.Bits[vi], 10)
			case ir.ValueNull:
				val = "null"
			}
		}
		k := kObject
		switch {
		case i == int(s.Root) || (cls <= 3 && internal[cls] && (cname == "Read-Only Pages" || cname == "Isolate")):
			k = kSynthetic
			switch {
			case i == int(s.Root):
				name = "(Dart VM roots)"
			case cname == "Isolate":
				name = "(Isolate " + f.String(s.Name) + ")"
				if hasVal {
					name = "(Isolate " + f.String(s.Name) + " port " + val + ")"
				}
			default:
				name = "(" + cname + ")"
			}
		case dartString(cname):
			k = kString
			if hasVal {
				name = val
			}
		case cname == "_Smi" || cname == "_Mint" || cname == "_Double":
			k = kNumber
			if hasVal {
				name = val
			}
		case backing[i]:
			k = kArray
		case cname == "_Closure":
			k = kClosure
		case dartCode(cname):
			k = kCode
			if hasVal && s.Nodes.Kind[i] == ir.DartNameData {
				name += " " + val
			}
		case cls == 0 || internal[cls]:
			k = kHidden
			if hasVal && s.Nodes.Kind[i] == ir.DartNameData {
				name += " " + val
			}
		}
		id := uint64(0)
		if d.IdentityHashes {
			id = s.Nodes.ID.At(i)
		}
		addNode(k, name, s.Nodes.SelfSize.At(i), id)
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			to := int(s.Edges.Target[e]) + shift
			switch ek := s.EdgeKindOf(e); {
			case ek.Name == "weak":
				edge(eWeak, intern(f.String(s.Edges.Name[e])), to)
			case ek.Indexed:
				edge(eElement, s.Edges.Name[e], to)
			default:
				fn := f.String(s.Edges.Name[e])
				if fn == "" {
					edge(eElement, uint32(e-lo), to)
				} else {
					edge(eProperty, intern(fn), to)
				}
			}
		}
		for ext < len(extOrder) && d.ExternalNode[extOrder[ext]] == uint32(i) {
			edge(eInternal, intern("external"), nextNative)
			nextNative++
			ext++
		}
		endNode()
	}
	for _, k := range extOrder {
		addNode(kNative, f.String(d.ExternalName[k]), d.ExternalSize.At(k), 0)
		endNode()
	}

	var loss ir.LossReport
	assignIDs(nd, ids)
	if truncated > 0 {
		loss.Addf("%d strings were truncated by the Dart VM (it keeps 128 code units); their names end in \"...\"", truncated)
	}
	if len(d.ZeroRefNode) > 0 {
		loss.Addf("%d references 0 (unboxed slots, omitted targets) are not references in V8", len(d.ZeroRefNode))
	}
	loss.Addf("the Dart header figures (shallowSize, capacity, externalSize) have no place in a V8 snapshot; external properties are native nodes")
	return out, loss
}

// assignIDs gives every node a unique odd id below 2^32: 2h+1 for a node
// with a hash h no other node has, else the free odd ids from the top.
func assignIDs(nd *ir.Nodes, hashes []uint64) {
	count := map[uint64]int{}
	for _, h := range hashes {
		if h != 0 && h < math.MaxUint32/2 {
			count[h]++
		}
	}
	used := map[uint64]bool{}
	for _, h := range hashes {
		if count[h] == 1 {
			used[2*h+1] = true
		}
	}
	next := uint64(math.MaxUint32 - 4) // odd, and below what Convert keeps
	// V8's root is id 1, (GC roots) id 3, as V8 numbers them, when free.
	for i, h := range hashes {
		id := uint64(0)
		switch {
		case count[h] == 1:
			id = 2*h + 1
		case i < 2 && !used[uint64(2*i+1)]:
			id = uint64(2*i + 1)
			used[id] = true
		default:
			for used[next] {
				next -= 2
			}
			id = next
			used[id] = true
		}
		nd.ID.Append(id)
	}
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
		"_CompactImmutableLinkedHashSet", "_LinkedHashSet", "_HashSet", "_Uint8ArrayView":
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
