package analysis

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
)

// Chrome DevTools' Summary view names the classes of a V8 heap with more
// than a node's kind and name (ClassName): it names plain objects by their
// shape, shows detached DOM nodes as "Detached <tag>" and splits object
// classes by allocation location. This file reproduces those rules, so that
// `heapconv info` on a V8 file lists the rows DevTools lists.

// SourceLocation is where a V8 object was allocated, as a snapshot's
// locations section gives it: the script's id and the zero-based line and
// column.
type SourceLocation struct {
	ScriptID uint64 `json:"script_id"`
	Line     uint64 `json:"line"`
	Column   uint64 `json:"column"`
}

// Limits of the interfaces DevTools infers.
const (
	// interfaceNameMax is the UTF-16 length after which no further
	// property is added to an interface name (the separator and the
	// closing brace are not counted, so a name may reach 123 units).
	interfaceNameMax = 120
	// interfaceMinObjects is the fewest objects an interface must name:
	// a shape of one object explains nothing.
	interfaceMinObjects = 2
	// interfaceShare: an interface must also name at least one plain
	// object in this many, or the Summary would list a long tail of rare
	// shapes.
	interfaceShare = 1000
)

// devtoolsSummarized reports whether DevTools' Summary rules name s's
// classes: s is a V8 snapshot (read from a V8 file or keeping its V8
// section), or has V8's node kinds and no other format's section (a graph
// made for V8). Other formats keep their own class names.
func devtoolsSummarized(s *ir.Snapshot) bool {
	if v8ir.Of(s) != nil {
		return true
	}
	if len(s.Sections) > 0 {
		return false
	}
	return ir.HasV8NodeKinds(s)
}

// kindIndex returns the first index of name in kinds, or -1: DevTools
// looks node and edge types up with indexOf, so a repeated name counts only
// at its first place.
func kindIndex(kinds []string, name string) int {
	return slices.Index(kinds, name)
}

func edgeKindIndex(s *ir.Snapshot, name string) int {
	return slices.IndexFunc(s.EdgeKinds, func(k ir.EdgeKind) bool { return k.Name == name })
}

// devtoolsDetached returns which native nodes DevTools shows as detached
// DOM nodes, or nil when the snapshot has no detachedness column. A native
// node's own state (1 attached, 2 detached) comes first; a native node
// without one is attached when an attached native node reaches it, else
// detached when a detached one does, through edges that are not hidden or
// weak. The state does not spread through JavaScript objects: every entry
// from them into the DOM is a native node that knows its own state.
func devtoolsDetached(s *ir.Snapshot) []bool {
	col := v8ir.Of(s).NodeColumn("detachedness")
	if col == nil || col.Len() != s.Nodes.Len() {
		return nil
	}
	const attached, detached = v8ir.Attached, v8ir.Detached
	n := s.Nodes.Len()
	native := kindIndex(s.NodeKinds, ir.KindNative)
	hidden, weak := edgeKindIndex(s, ir.EdgeHidden), edgeKindIndex(s, ir.EdgeWeak)
	visited := make([]bool, n)
	out := make([]bool, n)
	var attachedWork, detachedWork []uint32
	any := false
	visit := func(v uint32, state uint64) {
		if visited[v] {
			return
		}
		visited[v] = true
		if int(s.Nodes.Kind[v]) != native {
			return
		}
		switch state {
		case attached:
			attachedWork = append(attachedWork, v)
		case detached:
			out[v] = true
			any = true
			detachedWork = append(detachedWork, v)
		}
	}
	for i := 0; i < n; i++ {
		// DevTools keeps the state in the field's low two bits.
		if st := col.At(i) & 3; st != 0 {
			visit(uint32(i), st)
		}
	}
	spread := func(work *[]uint32, state uint64) {
		for len(*work) > 0 {
			v := (*work)[len(*work)-1]
			*work = (*work)[:len(*work)-1]
			lo, hi := s.Nodes.EdgeRange(int(v))
			for e := lo; e < hi; e++ {
				if k := int(s.Edges.Kind[e]); k != hidden && k != weak {
					visit(s.Edges.Target[e], state)
				}
			}
		}
	}
	// Attached first, so that a node both reach is attached.
	spread(&attachedWork, attached)
	spread(&detachedWork, detached)
	if !any {
		return nil
	}
	return out
}

// propTable numbers property names by content (a string table may hold a
// name twice) and caches what interface inference needs of each.
type propTable struct {
	f        *ir.File
	ofString []int32 // string index → property id, -1 until seen
	byName   map[string]int32
	names    []string
	fmtLen   []int32 // UTF-16 length of the formatted name, -1 until needed
	proto    int32   // the id of "__proto__", -1 until seen
}

func newPropTable(f *ir.File) *propTable {
	ofString := make([]int32, len(f.Strings))
	for i := range ofString {
		ofString[i] = -1
	}
	return &propTable{f: f, ofString: ofString, byName: map[string]int32{}, proto: -1}
}

// id returns the property id of the name at string index i.
func (p *propTable) id(i uint32) int32 {
	if int(i) < len(p.ofString) && p.ofString[i] >= 0 {
		return p.ofString[i]
	}
	name := p.f.String(i)
	id, ok := p.byName[name]
	if !ok {
		id = int32(len(p.names))
		p.byName[name] = id
		p.names = append(p.names, name)
		p.fmtLen = append(p.fmtLen, -1)
		if name == "__proto__" {
			p.proto = id
		}
	}
	if int(i) < len(p.ofString) {
		p.ofString[i] = id
	}
	return id
}

func (p *propTable) formattedLen(id int32) int {
	if p.fmtLen[id] < 0 {
		p.fmtLen[id] = int32(ir.UTF16Len(formatPropertyName(p.names[id])))
	}
	return int(p.fmtLen[id])
}

// formatPropertyName writes a property name as DevTools writes it in an
// interface name: as it is, unless a comma, quote or brace in it would make
// the name ambiguous; then as a JSON string literal (JavaScript's
// JSON.stringify escaping: \" \\ \b \f \n \r \t, \u00XX for other control
// characters and \uDXXX for a lone surrogate, all in lower case).
func formatPropertyName(name string) string {
	if !strings.ContainsAny(name, `,'"{}`) {
		return name
	}
	return string(ir.AppendJSONWTF8(nil, name))
}

// interfaceDef is an interface DevTools infers: the objects that have at
// least these properties are named name.
type interfaceDef struct {
	name  string
	props []int32 // property ids, in the edge order of the first object named so
	count int     // plain objects whose leading properties gave this name
}

// isPlainObject reports whether DevTools names node i by its shape: an
// object named "Object" (the class of object literals). Nodes counted under
// a class of the file's class table keep that class.
func isPlainObject(f *ir.File, s *ir.Snapshot, object, i int) bool {
	return int(s.Nodes.Kind[i]) == object && f.String(s.Nodes.Name[i]) == "Object" &&
		(len(s.Nodes.Class) == 0 || s.Nodes.Class[i] == 0)
}

// inferInterfaces infers the interfaces DevTools names plain objects by.
// Each plain object proposes the interface of its property edges in edge
// order ("{a, b, c}", __proto__ left out), cut before the property that
// would take the name past interfaceNameMax. The proposals made by at
// least interfaceMinObjects objects, and by at least one plain object in
// interfaceShare, are the interfaces: most popular first, ties in order of
// first appearance.
func inferInterfaces(f *ir.File, s *ir.Snapshot, props *propTable) []interfaceDef {
	object, property := kindIndex(s.NodeKinds, ir.KindObject), edgeKindIndex(s, ir.EdgeProperty)
	if object < 0 || property < 0 {
		return nil
	}
	// Proposals are counted by their property ids, not by name: no string
	// is built per object, and names are made only for the proposals that
	// become interfaces. Two lists give one name exactly when they are
	// equal past their leading empty names (an empty name adds nothing,
	// not even a separator, to a name that is still "{"; the formatting
	// is otherwise unambiguous), so that is the key. A proposal keeps the
	// properties of the first object that made it.
	type proposal struct {
		props []int32
		count int
	}
	var proposals []proposal
	byKey := map[string]int{}
	var seq []int32
	var key []byte
	total := 0
	for i := 0; i < s.Nodes.Len(); i++ {
		if !isPlainObject(f, s, object, i) {
			continue
		}
		total++
		seq = seq[:0]
		key = key[:0]
		length := 1 // "{"
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			if int(s.Edges.Kind[e]) != property {
				continue
			}
			p := props.id(s.Edges.Name[e])
			if p == props.proto {
				continue
			}
			l := props.formattedLen(p)
			// DevTools measures the name, not the property count: the
			// first property always goes in, however long (and an empty
			// first name leaves the name at "{" so the next one does too).
			if length > 1 && length+l > interfaceNameMax {
				break
			}
			if length != 1 {
				length += 2 // ", "
			}
			length += l
			seq = append(seq, p)
			if length > 1 {
				key = binary.LittleEndian.AppendUint32(key, uint32(p))
			}
		}
		if len(seq) == 0 {
			continue // "{}" would read as objects without properties
		}
		k, ok := byKey[string(key)]
		if !ok {
			k = len(proposals)
			byKey[string(key)] = k
			proposals = append(proposals, proposal{props: slices.Clone(seq)})
		}
		proposals[k].count++
	}
	minCount := max(float64(interfaceMinObjects), float64(total)/interfaceShare)
	var defs []interfaceDef
	for _, pr := range proposals {
		if float64(pr.count) >= minCount {
			defs = append(defs, interfaceDef{name: interfaceName(props, pr.props), props: pr.props, count: pr.count})
		}
	}
	// Most popular first; a stable sort keeps ties in order of first
	// appearance, as DevTools' does.
	slices.SortStableFunc(defs, func(a, b interfaceDef) int { return cmp.Compare(b.count, a.count) })
	return defs
}

// interfaceName is the name DevTools gives an interface with these
// properties, the separator decided by the name's length as DevTools
// decides it.
func interfaceName(props *propTable, ids []int32) string {
	var b strings.Builder
	b.WriteByte('{')
	length := 1
	for _, p := range ids {
		if length != 1 {
			b.WriteString(", ")
			length += 2
		}
		b.WriteString(formatPropertyName(props.names[p]))
		length += props.formattedLen(p)
	}
	b.WriteByte('}')
	return b.String()
}

// interfaceMatcher finds, for a plain object, the interface it is named
// by: of the interfaces whose properties it all has (counting repeats), the
// one with the most properties, the earlier (more popular) one on a tie.
// DevTools walks a tree of the interfaces' sorted property lists along the
// object's sorted properties; so does this, in property-id order instead of
// string order: any order gives the same answer, since an interface is
// reached exactly when its properties are a sub-multiset of the object's.
type interfaceMatcher struct {
	tree  []matchNode
	known []bool // per property id: in some interface
	// Per object: the live states, and a mark per tree node in the set.
	states, next []int32
	in           []bool
	seq          []int32
}

type matchNode struct {
	next     map[int32]int32
	greatest int32 // the largest property leading on, -1 for none
	def      int32 // the first interface ending here, -1 for none
}

func newInterfaceMatcher(defs []interfaceDef, nprops int) *interfaceMatcher {
	m := &interfaceMatcher{tree: []matchNode{{greatest: -1, def: -1}}, known: make([]bool, nprops)}
	for d, def := range defs {
		sorted := slices.Clone(def.props)
		slices.Sort(sorted)
		at := int32(0)
		for _, p := range sorted {
			m.known[p] = true
			nd := &m.tree[at]
			child, ok := nd.next[p]
			if !ok {
				if nd.next == nil {
					nd.next = map[int32]int32{}
				}
				child = int32(len(m.tree))
				nd.next[p] = child
				nd.greatest = max(nd.greatest, p)
				m.tree = append(m.tree, matchNode{greatest: -1, def: -1})
			}
			at = child
		}
		// An earlier interface with the same properties keeps the place.
		if m.tree[at].def < 0 {
			m.tree[at].def = int32(d)
		}
	}
	m.in = make([]bool, len(m.tree))
	return m
}

// match returns the interface plain object i is named by, or -1.
func (m *interfaceMatcher) match(s *ir.Snapshot, props *propTable, property, i int, defs []interfaceDef) int32 {
	m.seq = m.seq[:0]
	lo, hi := s.Nodes.EdgeRange(i)
	for e := lo; e < hi; e++ {
		if int(s.Edges.Kind[e]) != property {
			continue
		}
		// Properties of no interface cannot lead anywhere in the tree.
		if p := props.id(s.Edges.Name[e]); int(p) < len(m.known) && m.known[p] {
			m.seq = append(m.seq, p)
		}
	}
	if len(m.seq) == 0 {
		return -1
	}
	slices.Sort(m.seq)
	best := int32(-1)
	better := func(d int32) bool {
		if best < 0 {
			return true
		}
		a, b := len(defs[d].props), len(defs[best].props)
		return a > b || (a == b && d < best)
	}
	m.states = append(m.states[:0], 0)
	m.in[0] = true
	for _, p := range m.seq {
		m.next = m.next[:0]
		for _, st := range m.states {
			nd := &m.tree[st]
			// A state whose properties all sort at or before p can take
			// no later step (the properties come sorted).
			if nd.greatest > p {
				m.next = append(m.next, st)
			} else {
				m.in[st] = false
			}
			if c, ok := nd.next[p]; ok && !m.in[c] {
				m.in[c] = true
				m.next = append(m.next, c)
				if d := m.tree[c].def; d >= 0 && better(d) {
					best = d
				}
			}
		}
		m.states, m.next = m.next, m.states
	}
	for _, st := range m.states {
		m.in[st] = false
	}
	return best
}

// located is an object node with an allocation location (an index into
// the distinct locations).
type located struct {
	node uint32
	loc  int32
}

// devtoolsLocations returns the object nodes with an allocation location,
// in node order, and the distinct locations. A node listed twice takes its
// last entry, as DevTools' location map does.
func devtoolsLocations(s *ir.Snapshot, object int) (nodes []located, locs []SourceLocation) {
	if v8ir.Of(s) == nil || v8ir.Of(s).Locations.Len() == 0 || object < 0 {
		return nil, nil
	}
	fields := v8ir.Of(s).MetaList("location_fields")
	obj, script := slices.Index(fields, "object_index"), slices.Index(fields, "script_id")
	line, col := slices.Index(fields, "line"), slices.Index(fields, "column")
	if obj < 0 || script < 0 || line < 0 || col < 0 {
		return nil, nil
	}
	nf, all := len(fields), &v8ir.Of(s).Locations
	ids := map[SourceLocation]int32{}
	for at := 0; at+nf <= all.Len(); at += nf {
		v := all.At(at + obj)
		if v >= uint64(s.Nodes.Len()) || int(s.Nodes.Kind[v]) != object {
			continue // DevTools splits only objects by location
		}
		l := SourceLocation{ScriptID: all.At(at + script), Line: all.At(at + line), Column: all.At(at + col)}
		id, ok := ids[l]
		if !ok {
			id = int32(len(locs))
			ids[l] = id
			locs = append(locs, l)
		}
		nodes = append(nodes, located{uint32(v), id})
	}
	// Stable, so that of a node's entries the last stays last.
	slices.SortStableFunc(nodes, func(a, b located) int { return cmp.Compare(a.node, b.node) })
	out := nodes[:0]
	for _, x := range nodes {
		if len(out) > 0 && out[len(out)-1].node == x.node {
			out[len(out)-1] = x
		} else {
			out = append(out, x)
		}
	}
	return out, locs
}

// devtoolsClasses gives every node of a V8 snapshot the Summary row
// DevTools counts it in: classes[of[i]] is node i's, with the row's name and
// location (Count and SelfSize are left zero).
func devtoolsClasses(f *ir.File, s *ir.Snapshot, labels []string) (classes []ClassStat, of []int32) {
	n := s.Nodes.Len()
	object, native := kindIndex(s.NodeKinds, ir.KindObject), kindIndex(s.NodeKinds, ir.KindNative)
	property := edgeKindIndex(s, ir.EdgeProperty)
	detached := devtoolsDetached(s)
	props := newPropTable(f)
	defs := inferInterfaces(f, s, props)
	var matcher *interfaceMatcher
	if len(defs) > 0 {
		matcher = newInterfaceMatcher(defs, len(props.names))
	}
	locNodes, locs := devtoolsLocations(s, object)

	// A row is a name and a location: one class name can have several.
	type row struct {
		name string
		loc  int32
	}
	rows := map[row]int32{}
	rowOf := func(name string, loc int32) int32 {
		r := row{name, loc}
		c, ok := rows[r]
		if !ok {
			c = int32(len(classes))
			rows[r] = c
			cs := ClassStat{Name: name}
			if loc >= 0 {
				cs.Location = &locs[loc]
			}
			classes = append(classes, cs)
		}
		return c
	}
	// Nodes are grouped by integer keys first, each group's name made
	// once, so that no string is built per node: the common groups (by
	// kind, by name, by interface) in slices, the others in a map. Groups
	// of one name (an object and a native node "Foo", "<div id=a>" and
	// "<div id=b>") share a row, as DevTools' class names do.
	filled := func(k int) []int32 {
		x := make([]int32, k)
		for i := range x {
			x[i] = -1
		}
		return x
	}
	byKind := filled(256) // Kind is a uint8
	byName := filled(len(f.Strings))
	byInterface := filled(len(defs))
	const (
		tableClass   = iota // a is the class table entry + 1
		detachedName        // a is the name
		locatedName         // a is the name; at location loc
		locatedIface        // a is the interface; at location loc
	)
	type group struct {
		by  uint8
		a   uint32
		loc int32
	}
	groups := map[group]int32{}
	grouped := func(g group) int32 {
		if c, ok := groups[g]; ok {
			return c
		}
		var name string
		switch g.by {
		case tableClass:
			name = labels[g.a-1]
		case detachedName:
			// DevTools renames a detached node "Detached <name>", then
			// names its class as any other's.
			name = devtoolsObjectClass("Detached " + f.String(g.a))
		case locatedName:
			name = devtoolsObjectClass(f.String(g.a))
		case locatedIface:
			name = defs[g.a].name
		}
		c := rowOf(name, g.loc)
		groups[g] = c
		return c
	}
	of = make([]int32, n)
	for i := 0; i < n; i++ {
		k := int(s.Nodes.Kind[i])
		loc := int32(-1)
		if len(locNodes) > 0 && locNodes[0].node == uint32(i) {
			loc = locNodes[0].loc
			locNodes = locNodes[1:]
		}
		nameID := s.Nodes.Name[i]
		switch {
		case len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 && int(s.Nodes.Class[i]) <= len(labels):
			of[i] = grouped(group{tableClass, s.Nodes.Class[i], -1})
		case detached != nil && detached[i]:
			of[i] = grouped(group{detachedName, nameID, -1})
		case k == object || k == native:
			d := int32(-1)
			if matcher != nil && isPlainObject(f, s, object, i) {
				d = matcher.match(s, props, property, i, defs)
			}
			switch {
			case d >= 0 && loc >= 0:
				of[i] = grouped(group{locatedIface, uint32(d), loc})
			case d >= 0:
				if byInterface[d] < 0 {
					byInterface[d] = rowOf(defs[d].name, -1)
				}
				of[i] = byInterface[d]
			case loc >= 0:
				of[i] = grouped(group{locatedName, nameID, loc})
			case int(nameID) < len(byName):
				if byName[nameID] < 0 {
					byName[nameID] = rowOf(devtoolsObjectClass(f.String(nameID)), -1)
				}
				of[i] = byName[nameID]
			default:
				of[i] = rowOf(devtoolsObjectClass(f.String(nameID)), -1)
			}
		default:
			if byKind[k] < 0 {
				byKind[k] = rowOf(kindClass(s.NodeKindName(i)), -1)
			}
			of[i] = byKind[k]
		}
	}
	return classes, of
}
