package devtools

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// A MoarVM heap converted to V8 should read in DevTools like a JavaScript
// heap. fromMoarVM (which Convert calls for a file read from a MoarVM
// snapshot, see ir/moarvm/section.go) builds it from V8's node and edge kinds:
//
//   - node 0 is V8's synthetic root "", with one element edge to MoarVM's
//     root (collectable 0, kind Root), which becomes the synthetic
//     "(GC roots)": both are the node from which MoarVM finds the roots, so
//     it keeps its references ("Permanent Roots", …) as they are. Below it,
//     the root categories (kinds 5–8, 10, 11) are synthetic nodes named like
//     V8's subroots, "(Permanent Roots)", "(VM Instance Roots)", and for the
//     per-thread kinds "(C Stack Roots, thread 1)" and so on, numbered in
//     MoarVM's thread order. Collectable i is node i+1. The root has no
//     non-synthetic child, so DevTools treats the file like an
//     exposeInternals snapshot: no size folding, plain hop distances, and
//     retained sizes are MoarVM's own dominators;
//   - objects are "object" nodes named by their type, qualified by the REPR
//     where two REPRs' types share a name ("Foo (P6opaque)"), since DevTools'
//     Summary groups objects by name. DevTools cuts a name that starts with
//     "<" at its first space (it takes it for an HTML tag), which would merge
//     every "<anon REPR>" type into one "<anon>" row; such names are written
//     with no-break spaces, which look the same. VMString objects stay
//     objects: the snapshot holds no string contents, and a "string" node is
//     shown by its name as if it were the text. An object whose type's REPR
//     name is one of V8's node kinds ("string", "hidden", "synthetic", …;
//     MoarVM's REPRs are CamelCase names) has a type heapconv made from a
//     V8 kind (see writers/moarvm) and gets that kind back, so that a V8
//     heap converted to MoarVM and back has its kinds and classes. In such
//     a heap MoarVM's Root was V8's root: it is node 0, named "", without
//     the "" and "(GC roots)" above it;
//   - type objects and STables are "hidden" (DevTools' "(system)"): they are
//     type metadata, as V8's maps are, not code; they are named
//     "Foo (type object)" and "Foo (STable)";
//   - frames are "closure" nodes (DevTools' "Function"), named "name
//     (file:line)" from the static frame, "<anon>" for an empty name: a
//     MoarVM frame is a live invocation with its lexicals, as a JS closure
//     is the function with its context;
//   - string references are property edges named by the string, index
//     references element edges; unknown references (MoarVM's gc_mark
//     fallback, which has no name) are hidden edges numbered 0, 1, … within
//     their collectable, so they stay apart and keep their order. A string
//     reference whose index lies outside the string heap, and reference
//     kind 3, become internal edges with a made-up name. In a heap made from
//     V8 (above), a description that keeps an edge's kind
//     (moarvmir.EdgeKindMark: "(weak) name") of an object's or the root's
//     reference gives that edge its kind and name or index again;
//   - unmanaged memory (colusize) is a "native" node of that size after all
//     collectables, named "(unmanaged) <owner's name>" ("(unmanaged) Frame"
//     for all frames), owned through an internal edge "unmanaged"
//     (v8ir.UnmanagedEdge), as V8's own off-heap backing stores are:
//     DevTools counts it in the owner's retained size and in its native
//     total, the owner's shallow size stays the managed one, and the
//     Summary shows unmanaged memory by type;
//   - the snapshot header says what the file is: its key "heapconv_from"
//     (v8ir.HeaderFrom) is "moarvm", which DevTools ignores and heapconv's
//     V8 reader keeps. It marks the native nodes as unmanaged memory
//     (ir.UnmanagedOwners) and the rest as this mapping, which
//     writers/moarvm undoes: MoarVM → V8 → MoarVM gives the heap back. A
//     heap heapconv made from V8 (below) is V8's again and gets no mark;
//   - ids are 2j+1 for node j: MoarVM has no object identity across
//     snapshots, and V8 gives heap objects odd ids.
//
// It builds the V8 file directly, as fromDart does.
func fromMoarVM(f *ir.File) (*ir.File, ir.LossReport, error) {
	if len(f.Snapshots) != 1 {
		// Choosing one silently would hide the others: the caller selects.
		return nil, nil, fmt.Errorf("v8: a .heapsnapshot holds one snapshot; this MoarVM file has %d", len(f.Snapshots))
	}
	s := f.Snapshots[0]
	m := moarvmir.Of(s)
	mf := moarvmir.FileOf(f)
	n := s.Nodes.Len()
	var loss ir.LossReport
	conv := &converter{src: f, s: s, strs: newInterner(f)}
	intern := conv.intern
	intern("<dummy>")
	intern("")
	kind, ekind := v8NodeKind, v8EdgeKind
	var (
		kHidden, kObject, kClosure = kind(ir.KindHidden), kind(ir.KindObject), kind(ir.KindClosure)
		kNative, kSynthetic        = kind(ir.KindNative), kind(ir.KindSynthetic)
		eElement, eProperty        = ekind(ir.EdgeElement), ekind(ir.EdgeProperty)
		eInternal, eHidden         = ekind(ir.EdgeInternal), ekind(ir.EdgeHidden)
	)

	// colkind of each of the snapshot's node kinds (-1: not MoarVM's).
	colkind := make([]int, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		colkind[k] = slices.Index(moarvmir.NodeKinds, name)
	}
	// What each edge kind becomes.
	const (
		refString = iota
		refIndex
		refUnknown
		refOther // internal, with a made-up name
	)
	refKind := make([]int, len(s.EdgeKinds))
	for k, ek := range s.EdgeKinds {
		switch {
		case ek.Name == moarvmir.EdgeKinds[moarvmir.StringRef].Name && !ek.Indexed:
			refKind[k] = refString
		case ek.Name == moarvmir.EdgeKinds[moarvmir.IndexRef].Name && ek.Indexed:
			refKind[k] = refIndex
		case ek.Name == moarvmir.EdgeKinds[moarvmir.UnknownRef].Name:
			refKind[k] = refUnknown
		default:
			refKind[k] = refOther
		}
	}

	// Type names, qualified by REPR where two REPRs share one.
	labels := ir.ClassLabels(f)
	srcLabels := slices.Clone(labels)           // before DevTools' spelling, for the classes loss
	objKind := make([]uint8, f.Classes.Len()+1) // by 1-origin class: objects' kind
	fromV8 := make([]bool, f.Classes.Len()+1)   // by 1-origin class: a V8 heap's type
	for k := range objKind {
		objKind[k] = kObject
		if k > 0 && k <= len(f.Classes.Library) {
			if repr := f.String(f.Classes.Library[k-1]); slices.Contains(ir.V8NodeKinds, repr) {
				objKind[k], fromV8[k] = kind(repr), true
			}
		}
	}
	anyFromV8 := slices.Contains(fromV8, true)
	var tagNames int
	for k, l := range labels {
		if safe := devtoolsClassName(l); safe != l {
			labels[k] = safe
			tagNames++
		}
	}
	typeName := func(i int) string {
		if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && int(s.Nodes.Class[i]) <= len(labels) {
			return labels[s.Nodes.Class[i]-1]
		}
		return devtoolsClassName(f.String(s.Nodes.Name[i]))
	}
	// Interned names memoized per type (objects, type objects, STables) and
	// per static frame: most nodes share them.
	nt := f.Classes.Len()
	objName := make([]uint32, nt+1) // by 1-origin class, +1
	typeObjName := make([]uint32, nt+1)
	stableName := make([]uint32, nt+1)
	classOf := func(i int) int {
		if len(s.Nodes.Class) > 0 && int(s.Nodes.Class[i]) <= nt {
			return int(s.Nodes.Class[i])
		}
		return 0
	}
	memo := func(tab []uint32, i int, suffix string) uint32 {
		c := classOf(i)
		if c == 0 { // no type: not shared
			return intern(typeName(i) + suffix)
		}
		if tab[c] == 0 {
			tab[c] = intern(typeName(i)+suffix) + 1
		}
		return tab[c] - 1
	}
	nFrames := 0
	if mf != nil {
		nFrames = mf.Frames()
	}
	frameName := make([]uint32, nFrames) // +1
	frameNodeName := func(i int) uint32 {
		if m != nil && mf != nil {
			if t := m.TOFI.At(i); t < uint64(nFrames) {
				if frameName[t] == 0 {
					name := f.String(mf.FrameName[t])
					if name == "" {
						name = "<anon>"
					}
					name += " (" + f.String(mf.FrameFile[t]) + ":" + strconv.FormatUint(uint64(mf.FrameLine[t]), 10) + ")"
					frameName[t] = intern(name) + 1
				}
				return frameName[t] - 1
			}
		}
		if name := f.String(s.Nodes.Name[i]); name != "" {
			return conv.internSrc(s.Nodes.Name[i])
		}
		return intern("<anon>")
	}

	o := &ir.Snapshot{Name: intern(f.String(s.Name)), CaptureTime: s.CaptureTime, Root: 0,
		NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds)}
	out := &ir.File{Format: v8ir.Format, FormatVersion: "converted from " + f.Format, Producer: f.Producer,
		Snapshots: []*ir.Snapshot{o}}
	nd, ed := &o.Nodes, &o.Edges
	// The V8 root comes first, unless the heap is one heapconv made from V8
	// (a type is named by a V8 kind): MoarVM's Root was V8's root then, and
	// stays the root with the roots V8 wrote below it (whether one is a
	// user root decides whether DevTools folds arrays into their owners).
	shift := 1
	if n > 0 && s.Root == 0 && anyFromV8 {
		shift = 0
	}
	ext := &s.Nodes.ExternalSize
	hasExt := ext.Len() == n
	natives := 0
	if hasExt {
		for i := 0; i < n; i++ {
			if ext.At(i) > 0 {
				natives++
			}
		}
	}
	total := shift + n + natives
	if uint64(total) >= math.MaxUint32/8 {
		return nil, nil, fmt.Errorf("v8: %d nodes are more than DevTools can index", total)
	}
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.FirstEdge = make([]uint32, 1, total+1)
	nd.SelfSize.Reserve(total)
	ed.Kind = make([]uint8, 0, s.Edges.Len()+1+natives)
	ed.Name = make([]uint32, 0, s.Edges.Len()+1+natives)
	ed.Target = make([]uint32, 0, s.Edges.Len()+1+natives)
	var bigSizes int
	addNode := func(k uint8, name uint32, size uint64) {
		nd.Kind = append(nd.Kind, k)
		nd.Name = append(nd.Name, name)
		if size > math.MaxUint32 {
			size = math.MaxUint32
			bigSizes++
		}
		nd.SelfSize.Append(size)
	}
	edge := func(k uint8, name uint32, target int) {
		ed.Kind = append(ed.Kind, k)
		ed.Name = append(ed.Name, name)
		ed.Target = append(ed.Target, uint32(target))
	}
	endNode := func() { nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len())) }

	if shift > 0 {
		addNode(kSynthetic, intern(""), 0)
		if n > 0 && s.Root != ir.NoNode {
			edge(eElement, 1, int(s.Root)+shift)
		}
		endNode()
	}

	var (
		threadSeen  [moarvmir.CallStackRoots + 1]int // per-thread root kinds met so far
		oddKinds    = map[string]int{}               // kinds MoarVM does not write, by name
		rootTOFI    int                              // root kinds with a colTOFI other than 0
		badStrings  int
		renumbered  int // unknown references whose index is not their place
		otherRefs   = map[string]int{}
		nativeOwner = make([]uint32, 0, natives) // out node owning each native node
		unmanaged   = intern(v8ir.UnmanagedEdge)
	)
	for i := 0; i < n; i++ {
		ck := -1
		if k := int(s.Nodes.Kind[i]); k < len(colkind) {
			ck = colkind[k]
		}
		size := s.Nodes.SelfSize.At(i)
		switch ck {
		case moarvmir.Object:
			addNode(objKind[classOf(i)], memo(objName, i, ""), size)
		case moarvmir.TypeObject:
			addNode(kHidden, memo(typeObjName, i, " (type object)"), size)
		case moarvmir.STable:
			addNode(kHidden, memo(stableName, i, " (STable)"), size)
		case moarvmir.Frame:
			addNode(kClosure, frameNodeName(i), size)
		case moarvmir.PermRoots, moarvmir.InstanceRoots, moarvmir.CStackRoots, moarvmir.ThreadRoots,
			moarvmir.Root, moarvmir.InterGenRoots, moarvmir.CallStackRoots:
			name := "(" + moarvmir.RootNames[ck] + ")"
			switch ck {
			case moarvmir.Root:
				switch {
				case i == int(s.Root) && shift == 0:
					name = "" // V8's root, as V8 names it
				case i == int(s.Root):
					name = "(GC roots)"
				}
			case moarvmir.CStackRoots, moarvmir.ThreadRoots, moarvmir.InterGenRoots, moarvmir.CallStackRoots:
				threadSeen[ck]++
				name = "(" + moarvmir.RootNames[ck] + ", thread " + strconv.Itoa(threadSeen[ck]) + ")"
			}
			addNode(kSynthetic, intern(name), size)
			if m != nil && m.TOFI.At(i) != 0 {
				rootTOFI++
			}
		default:
			kn := "kind " + strconv.Itoa(int(s.Nodes.Kind[i]))
			if int(s.Nodes.Kind[i]) < len(s.NodeKinds) {
				kn = s.NodeKindName(i)
			}
			oddKinds[kn]++
			addNode(kHidden, intern("("+kn+")"), size)
		}
		lo, hi := s.Nodes.EdgeRange(i)
		unknown := uint32(0)
		for e := lo; e < hi; e++ {
			to := int(s.Edges.Target[e]) + shift
			name := s.Edges.Name[e]
			k := s.Edges.Kind[e]
			switch refKind[k] {
			case refString:
				// A V8 heap's object, and its root, keep their edges'
				// kinds in their descriptions (moarvmir.EdgeKindMark).
				if ck == moarvmir.Object && fromV8[classOf(i)] || ck == moarvmir.Root && i == int(s.Root) && shift == 0 && anyFromV8 {
					if kn, rest, ok := moarvmir.ParseEdgeKindMark(f.String(name)); ok {
						if j := slices.IndexFunc(ir.V8EdgeKinds, func(x ir.EdgeKind) bool { return x.Name == kn }); j >= 0 {
							if !ir.V8EdgeKinds[j].Indexed {
								edge(uint8(j), intern(rest), to)
								continue
							}
							if x, err := strconv.ParseUint(rest, 10, 32); err == nil {
								edge(uint8(j), uint32(x), to)
								continue
							}
						}
					}
				}
				edge(eProperty, conv.internSrc(name), to)
			case refIndex:
				edge(eElement, name, to)
			case refUnknown:
				if name != unknown {
					renumbered++
				}
				edge(eHidden, unknown, to)
				unknown++
			default:
				ek := s.EdgeKinds[k]
				var text string
				switch {
				case ek.Name == moarvmir.EdgeKinds[moarvmir.BadString].Name:
					text = "(string " + strconv.FormatUint(uint64(name), 10) + " out of range)"
					badStrings++
				case ek.Indexed:
					text = "(" + ek.Name + " " + strconv.FormatUint(uint64(name), 10) + ")"
					otherRefs[ek.Name]++
				default:
					text = "(" + ek.Name + " " + f.String(name) + ")"
					otherRefs[ek.Name]++
				}
				edge(eInternal, intern(text), to)
			}
		}
		if hasExt && ext.At(i) > 0 {
			edge(eInternal, unmanaged, shift+n+len(nativeOwner))
			nativeOwner = append(nativeOwner, uint32(i+shift))
		}
		endNode()
	}
	// Native nodes, named after their owners' types; frames share one name,
	// as they share DevTools' "Function" row (a row per static frame would
	// flood the Summary).
	nativeName := map[uint32]uint32{} // owner's name -> native's
	frameNative := intern("(unmanaged) Frame")
	for _, owner := range nativeOwner {
		on := nd.Name[owner]
		nn, ok := nativeName[on]
		switch {
		case nd.Kind[owner] == kClosure:
			nn = frameNative
		case !ok:
			nn = intern("(unmanaged) " + conv.strs.Strings[on])
			nativeName[on] = nn
		}
		addNode(kNative, nn, ext.At(int(owner)-shift))
		endNode()
	}
	nd.ID.Reserve(total)
	for j := 0; j < total; j++ {
		nd.ID.Append(uint64(2*j + 1))
	}

	// What V8 cannot hold, counted among the objects: the root collectables
	// are none.
	objects := ir.ObjectNodes(f, s)
	if n > 0 {
		// A collectable's id is its index, which V8's odd ids replace: the
		// user should know too why Comparison shows no matches.
		changed, example := changedNodes(n, objects, s.Nodes.ID.At, func(i int) uint64 { return nd.ID.At(i + shift) }, "id %d became %d")
		loss.Add(ir.LossNodeIDs, int64(changed), "collectables' ids are their index, which V8's odd ids 1, 3, 5, … in node order replace; MoarVM collectables have no identity across snapshots, so DevTools' Comparison view cannot match objects between two converted snapshots").
			WithExample(example)
	}
	if m != nil {
		loss.Add("moarvm-tofi", 0, "colTOFI (each collectable's type or static-frame index) is not kept: objects, type objects and STables are named by their type, frames by their static frame")
		if rootTOFI > 0 {
			// Apart from moarvm-tofi: a root's colTOFI is not in its name.
			loss.Add("moarvm-root-tofi", int64(rootTOFI), "root collectables have a colTOFI other than 0; it is dropped")
		}
		inOrder := true
		for i := 0; i < n && inOrder; i++ {
			if lo, hi := s.Nodes.EdgeRange(i); hi > lo && m.RefStart.At(i) != uint64(lo) {
				inOrder = false
			}
		}
		if !inOrder {
			loss.Add("moarvm-ref-order", 0, "the reference table's order (colrfstr) is not kept: references are grouped by collectable in collectable order")
		}
	}
	// Static frames are Function nodes, which writers/moarvm makes frames
	// again; DevTools' Summary ranks types itself.
	loss.Merge(ir.SectionLoss(f, nil, target))
	if mf != nil {
		if nFrames > 0 {
			loss.Add(moarvmir.LossStaticFrames, int64(nFrames), "static frames keep only their name, file and line, in frame node names; compilation-unit ids (sfcuid) are not kept")
		}
		if mf.Recovery != nil {
			loss.Add(ir.LossRecovered, 0, "the MoarVM file was damaged and read by recovery; the V8 file does not say so").
				WithExample(fmt.Sprintf("damaged at offset %d: %s", mf.Recovery.DamageAt, mf.Recovery.Reason))
		}
	}
	// Renamed collectables, by what renamed them.
	renamed := make([]int, len(moarvmir.NodeKinds)) // by colkind
	renamedAll, renamedExample := 0, ""
	for i := range n {
		srcName, outName := f.String(s.Nodes.Name[i]), conv.strs.Strings[nd.Name[i+shift]]
		if !objects[i] || srcName == outName {
			continue
		}
		if renamedAll == 0 {
			renamedExample = fmt.Sprintf("%q named %q", srcName, outName)
		}
		renamedAll++
		if k := int(s.Nodes.Kind[i]); k < len(colkind) && colkind[k] >= 0 {
			renamed[colkind[k]]++
		}
	}
	if renamedAll > 0 {
		loss.Addf(ir.LossNodeNames, int64(renamedAll), "collectables are named as DevTools shows them: %d frames \"name (file:line)\" after their static frame, %d type objects \"Foo (type object)\", %d STables \"Foo (STable)\", %d objects and others by their type, qualified by its REPR where two REPRs' types share a name, with no-break spaces in a name that starts with \"<\" (%d types), which DevTools would cut at the first space",
			renamed[moarvmir.Frame], renamed[moarvmir.TypeObject], renamed[moarvmir.STable],
			renamedAll-renamed[moarvmir.Frame]-renamed[moarvmir.TypeObject]-renamed[moarvmir.STable], tagNames).
			WithExample(renamedExample)
	}
	if renumbered > 0 {
		loss.Add(ir.LossEdgeNames, int64(renumbered), "unknown references are hidden edges numbered 0, 1, … within their collectable, which DevTools needs to tell them apart; their index (MoarVM writes 0) is not kept")
	}
	if badStrings > 0 {
		loss.Add("moarvm-bad-strings", int64(badStrings), "string references name a string outside the string heap (MoarVM's 16-bit wrap-around); they are internal edges named \"(string N out of range)\"")
	}
	if n, which := countByName(otherRefs); n > 0 {
		loss.Add(ir.LossEdgeKinds, n, "references of kinds MoarVM does not write are internal edges named \"(<kind> N)\"").WithExample(which)
	}
	if n, which := countByName(oddKinds); n > 0 {
		loss.Add(ir.LossNodeKinds, n, "collectables of kinds MoarVM does not write are hidden nodes").WithExample(which)
	}
	if bigSizes > 0 {
		loss.Add(ir.LossSizesCapped, int64(bigSizes), "collectables or unmanaged sizes of 4 GiB or more: DevTools stores sizes in 32 bits, so they are capped at 2^32-1")
	}
	if lost := objectValues(s, objects); lost > 0 {
		loss.Add(ir.LossValues, int64(lost), "primitive values have no place in a V8 snapshot")
	}
	if err := conv.checkStringsSize(); err != nil {
		return nil, loss, err
	}
	loss.Merge(conv.loss)
	out.Strings = conv.strs.Strings
	changed, example := classesChanged(out, o, n, shift, func(i int) string { return analysis.NodeClass(f, s, i, srcLabels) })
	if changed+natives > 0 {
		loss.Addf(ir.LossClasses, int64(changed+natives), "collectables are counted by DevTools under another class than their MoarVM one (%d: type objects and STables under (system), frames under Function; roots are synthetic), and native nodes hold unmanaged memory under classes of their own (%d)", changed, natives).
			WithExample(example)
	}
	if reprs := reprsDropped(f, srcLabels); reprs > 0 {
		loss.Add("moarvm-reprs", int64(reprs), "types' REPR names are not kept, except where they qualify a type name that two REPRs share")
	}
	o.Totals = []ir.Total{{Name: v8ir.HeaderExtraNativeBytes, Value: 0}} // unmanaged memory is in native nodes
	if n, example := ir.TotalsChanged(s.Totals, o.Totals); n > 0 {
		loss.Add(ir.LossTotals, int64(n), "the snapshot totals are not kept, DevTools computes its own; extra_native_bytes is 0, as unmanaged memory is in native nodes").WithExample(example)
	}
	externalTotalsLoss(&loss, s.Totals, "extra_native_bytes is 0, as unmanaged memory is in native nodes")
	o.SetSection(v8ir.DefaultSection(o, ir.SnapshotName(f, s)))
	if shift > 0 {
		v8ir.Of(o).Header.Set(v8ir.HeaderFrom, ir.JSONStr(moarvmir.Format))
	}
	if err := out.Validate(); err != nil {
		return nil, loss, fmt.Errorf("v8: the MoarVM conversion produced an invalid graph: %w", err)
	}
	return out, loss, nil
}

// countByName sums counts kept by name and lists them, in name order, as
// a loss example: `"kind 3" 2, "kind 4" 1`.
func countByName(counts map[string]int) (int64, string) {
	var total int64
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		total += int64(counts[k])
		parts = append(parts, strconv.Quote(k)+" "+strconv.Itoa(counts[k]))
	}
	return total, strings.Join(parts, ", ")
}

// devtoolsClassName returns an object name that DevTools' Summary keeps
// whole: it cuts "<tag attr…>" (and "Detached <tag attr…>") at the first
// space, taking it for an HTML element, so the spaces after the "<" become
// no-break spaces, which read the same.
func devtoolsClassName(name string) string {
	at := -1
	switch {
	case strings.HasPrefix(name, "<"):
		at = 0
	case strings.HasPrefix(name, "Detached <"):
		at = len("Detached ")
	}
	if at < 0 || !strings.Contains(name[at:], " ") {
		return name
	}
	return name[:at] + strings.ReplaceAll(name[at:], " ", "\u00a0")
}

// reprsDropped counts the types whose REPR name their label leaves out.
func reprsDropped(f *ir.File, labels []string) int {
	n := 0
	for k, l := range labels {
		if k >= len(f.Classes.Library) {
			break
		}
		// A V8 kind's name is a kind again (objKind), not a REPR.
		if repr := f.String(f.Classes.Library[k]); repr != "" && !slices.Contains(ir.V8NodeKinds, repr) && l == f.String(f.Classes.Name[k]) {
			n++
		}
	}
	return n
}
