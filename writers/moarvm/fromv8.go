package moarvm

import (
	"slices"
	"strconv"
	"strings"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
)

// fromV8 converts a V8 snapshot that writers/v8 made from a MoarVM heap (its
// header's v8ir.HeaderFrom is "moarvm"; owner is ir.UnmanagedOwners of it)
// back into that heap, undoing the mapping writers/v8/moarvm.go describes:
//
//   - the synthetic root "" in front (node 0) is dropped, and every other
//     node but the native ones that hold unmanaged memory is a collectable,
//     in node order; MoarVM's root is the node the first edge of node 0
//     leads to;
//   - the kind comes from the node kind and name: synthetic nodes are the
//     root kinds their names say ("(GC roots)" the Root, "(Permanent
//     Roots)", "(C Stack Roots, thread 1)", …), hidden ones named
//     "T (type object)" and "T (STable)" type objects and STables of type
//     T, closures frames whose static frame is their name "name
//     (file:line)", anything else an object of the type its name says (a
//     V8 kind other than "object" is the type's REPR name, as
//     writers/moarvm gives a V8 node's type). A type named "T (R)" where
//     several are named T is type T of REPR R, as ir.ClassLabels qualifies
//     them; the no-break spaces that keep "<anon …>" names whole in
//     DevTools are spaces again;
//   - property edges are string references, element edges index
//     references, hidden edges unknown references; internal edges named
//     "(string N out of range)" and "(kind 3 N)" are those references
//     again, and the internal edge to a native node of unmanaged memory is
//     dropped: the native node's size is its holder's unmanaged size.
//
// What the V8 file never had cannot come back: REPR names (but those that
// qualify type names) and compilation-unit ids of static frames.
func (c *converter) fromV8(k int, s *ir.Snapshot, owner []uint32) *ir.Snapshot {
	src := c.src
	sn := &s.Nodes
	n := sn.Len()
	mf := moarvmir.FileOf(c.out)

	// Collectable index of each node (NoNode: dropped or folded).
	col := make([]uint32, n)
	root := uint32(ir.NoNode)
	cols := 0
	for j := range n {
		col[j] = ir.NoNode
		if (j == 0 && s.Root == 0 && s.NodeKindName(0) == ir.KindSynthetic) || owner[j] != ir.NoNode {
			continue
		}
		col[j] = uint32(cols)
		cols++
	}
	if n > 0 && col[0] == ir.NoNode {
		if lo, hi := sn.EdgeRange(0); hi > lo {
			root = col[s.Edges.Target[lo]]
		}
	}
	if root == ir.NoNode && cols > 0 {
		root = 0
	}
	o := &ir.Snapshot{Root: root, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
	ms := &moarvmir.Snapshot{HasMeta: true, GCSeqNum: uint64(k) + 1}
	o.SetSection(ms)
	nd, ed := &o.Nodes, &o.Edges
	nd.FirstEdge = []uint32{0}
	ext := make([]uint64, cols)
	for t, j := range owner {
		if j != ir.NoNode && col[j] != ir.NoNode {
			ext[col[j]] = satAdd(ext[col[j]], sn.SelfSize.At(t))
		}
	}

	kindIdx := func(name string) int {
		if i := slices.Index(s.NodeKinds, name); i >= 0 {
			return i
		}
		return -1
	}
	kSynthetic, kHidden, kClosure, kObject := kindIdx(ir.KindSynthetic), kindIdx(ir.KindHidden), kindIdx(ir.KindClosure), kindIdx(ir.KindObject)
	rootKind := map[string]uint8{"(GC roots)": moarvmir.Root}
	for ck, name := range moarvmir.RootNames {
		if name != "" {
			rootKind["("+name+")"] = uint8(ck)
		}
	}
	// classify says what node j was: a collectable kind and, for kinds 1–3,
	// its type's label and REPR name (a V8 kind other than "object").
	classify := func(j int) (kind uint8, label, repr string) {
		name := src.String(sn.Name[j])
		switch kj := int(sn.Kind[j]); {
		case kj == kSynthetic:
			// "(C Stack Roots, thread 2)": the per-thread kinds are numbered.
			cat := name
			if at := strings.LastIndex(cat, ", thread "); at >= 0 && strings.HasSuffix(cat, ")") {
				cat = cat[:at] + ")"
			}
			if ck, ok := rootKind[cat]; ok {
				return ck, "", ""
			}
			return moarvmir.Object, name, ir.KindSynthetic
		case kj == kHidden && strings.HasSuffix(name, " (type object)"):
			return moarvmir.TypeObject, undoDevToolsName(strings.TrimSuffix(name, " (type object)")), ""
		case kj == kHidden && strings.HasSuffix(name, " (STable)"):
			return moarvmir.STable, undoDevToolsName(strings.TrimSuffix(name, " (STable)")), ""
		case kj == kHidden && oddKind(name) >= 0:
			return uint8(oddKind(name)), "", ""
		case kj == kClosure:
			return moarvmir.Frame, "", ""
		case kj == kObject:
			return moarvmir.Object, undoDevToolsName(name), ""
		}
		return moarvmir.Object, undoDevToolsName(name), s.NodeKindName(j)
	}
	// A label "T (R)" is type T of REPR R where writers/v8 qualified T by
	// REPR: two types of the name T are there (ir.ClassLabels).
	reprs := map[string]map[string]bool{} // T -> R
	plain := map[string]bool{}
	for j := range n {
		if col[j] == ir.NoNode {
			continue
		}
		if kind, label, _ := classify(j); kind >= moarvmir.Object && kind <= moarvmir.STable {
			plain[label] = true
			if name, repr, ok := splitLabel(label); ok {
				if reprs[name] == nil {
					reprs[name] = map[string]bool{}
				}
				reprs[name][repr] = true
			}
		}
	}
	var odd, dropped int
	empty := c.intern("")
	for j := range n {
		if col[j] == ir.NoNode {
			continue
		}
		if id := sn.ID.At(j); id != uint64(2*j+1) {
			c.ids++
		}
		kind, label, repr := classify(j)
		tofi, class, nodeName := uint32(0), uint32(0), empty
		switch {
		case kind >= moarvmir.Object && kind <= moarvmir.STable:
			if repr == ir.KindSynthetic {
				odd++ // a synthetic node writers/v8 does not make
			}
			name := label
			if tn, r, ok := splitLabel(label); ok && len(reprs[tn])+btoi(plain[tn]) >= 2 {
				name, repr = tn, r
			}
			t := c.typeNamed(typeKey(label), name, repr)
			tofi, class, nodeName = t, t+1, c.out.Classes.Name[t]
		case kind == moarvmir.Frame:
			fname, file, line := frameOf(src.String(sn.Name[j]))
			key := [3]string{fname, file, strconv.FormatUint(uint64(line), 10)}
			t, ok := c.frames[key]
			if !ok {
				t = uint32(len(mf.FrameName))
				c.frames[key] = t
				mf.FrameName = append(mf.FrameName, c.intern(fname))
				mf.FrameCUID = append(mf.FrameCUID, c.intern(""))
				mf.FrameLine = append(mf.FrameLine, line)
				mf.FrameFile = append(mf.FrameFile, c.intern(file))
			}
			tofi, nodeName = t, mf.FrameName[t]
		case int(kind) < len(moarvmir.RootNames) && moarvmir.RootNames[kind] != "":
			nodeName = c.intern(moarvmir.RootNames[kind])
		}
		size := sn.SelfSize.At(j) // the writer continues one above 65535 in colusize
		nd.Kind = append(nd.Kind, kind)
		nd.Name = append(nd.Name, nodeName)
		nd.Class = append(nd.Class, class)
		nd.SelfSize.Append(size)
		ms.TOFI.Append(uint64(tofi))
		ms.RefStart.Append(uint64(ed.Len()))

		lo, hi := sn.EdgeRange(j)
		for e := lo; e < hi; e++ {
			to := s.Edges.Target[e]
			if owner[to] == uint32(j) {
				continue // unmanaged memory: folded above
			}
			if col[to] == ir.NoNode {
				dropped++ // to the root in front, or to another's unmanaged memory
				continue
			}
			ek := s.EdgeKindOf(e)
			switch {
			case ek.Name == ir.EdgeProperty:
				c.ref(moarvmir.StringRef, c.internSrc(s.Edges.Name[e]), col[to], o)
			case ek.Name == ir.EdgeElement:
				c.ref(moarvmir.IndexRef, s.Edges.Name[e], col[to], o)
			case ek.Name == ir.EdgeHidden:
				c.ref(moarvmir.UnknownRef, 0, col[to], o)
			default:
				text := src.EdgeName(s, e)
				if ek.Name == ir.EdgeInternal {
					if rk, idx, ok := otherRef(text); ok {
						c.ref(rk, idx, col[to], o)
						continue
					}
				}
				c.edgeKinds[ek.Name]++
				c.ref(moarvmir.StringRef, c.intern(text), col[to], o)
			}
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	nd.ID.Reserve(cols)
	for i := range cols {
		nd.ID.Append(uint64(i))
	}
	nd.ExternalSize.AppendAll(ext)
	if k := len(o.NodeKinds); slices.ContainsFunc(nd.Kind, func(x uint8) bool { return int(x) >= k }) {
		for x := k; x <= int(slices.Max(nd.Kind)); x++ {
			o.NodeKinds = append(o.NodeKinds, "kind "+strconv.Itoa(x))
		}
	}

	if odd > 0 {
		c.loss.Add(ir.LossNodeKinds, int64(odd), "nodes of the V8 file that writers/v8's MoarVM mapping does not make become objects of a type named by them, with their kind as the REPR name")
	}
	if dropped > 0 {
		c.loss.Add(ir.LossEdges, int64(dropped), "edges to the synthetic root or to another node's unmanaged memory have no collectable to lead to")
	}
	c.finish(k, s, o, true)
	return o
}

// ref appends a reference to o's edges.
func (c *converter) ref(kind uint8, name, target uint32, o *ir.Snapshot) {
	ed := &o.Edges
	ed.Kind = append(ed.Kind, kind)
	ed.Name = append(ed.Name, name)
	ed.Target = append(ed.Target, target)
}

// splitLabel splits "T (R)" into T and R.
func splitLabel(label string) (name, repr string, ok bool) {
	rest, ok := strings.CutSuffix(label, ")")
	at := strings.LastIndex(rest, " (")
	if !ok || at <= 0 || at+2 == len(rest) {
		return "", "", false
	}
	return rest[:at], rest[at+2:], true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// oddKind returns the colkind of a hidden node writers/v8 named after a
// collectable kind MoarVM does not write ("(unknown)", "(kind 12)"), or -1.
func oddKind(name string) int {
	inner, ok := strings.CutPrefix(name, "(")
	if inner, ok = strings.CutSuffix(inner, ")"); !ok {
		return -1
	}
	if inner == moarvmir.NodeKinds[0] {
		return 0
	}
	if v, ok := strings.CutPrefix(inner, "kind "); ok {
		if k, err := strconv.ParseUint(v, 10, 8); err == nil && int(k) >= len(moarvmir.NodeKinds) {
			return int(k)
		}
	}
	return -1
}

// frameOf splits a frame's node name, "name (file:line)", into its static
// frame's name ("" for "<anon>"), file and line; a name of another shape is
// all name.
func frameOf(node string) (name, file string, line uint32) {
	rest, ok := strings.CutSuffix(node, ")")
	colon := strings.LastIndexByte(rest, ':')
	open := strings.LastIndex(rest[:max(colon, 0)], " (")
	if !ok || colon < 0 || open < 0 {
		return node, "", 0
	}
	l, err := strconv.ParseUint(rest[colon+1:], 10, 32)
	if err != nil {
		return node, "", 0
	}
	name, file = rest[:open], rest[open+2:colon]
	if name == "<anon>" {
		name = ""
	}
	return name, file, uint32(l)
}

// otherRef reads back the internal edges writers/v8 makes of MoarVM
// references it has no V8 kind for: "(string N out of range)" and
// "(kind 3 N)".
func otherRef(text string) (kind uint8, idx uint32, ok bool) {
	var num string
	switch {
	case strings.HasPrefix(text, "(string ") && strings.HasSuffix(text, " out of range)"):
		num, kind = strings.TrimSuffix(strings.TrimPrefix(text, "(string "), " out of range)"), moarvmir.BadString
	case strings.HasPrefix(text, "(kind 3 ") && strings.HasSuffix(text, ")"):
		num, kind = strings.TrimSuffix(strings.TrimPrefix(text, "(kind 3 "), ")"), moarvmir.Kind3
	default:
		return 0, 0, false
	}
	v, err := strconv.ParseUint(num, 10, 32)
	if err != nil {
		return 0, 0, false
	}
	return kind, uint32(v), true
}

// undoDevToolsName gives a type name back the spaces writers/v8 wrote as
// no-break spaces so that DevTools does not cut "<anon …>" at the first.
func undoDevToolsName(name string) string {
	if !strings.HasPrefix(name, "<") && !strings.HasPrefix(name, "Detached <") {
		return name
	}
	return strings.ReplaceAll(name, "\u00a0", " ")
}

// unmanagedNodes is ir.UnmanagedOwners when the snapshot is one writers/v8
// made from a MoarVM heap, else nil.
func unmanagedNodes(f *ir.File, s *ir.Snapshot) []uint32 {
	if ir.MadeFrom(s) != moarvmir.Format {
		return nil
	}
	owner := ir.UnmanagedOwners(f, s)
	if owner == nil {
		owner = make([]uint32, s.Nodes.Len())
		for i := range owner {
			owner[i] = ir.NoNode
		}
	}
	return owner
}
