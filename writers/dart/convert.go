package dart

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Convert turns a one-snapshot IR file from another format into the shape
// of one read from a Dart file (with a Dart section), which Write then
// writes. The result is a valid file of the VM's current layout:
//
//   - object 1 is the root: the source's root when it is node 0 and there
//     are no GC roots, else a synthetic "Root" object that references the
//     source's root and then every GC root. Its class "Root" has no library
//     URI, as the VM's root class has none, but the library name
//     "synthetic", which no VM class has: the mark by which reading the
//     file back tells it from the heap's objects (ir.SyntheticNodes);
//   - a node's class is the one it is counted under (analysis.NodeClass): its
//     source class, named by its label (qualified by its library where two
//     libraries share the name), or for a node without one the class
//     DevTools gives it (objects and natives by name, "(string)",
//     "(system)", "Function", …), a class per kind, since Dart has no node
//     kinds. Every such class's library URI is dartir.ForeignURI of the
//     source's format, so that it is not taken for a VM internal (which has
//     no library), and its library name is the source class's library or
//     the nodes' kind: converting back to V8 restores the kinds;
//   - a class's fields are its objects' named edges, and V8's hidden edges
//     and elements out of place (whose index is not their position), named
//     by their index, which the variable part would lose: objects whose
//     fields differ (in name, order or kind) get classes of their own, of
//     the same name and library, so that every such edge stays a field.
//     A field of an edge kind other than "property" keeps the kind in its
//     reserved string ("internal", "weak", …), which converting back to V8
//     reads. Each object lists its fields first, then its indexed edges as
//     the variable part;
//   - values become data (strings Latin-1 or UTF-16, never truncated; ints,
//     doubles, bools, lengths, null); a node without a value whose name is
//     not its class's name carries the name as NameData;
//   - node ids become identity hash codes, external sizes become external
//     properties named "external";
//   - a V8 snapshot writers/v8 made from a Dart heap gives its objects
//     their Dart classes again (name, library name and URI:
//     ir.SourceClasses), and the native nodes of external properties (or of
//     a MoarVM heap's unmanaged memory: ir.UnmanagedOwners) become their
//     owners' external properties, not objects;
//   - the header's shallowSize, capacity and externalSize are computed from
//     the graph (capacity is at least the source's), as the VM's are.
//
// What Dart cannot hold (edge kinds, GC root categories, a node's kind,
// totals) and what it computes in their place (the header figures) is
// listed in the loss report.
func Convert(f *ir.File) (*ir.File, ir.LossReport, error) {
	if len(f.Snapshots) != 1 {
		return nil, nil, fmt.Errorf("dart: a Dart heap snapshot holds one snapshot; the input has %d (select one with ir.File.Select)", len(f.Snapshots))
	}
	// An object is a node: a sample of several allocations becomes as
	// many objects.
	f, expanded := ir.ExpandObjects(f)
	c := &converter{src: f, s: f.Snapshots[0], out: &ir.File{Format: dartir.Format, FormatVersion: "dartheap, converted from " + f.Format}, strs: ir.NewInterner(f), loss: expanded}
	if err := c.convert(); err != nil {
		return nil, nil, err
	}
	if err := c.out.Validate(); err != nil {
		return nil, nil, fmt.Errorf("dart: internal error: the converted IR is invalid: %w", err)
	}
	return c.out, c.loss, nil
}

// target is what the loss report says of a Dart file: it keeps neither
// allocation stacks nor static frames, and a source's classes only as its
// own.
var target = ir.Target{Format: dartir.Format, Name: "a Dart file"}

type converter struct {
	src  *ir.File
	s    *ir.Snapshot
	out  *ir.File
	o    *ir.Snapshot
	d    *dartir.Snapshot
	strs *ir.Interner // c.out.Strings is strs.Strings
	loss ir.LossReport
}

func (c *converter) str(s string) uint32 {
	i := c.strs.Intern(s)
	c.out.Strings = c.strs.Strings
	return i
}

// classKey names a Dart class made for source nodes.
type classKey struct {
	name string // the class's name: the nodes' class label
	lib  string // its library name: the source class's library or the nodes' kind
	sig  uint32 // its objects' named edges (kinds and names), as sigOf numbers them
	root bool   // the synthetic root's class, which has no URI, as the VM's has none
	// dart is set for a class of the Dart heap a V8 snapshot was made
	// from (ir.SourceClasses): uri is its library URI, not heapconv's.
	dart bool
	uri  string
}

func (c *converter) convert() error {
	s := c.s
	n := s.Nodes.Len()
	c.str("")
	rootAdded := s.Root != 0 || len(s.Roots) > 0 || n == 0
	shift := 0
	if rootAdded {
		shift = 1
	}
	if uint64(n)+uint64(shift) >= math.MaxUint32 {
		return fmt.Errorf("dart: %d nodes is too many", n)
	}
	c.o = &ir.Snapshot{
		Name:      c.str(ir.SnapshotName(c.src, s)),
		Root:      0,
		NodeKinds: append([]string(nil), dartir.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), dartir.EdgeKinds...),
	}
	c.d = &dartir.Snapshot{IdentityHashes: true}
	c.o.SetSection(c.d)
	c.out.Snapshots = []*ir.Snapshot{c.o}

	// A V8 snapshot made from a Dart heap keeps its classes, and its
	// external properties as native nodes held by their objects
	// (ir.UnmanagedOwners, which also finds a MoarVM heap's unmanaged
	// memory): the objects get their classes and external properties back.
	// A native node is folded only when it is that and nothing else: no
	// root, held by one edge, holding nothing (so its holder, which holds
	// it, is never folded itself).
	dartClasses, dartClassOf, kept := ir.SourceClasses(s)
	fromDart := ir.MadeFrom(s) == dartir.Format
	if fromDart && dartClasses == nil && kept {
		c.loss.Add(ir.LossClasses, 0, "the Dart class table the V8 file keeps (heapconv_dart_classes, heapconv_class) does not fit its nodes: objects get the classes DevTools counts them under")
	}
	owner := ir.UnmanagedOwners(c.src, s)
	// The heap's own objects: the report counts what changes of them, not
	// of roots and grouping nodes, which are no objects
	// (ir.SyntheticNodes; they stay synthetic in the Dart file).
	synthetic := ir.SyntheticNodes(c.src, s)
	if owner != nil {
		into := make([]uint32, n) // edges into each node
		for _, t := range s.Edges.Target {
			into[t]++
		}
		for _, r := range s.Roots {
			into[r.Node] = 2 // a root is a node of its own
		}
		for i, o := range owner {
			if o == ir.NoNode {
				continue
			}
			if lo, hi := s.Nodes.EdgeRange(i); hi > lo || into[i] != 1 || uint32(i) == s.Root {
				owner[i] = ir.NoNode
			}
		}
	}
	held := map[uint32][]int{} // owner → the native nodes of its memory
	newIndex := make([]uint32, n)
	next := uint32(shift)
	for i := range n {
		if owner != nil && owner[i] != ir.NoNode {
			held[owner[i]] = append(held[owner[i]], i)
			newIndex[i] = ir.NoNode
			continue
		}
		newIndex[i] = next
		next++
	}
	dropped := func(e int) bool { return newIndex[s.Edges.Target[e]] == ir.NoNode }
	// Named edges are fields, and so are V8's hidden ones and elements out
	// of place (an index that is not the element's position), named by
	// their index: in the variable part they would lose it, and their kind.
	var fieldBuf []bool
	fieldEdges := func(i int) []bool {
		lo, hi := s.Nodes.EdgeRange(i)
		fieldBuf = fieldBuf[:0]
		pos := uint32(0) // the next slot of the variable part
		for e := lo; e < hi; e++ {
			k := s.EdgeKindOf(e)
			field := !k.Indexed || k.Name == ir.EdgeHidden || k.Name == ir.EdgeElement && s.Edges.Name[e] != pos
			if !field && !dropped(e) {
				pos++
			}
			fieldBuf = append(fieldBuf, field)
		}
		return fieldBuf
	}

	// Classes: one per key, in order of first use.
	labels := ir.ClassLabels(c.src)
	srcKey := map[string]classKey{} // by label: nodes without a class join a source class of their class's name
	for k, l := range labels {
		if _, ok := srcKey[l]; !ok {
			lib := ""
			if k < len(c.src.Classes.Library) {
				lib = c.src.String(c.src.Classes.Library[k])
			}
			srcKey[l] = classKey{name: l, lib: lib}
		}
	}
	classOf := make([]uint32, n) // 1-origin Dart class per node
	index := map[classKey]uint32{}
	var keys []classKey
	var firstNode []int // per class: the node whose named edges are its fields, -1 for none
	addClass := func(k classKey, node int) uint32 {
		if id, ok := index[k]; ok {
			return id
		}
		keys = append(keys, k)
		firstNode = append(firstNode, node)
		id := uint32(len(keys))
		index[k] = id
		return id
	}
	sigs := map[string]uint32{}
	var sigBuf []byte
	sigOf := func(i int) uint32 {
		sigBuf = sigBuf[:0]
		lo, hi := s.Nodes.EdgeRange(i)
		field := fieldEdges(i)
		for e := lo; e < hi; e++ {
			if k := s.EdgeKindOf(e); field[e-lo] && !dropped(e) {
				// Length-prefixed, so that no two lists read alike.
				name := c.fieldName(s, e)
				sigBuf = append(binary.AppendUvarint(sigBuf, uint64(len(k.Name))), k.Name...)
				sigBuf = append(binary.AppendUvarint(sigBuf, uint64(len(name))), name...)
			}
		}
		id, ok := sigs[string(sigBuf)]
		if !ok {
			id = uint32(len(sigs))
			sigs[string(sigBuf)] = id
		}
		return id
	}
	rootClass := uint32(0)
	if rootAdded {
		rootClass = addClass(classKey{name: dartir.RootClass, lib: ir.KindSynthetic, root: true}, -1)
	}
	kindsLost, namesReplaced := 0, 0
	for i := 0; i < n; i++ {
		if newIndex[i] == ir.NoNode {
			continue
		}
		if dartClasses != nil {
			if dc := dartClassOf.At(i); dc > 0 {
				r := dartClasses[dc-1]
				classOf[i] = addClass(classKey{name: r.Name, lib: r.Library, sig: sigOf(i), dart: true, uri: r.URI}, i)
				if !synthetic[i] && c.src.String(s.Nodes.Name[i]) != r.Name {
					namesReplaced++
				}
				continue
			}
		}
		label := analysis.NodeClass(c.src, s, i, labels)
		k, ok := srcKey[label]
		if !ok || len(s.Nodes.Class) == 0 || s.Nodes.Class[i] == 0 {
			kindsLost++
		}
		if !ok {
			k = classKey{name: label, lib: s.NodeKindName(i)}
		}
		k.sig = sigOf(i)
		classOf[i] = addClass(k, i)
		if !synthetic[i] && c.src.String(s.Nodes.Name[i]) != label {
			namesReplaced++ // a Dart object is named by its class
		}
	}
	if kindsLost > 0 && c.src.Format != dartir.Format {
		c.loss.Add(ir.LossNodeKinds, int64(kindsLost), "Dart has no node kinds: nodes without a class get the class DevTools counts them under, with their kind as its library name")
	}
	if namesReplaced > 0 {
		c.loss.Add(ir.LossNodeNames, int64(namesReplaced), "a Dart object is named by its class: other names are kept as the object's name data (NonReferenceData) unless it has a value")
	}

	oc := &c.out.Classes
	oc.FirstField = []uint32{0}
	foreign := c.str(dartir.ForeignURI(c.src.Format))
	for id, k := range keys {
		oc.Name = append(oc.Name, c.str(k.name))
		oc.Library = append(oc.Library, c.str(k.lib))
		c.d.ClassFlags.Append(0)
		switch {
		case k.root:
			c.d.ClassURI = append(c.d.ClassURI, c.str(""))
		case k.dart:
			c.d.ClassURI = append(c.d.ClassURI, c.str(k.uri))
		default:
			c.d.ClassURI = append(c.d.ClassURI, foreign)
		}
		c.d.ClassReserved = append(c.d.ClassReserved, 0)
		if i := firstNode[id]; i >= 0 {
			lo, hi := s.Nodes.EdgeRange(i)
			field := fieldEdges(i)
			j := 0
			for e := lo; e < hi; e++ {
				k := s.EdgeKindOf(e)
				if !field[e-lo] || dropped(e) {
					continue
				}
				kind := ""
				if k.Name != dartir.EdgeKinds[dartir.Property].Name {
					kind = k.Name
				}
				oc.FieldName = append(oc.FieldName, c.str(c.fieldName(s, e)))
				c.d.FieldFlags.Append(1)
				c.d.FieldIndex.Append(uint64(j))
				c.d.FieldReserved = append(c.d.FieldReserved, c.str(kind))
				j++
			}
		}
		oc.FirstField = append(oc.FirstField, uint32(len(oc.FieldName)))
	}

	// Objects.
	o := c.o
	nd, ed := &o.Nodes, &o.Edges
	var shallow, external uint64
	var weak, otherKinds, renumbered, reordered int
	addNode := func(class, name uint32, kind uint8, size, id uint64) {
		nd.Kind = append(nd.Kind, kind)
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, class)
		nd.SelfSize.Append(size)
		nd.ID.Append(id)
		shallow += size
	}
	nd.FirstEdge = []uint32{0}
	if rootAdded {
		addNode(rootClass, c.str(dartir.RootClass), dartir.NoData, 0, 0)
		if s.Root != ir.NoNode && newIndex[s.Root] != ir.NoNode {
			c.edge(dartir.Element, 0, newIndex[s.Root])
		}
		for _, r := range s.Roots {
			if newIndex[r.Node] != ir.NoNode {
				c.edge(dartir.Element, uint32(ed.Len()), newIndex[r.Node])
			}
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
		if len(s.Roots) > 0 {
			c.loss.Add(ir.LossGCRoots, int64(len(s.Roots)), "GC roots become references of the synthetic root object; their categories are lost")
		}
	}
	v := &s.Values
	vi := 0
	nameData := 0 // values made of names, of objects
	for i := 0; i < n; i++ {
		if newIndex[i] == ir.NoNode {
			continue // memory its owner holds: one of the owner's external properties
		}
		cls := classOf[i]
		kind := uint8(dartir.NoData)
		name := c.str(c.src.String(s.Nodes.Name[i]))
		for vi < len(v.Node) && v.Node[vi] < uint32(i) {
			vi++
		}
		node := uint32(nd.Len())
		if vi < len(v.Node) && v.Node[vi] == uint32(i) {
			kind = c.value(node, v.Kind[vi], v.Bits[vi], v.Aux[vi], oc.Name[cls-1])
		} else if oc.Name[cls-1] != name {
			kind = dartir.NameData
			c.addValue(node, ir.ValueString, uint64(name), 0)
			if !synthetic[i] {
				nameData++
			}
		}
		addNode(cls, oc.Name[cls-1], kind, s.Nodes.SelfSize.At(i), s.Nodes.ID.At(i))
		if s.Nodes.ExternalSize.Len() > 0 {
			if x := s.Nodes.ExternalSize.At(i); x > 0 {
				c.d.ExternalNode = append(c.d.ExternalNode, node)
				c.d.ExternalSize.Append(x)
				c.d.ExternalName = append(c.d.ExternalName, c.str("external"))
				external += x
			}
		}
		for _, j := range held[uint32(i)] {
			x := s.Nodes.SelfSize.At(j)
			name := "external"
			if fromDart {
				name = c.src.String(s.Nodes.Name[j]) // the property's, which the native node kept
			}
			c.d.ExternalNode = append(c.d.ExternalNode, node)
			c.d.ExternalSize.Append(x)
			c.d.ExternalName = append(c.d.ExternalName, c.str(name))
			external += x
		}
		// References: named edges first (the class's fields), then the
		// indexed ones.
		lo, hi := s.Nodes.EdgeRange(i)
		nf := int(oc.FirstField[cls] - oc.FirstField[cls-1])
		named := 0
		field := fieldEdges(i)
		for e, inVariable := lo, false; e < hi; e++ {
			if dropped(e) {
				continue
			}
			if field[e-lo] && inVariable {
				reordered++ // a field after the variable part began
				break
			}
			inVariable = inVariable || !field[e-lo]
		}
		for pass := 0; pass < 2; pass++ {
			for e := lo; e < hi; e++ {
				k := s.EdgeKindOf(e)
				if field[e-lo] != (pass == 0) || dropped(e) {
					continue
				}
				switch k.Name {
				case "property", "element":
				case "weak":
					// Counted between objects: an edge of a root or
					// grouping node is no reference of the heap's.
					if !synthetic[i] && !synthetic[s.Edges.Target[e]] {
						weak++
					}
				default:
					otherKinds++
				}
				to := newIndex[s.Edges.Target[e]]
				if pass == 0 {
					c.edge(dartir.Property, oc.FieldName[int(oc.FirstField[cls-1])+named], to)
					named++
				} else {
					slot := uint32(ed.Len() - int(nd.FirstEdge[len(nd.FirstEdge)-1]))
					c.edge(dartir.Element, slot-uint32(nf), to)
					if s.Edges.Name[e] != slot-uint32(nf) {
						renumbered++
					}
				}
			}
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(ed.Len()))
	}
	if nameData > 0 {
		// Values the source did not have: reading the file back finds more.
		c.loss.Add(ir.LossValues, int64(nameData), "names are written as name data, a Dart object's only place for one: reading the file back gives values the source did not have")
	}
	if weak > 0 {
		c.loss.Add(ir.LossWeakEdges, int64(weak), "weak references between objects become ordinary ones: Dart marks none (their field's reserved string says \"weak\", which only converting back to V8 reads)")
	}
	if otherKinds > 0 {
		c.loss.Add(ir.LossEdgeKinds, int64(otherKinds), "edges of kinds Dart lacks (context, internal, hidden, shortcut, …) become fields, whose reserved string keeps the kind for converting back to V8, or, if indexed, elements")
	}
	if renumbered > 0 {
		c.loss.Add(ir.LossEdgeNames, int64(renumbered), "indexed edges are numbered in order from 0: Dart indexes an object's variable part by position")
	}
	if reordered > 0 {
		c.loss.Add(ir.LossEdgeOrder, int64(reordered), "objects list their references in another order than the source's edges: a Dart object's fields come before its variable part")
	}
	c.loss.Merge(ir.SectionLoss(c.src, s, target))
	if s.CaptureTime != 0 {
		c.loss.Add(ir.LossCaptureTime, 1, "capture times have no place in a Dart file").
			WithExample(time.Unix(0, s.CaptureTime).UTC().Format(time.RFC3339Nano))
	}
	c.d.ReferenceCount = uint64(ed.Len())
	capacity := shallow
	for _, t := range s.Totals {
		if t.Name == dartir.TotalCapacity {
			capacity = max(capacity, t.Value)
		}
	}
	o.Totals = []ir.Total{
		{Name: dartir.TotalShallowSize, Value: shallow},
		{Name: dartir.TotalCapacity, Value: capacity},
		{Name: dartir.TotalExternalSize, Value: external},
	}
	if changed, example := ir.TotalsChanged(s.Totals, o.Totals); changed > 0 {
		c.loss.Add(ir.LossTotals, int64(changed), "the source's totals are not kept; the header's shallowSize, capacity and externalSize are computed from the graph").
			WithExample(example)
	}
	if n, bytes := ir.ExternalTotals(s.Totals); n > 0 {
		c.loss.Addf(ir.LossExternalSizes, int64(n), "external totals of the source (such as V8's extra_native_bytes; %d bytes in all) belong to no object: a Dart file has external sizes only as objects' external properties", bytes)
	}
	c.loss.Merge(ir.SectionLoss(c.src, nil, target))
	if len(c.d.ExternalNode) > 0 {
		sums := make([]uint64, nd.Len())
		for k, node := range c.d.ExternalNode {
			sums[node] += c.d.ExternalSize.At(k)
		}
		nd.ExternalSize.AppendAll(sums)
	}
	return nil
}

// fieldName names the field an edge becomes: its name, or the index of an
// indexed one.
func (c *converter) fieldName(s *ir.Snapshot, e int) string {
	if s.EdgeKindOf(e).Indexed {
		return strconv.FormatUint(uint64(s.Edges.Name[e]), 10)
	}
	return c.src.String(s.Edges.Name[e])
}

func (c *converter) edge(kind uint8, name, target uint32) {
	ed := &c.o.Edges
	ed.Kind = append(ed.Kind, kind)
	ed.Name = append(ed.Name, name)
	ed.Target = append(ed.Target, target)
}

func (c *converter) addValue(node uint32, k ir.ValueKind, bits, aux uint64) {
	v := &c.o.Values
	v.Node = append(v.Node, node)
	v.Kind = append(v.Kind, k)
	v.Bits = append(v.Bits, bits)
	v.Aux = append(v.Aux, aux)
}

// value adds a source value to node and returns its data tag.
func (c *converter) value(node uint32, k ir.ValueKind, bits, aux uint64, class uint32) uint8 {
	switch k {
	case ir.ValueNull:
		c.addValue(node, k, 0, 0)
		return dartir.NullData
	case ir.ValueBool:
		c.addValue(node, k, bits, 0)
		return dartir.BoolData
	case ir.ValueInt:
		// The reader decodes the values of a class as the VM encodes them.
		c.addValue(node, k, bits, uint64(dartir.IntCoding(c.out.Strings[class])))
		return dartir.IntData
	case ir.ValueFloat:
		c.addValue(node, k, bits, 0)
		return dartir.DoubleData
	case ir.ValueLength:
		c.addValue(node, k, bits, 0)
		return dartir.LengthData
	case ir.ValueString:
		str := c.src.String(uint32(bits))
		tag := uint8(dartir.Latin1Data)
		units := 0
		for i := 0; i < len(str); {
			r, size := ir.DecodeWTF8(str[i:])
			if r < 0 {
				// Not text: keep the bytes as a name.
				c.addValue(node, k, uint64(c.str(str)), 0)
				return dartir.NameData
			}
			if r > 0xFF {
				tag = dartir.UTF16Data
			}
			if r > 0xFFFF {
				units += 2
			} else {
				units++
			}
			i += size
		}
		full := uint64(0)
		if aux > uint64(units) {
			full = aux
		}
		c.addValue(node, k, uint64(c.str(str)), full)
		return tag
	}
	c.loss.Add(ir.LossValues, 1, "values of kinds that have no Dart form").WithExample(fmt.Sprintf("node %d: kind %v", node, k))
	return dartir.NoData
}
