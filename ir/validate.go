package ir

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
)

// Validate checks the structural invariants every reader guarantees and every
// writer relies on: column lengths agree, indices are in range, edges are
// grouped by source, and each section's own rules hold. Readers call it
// after parsing, as google/pprof's profile package does.
func (f *File) Validate() error {
	ns := uint32(len(f.Strings))
	if err := f.Classes.validate(ns); err != nil {
		return err
	}
	v := &validator{f: f}
	v.tables = append(v.tables, tableLen{TableClass, f.Classes.Len()}, tableLen{TableField, len(f.Classes.FieldName)})
	bindFile(f, &v.core)
	v.declared()
	if err := v.sections(nil, f.Sections); err != nil {
		return err
	}
	if err := f.validateSeries(); err != nil {
		return err
	}
	fileTables, fileNames := v.tables, len(v.names)
	v.fileTables = len(fileTables)
	for i, s := range f.Snapshots {
		if err := s.validate(f, ns); err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
		v.tables = append(fileTables[:len(fileTables):len(fileTables)], tableLen{TableNode, s.Nodes.Len()},
			tableLen{TableEdge, s.Edges.Len()}, tableLen{TableRoot, len(s.Roots)}, tableLen{TableValue, s.Values.Len()})
		v.names = v.names[:fileNames]
		v.core = Bindings{columns: v.core.columns[:0]}
		bindSnapshot(s, &v.core)
		v.declared()
		if err := v.sections(s, s.Sections); err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
	}
	return nil
}

// validator checks sections against their declarations. A file of many
// snapshots checks each one's: it reuses its declarations' storage.
type validator struct {
	f          *File
	tables     []tableLen // the tables known so far, and their lengths
	fileTables int        // how many of them are the file's (once known)
	counted    []string   // the tables of the scope a count column counts
	names      []string   // the columns declared in the scope (the file's first)
	core       Bindings   // the core's columns of the scope
	binds      []*Bindings
}

// declared notes the core's columns that the scope's record declares.
func (v *validator) declared() {
	for i := range v.core.columns {
		if c := &v.core.columns[i]; c.Present() {
			v.names = append(v.names, c.Decl.Name)
		}
	}
}

type tableLen struct {
	name string
	n    int
}

// table returns a table's length, and whether it is known.
func (v *validator) table(name string) (int, bool) {
	for _, t := range v.tables {
		if t.name == name {
			return t.n, true
		}
	}
	return 0, false
}

// sections checks a scope's sections against their declarations, then by
// their own rules. Each section table's length is that of its first
// column present.
func (v *validator) sections(s *Snapshot, sections []Section) error {
	for len(v.binds) < len(sections) {
		v.binds = append(v.binds, new(Bindings))
	}
	v.counted = append(v.counted[:0], TableField)
	if s != nil {
		v.counted = append(v.counted[:0], TableEdge)
	}
	for i, x := range sections {
		b := v.binds[i]
		*b = Bindings{Version: sectionVersion(x), fields: b.fields[:0], columns: b.columns[:0]}
		x.Bind(b)
		for k := range b.fields {
			if fl := &b.fields[k]; fl.Kind == FieldStringIndex && int(fl.Index()) >= len(v.f.Strings) {
				return fmt.Errorf("%s: field %s: string %d out of range (%d strings)", x.SectionName(), fl.Name, fl.Index(), len(v.f.Strings))
			}
		}
		for k := range b.columns {
			c := &b.columns[k]
			if !c.Present() {
				continue
			}
			if err := v.declaration(s, c.Decl); err != nil {
				return fmt.Errorf("%s: %w", x.SectionName(), err)
			}
			if _, ok := v.table(c.Decl.Table); !ok {
				v.tables = append(v.tables, tableLen{c.Decl.Table, c.Len()})
			}
		}
	}
	for i, x := range sections {
		b := v.binds[i]
		for k := range b.columns {
			if c := &b.columns[k]; c.Present() {
				if err := v.column(c); err != nil {
					return fmt.Errorf("%s: %w", x.SectionName(), err)
				}
			}
		}
		if err := x.Validate(v.f, s); err != nil {
			return err
		}
	}
	return nil
}

// declaration checks what the stream's reader checks of a section column's
// declaration (SPEC.md, Column declarations), so that what is written reads
// back: a name and a table, a name declared once in the scope, a known
// type with a table it refers to exactly when it needs one, no snapshot
// table in the file's, and a table counted by at most one column, of its
// own scope and another table.
func (v *validator) declaration(s *Snapshot, d ColumnDecl) error {
	if err := d.Check(); err != nil {
		return err
	}
	if slices.Contains(v.names, d.Name) {
		return fmt.Errorf("column %s declared twice", d.Name)
	}
	v.names = append(v.names, d.Name)
	if s == nil && (IsSnapshotTable(d.Table) || IsSnapshotTable(d.Of)) {
		return fmt.Errorf("column %s of the file: table %q, refers to %q: a snapshot's table", d.Name, d.Table, d.Of)
	}
	if d.Type != TypeCount {
		return nil
	}
	switch {
	case d.Of == d.Table:
		return fmt.Errorf("column %s counts its own table", d.Name)
	case s != nil && slices.ContainsFunc(v.tables[:v.fileTables], func(t tableLen) bool { return t.name == d.Of }):
		return fmt.Errorf("column %s counts the file's table %s", d.Name, d.Of)
	case slices.Contains(v.counted, d.Of):
		return fmt.Errorf("column %s: table %s is already counted", d.Name, d.Of)
	}
	v.counted = append(v.counted, d.Of)
	return nil
}

// column checks a column's length and values against its declaration.
func (v *validator) column(c *Column) error {
	d := c.Decl
	n := c.Len()
	if want, _ := v.table(d.Table); n != want {
		return fmt.Errorf("column %s has %d values for the %d entries of table %s", d.Name, n, want, d.Table)
	}
	of, _ := v.table(d.Of)
	var limit uint64
	switch d.Type {
	case TypeString:
		limit = uint64(len(v.f.Strings))
	case TypeIndex:
		limit = uint64(of)
	case TypeIndex1:
		limit = uint64(of) + 1
	case TypeCount:
		return checkCounts(c, of)
	default:
		return nil
	}
	// The largest value first, from the column's memory when it can (see
	// validateEdgeKinds); the value at fault is looked for only when one
	// is out of range.
	if m, ok := columnMax(c); ok && m < limit {
		return nil
	}
	for i := range n {
		if v := c.At(i); v >= limit {
			return fmt.Errorf("column %s: value %d at %d is out of range (below %d)", d.Name, v, i, limit)
		}
	}
	return nil
}

// columnMax returns the largest value of a column stored as bytes, 32- or
// 64-bit values or Uints, and false for other columns.
func columnMax(c *Column) (uint64, bool) {
	switch s := c.Storage().(type) {
	case []byte:
		return uint64(maxOf(s)), true
	case []uint32:
		return uint64(maxOf(s)), true
	case []uint64:
		return maxOf(s), true
	case *Uints:
		return s.Max(), true
	}
	return 0, false
}

func (c *Classes) validate(ns uint32) error {
	n := len(c.Name)
	if len(c.Library) != n {
		return fmt.Errorf("class table: %d names but %d libraries", n, len(c.Library))
	}
	if n == 0 && len(c.FirstField) == 0 {
		if len(c.FieldName) != 0 {
			return fmt.Errorf("class table: field names without classes")
		}
		return nil
	}
	if len(c.FirstField) != n+1 {
		return fmt.Errorf("class table: %d classes need %d field offsets, have %d", n, n+1, len(c.FirstField))
	}
	if err := checkOffsets(c.FirstField, len(c.FieldName), "class field"); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if c.Name[i] >= ns || c.Library[i] >= ns {
			return fmt.Errorf("class %d: string index out of range", i)
		}
	}
	for i, s := range c.FieldName {
		if s >= ns {
			return fmt.Errorf("class field %d: string index %d out of range", i, s)
		}
	}
	return nil
}

// checkCounts checks that a count column's counts add up to total: as
// offsets, that they start at 0, never decrease and end at total.
func checkCounts(c *Column, total int) error {
	switch d := c.data.(type) {
	case *offsets32:
		return checkOffsets(*d.p, total, c.Decl.Name)
	case *offsets64:
		return checkOffsets(*d.p, total, c.Decl.Name)
	}
	var sum uint64
	for i := range c.Len() {
		sum = SatAdd(sum, c.At(i))
	}
	if sum != uint64(total) {
		return fmt.Errorf("column %s counts %d entries; there are %d", c.Decl.Name, sum, total)
	}
	return nil
}

func checkOffsets[T uint32 | uint64](off []T, total int, what string) error {
	if off[0] != 0 {
		return fmt.Errorf("%s offsets must start at 0", what)
	}
	if !nonDecreasing(off) {
		for i := 1; i < len(off); i++ {
			if off[i] < off[i-1] {
				return fmt.Errorf("%s offsets decrease at %d", what, i)
			}
		}
	}
	if uint64(off[len(off)-1]) != uint64(total) {
		return fmt.Errorf("%s offsets end at %d, but there are %d", what, off[len(off)-1], total)
	}
	return nil
}

// nonDecreasing reports whether off never decreases, in a loop without an
// exit that keeps four comparisons going at once.
func nonDecreasing[T uint32 | uint64](off []T) bool {
	var bad uint8
	i := 1
	for ; i+4 <= len(off); i += 4 {
		o := off[i-1 : i+4 : i+4]
		bad |= b2u8(o[1] < o[0]) | b2u8(o[2] < o[1]) | b2u8(o[3] < o[2]) | b2u8(o[4] < o[3])
	}
	for ; i < len(off); i++ {
		bad |= b2u8(off[i] < off[i-1])
	}
	return bad == 0
}

func (s *Snapshot) validate(f *File, ns uint32) error {
	n := s.Nodes.Len()
	if s.Name >= ns {
		return fmt.Errorf("name: string index %d out of range", s.Name)
	}
	if len(s.NodeKinds) > 256 || len(s.EdgeKinds) > 256 {
		return fmt.Errorf("kind tables hold at most 256 entries")
	}
	nd := &s.Nodes
	if len(nd.Name) != n || nd.ID.Len() != n || nd.SelfSize.Len() != n {
		return fmt.Errorf("node columns disagree on the node count: kind %d, name %d, id %d, self size %d",
			n, len(nd.Name), nd.ID.Len(), nd.SelfSize.Len())
	}
	if len(nd.Class) != 0 && len(nd.Class) != n {
		return fmt.Errorf("class column has %d entries for %d nodes", len(nd.Class), n)
	}
	if nd.ExternalSize.Len() != 0 && nd.ExternalSize.Len() != n {
		return fmt.Errorf("external size column has %d entries for %d nodes", nd.ExternalSize.Len(), n)
	}
	if len(nd.FirstEdge) != n+1 {
		return fmt.Errorf("edge offsets: %d entries for %d nodes", len(nd.FirstEdge), n)
	}
	m := s.Edges.Len()
	if len(s.Edges.Name) != m || len(s.Edges.Target) != m {
		return fmt.Errorf("edge columns disagree on the edge count: kind %d, name %d, target %d",
			m, len(s.Edges.Name), len(s.Edges.Target))
	}
	// The edge columns, the biggest, are checked in two halves on other
	// goroutines while the edge offsets and the node columns are, and the
	// values too; the first error is the same either way.
	big := m >= 1<<20
	checks := []func() error{
		alongside(big, func() error { return s.validateEdgeKinds(0, m/2, ns) }),
		alongside(big, func() error { return s.validateEdgeKinds(m/2, m, ns) }),
		alongside(big, func() error { return s.validateEdgeTargets(0, m/2, n) }),
		alongside(big, func() error { return s.validateEdgeTargets(m/2, m, n) }),
	}
	values := alongside(big, func() error { return s.Values.validate(n, ns) })
	first := checkOffsets(nd.FirstEdge, m, "edge")
	if first == nil {
		first = s.validateNodes(f, n, ns)
	}
	for _, check := range append(checks, s.validateRoots(n, ns), values) {
		if err := check(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// validateRoots returns a check of the root node and the roots.
func (s *Snapshot) validateRoots(n int, ns uint32) func() error {
	return func() error {
		if s.Root != NoNode && int(s.Root) >= n {
			return fmt.Errorf("root node %d out of range (%d nodes)", s.Root, n)
		}
		for i, r := range s.Roots {
			if int(r.Node) >= n || r.Category >= ns {
				return fmt.Errorf("root %d: node or category out of range", i)
			}
		}
		return nil
	}
}

// alongside returns a function that gives check's result: check runs on
// another goroutine now when big is set (and there is a second core), else
// when the function is called.
func alongside(big bool, check func() error) (wait func() error) {
	if !big || runtime.GOMAXPROCS(0) < 2 {
		return check
	}
	ch := make(chan error, 1)
	go func() { ch <- check() }()
	return func() error { return <-ch }
}

// validateNodes checks the node columns' values.
func (s *Snapshot) validateNodes(f *File, n int, ns uint32) error {
	nd := &s.Nodes
	// Each column's largest value first (see validateEdgeKinds).
	if !bytesBelow(nd.Kind[:n], len(s.NodeKinds)) {
		for i, k := range nd.Kind[:n] {
			if int(k) >= len(s.NodeKinds) {
				return fmt.Errorf("node %d: kind %d is not in the kind table (%d entries)", i, k, len(s.NodeKinds))
			}
		}
	}
	if maxOf(nd.Name[:n]) >= ns {
		for i, v := range nd.Name[:n] {
			if v >= ns {
				return fmt.Errorf("node %d: name string %d out of range (%d strings)", i, v, ns)
			}
		}
	}
	nc := uint32(f.Classes.Len())
	if maxOf(nd.Class) > nc {
		for i, c := range nd.Class {
			if c > nc {
				return fmt.Errorf("node %d: class %d out of range (%d classes)", i, c, nc)
			}
		}
	}
	return nil
}

// validateEdgeKinds checks the kinds and names of edges lo to hi-1.
func (s *Snapshot) validateEdgeKinds(lo, hi int, ns uint32) error {
	var named [256]uint32 // all ones for kinds whose names are string indices
	for k, ek := range s.EdgeKinds {
		if !ek.Indexed {
			named[k] = math.MaxUint32
		}
	}
	kinds, names := s.Edges.Kind[lo:hi], s.Edges.Name[lo:hi]
	names = names[:len(kinds)]
	// Block by block, the largest kind and name first, in loops without
	// an exit (this runs after every parse); only a block with a name
	// past the strings has its names checked by kind (an indexed edge's
	// name is an element index, which may be that big), and only a block
	// at fault is searched for the edge.
	for b := 0; b < len(kinds); b += checkBlock {
		ks, nms := kinds[b:min(b+checkBlock, len(kinds))], names[b:min(b+checkBlock, len(kinds))]
		if bytesBelow(ks, len(s.EdgeKinds)) && maxOf(nms) < ns {
			continue
		}
		if maxKind, maxName := maxKindName(ks, nms, &named); int(maxKind) < len(s.EdgeKinds) && maxName < ns {
			continue
		}
		for e, k := range ks {
			if int(k) >= len(s.EdgeKinds) {
				return fmt.Errorf("edge %d: kind %d is not in the kind table (%d entries)", lo+b+e, k, len(s.EdgeKinds))
			}
			if named[k] != 0 && nms[e] >= ns {
				return fmt.Errorf("edge %d: name string %d out of range (%d strings)", lo+b+e, nms[e], ns)
			}
		}
	}
	return nil
}

// checkBlock is how many edges validateEdgeKinds checks at once: few
// enough that a block's kinds and names are still in the cache when a
// name past the strings makes it check them again by kind.
const checkBlock = 2048

// maxKindName returns the largest kind, and the largest name of the kinds
// named has all ones for, four at a time: four running maxima keep four
// chains of dependent instructions going at once.
func maxKindName(kinds []uint8, names []uint32, named *[256]uint32) (uint8, uint32) {
	names = names[:len(kinds)]
	var k0, k1, k2, k3 uint8
	var n0, n1, n2, n3 uint32
	e := 0
	for ; e+4 <= len(kinds); e += 4 {
		k := kinds[e : e+4 : e+4]
		nm := names[e : e+4 : e+4]
		k0, n0 = max(k0, k[0]), max(n0, nm[0]&named[k[0]])
		k1, n1 = max(k1, k[1]), max(n1, nm[1]&named[k[1]])
		k2, n2 = max(k2, k[2]), max(n2, nm[2]&named[k[2]])
		k3, n3 = max(k3, k[3]), max(n3, nm[3]&named[k[3]])
	}
	for ; e < len(kinds); e++ {
		k0, n0 = max(k0, kinds[e]), max(n0, names[e]&named[kinds[e]])
	}
	return max(k0, k1, k2, k3), max(n0, n1, n2, n3)
}

// maxOf returns the largest of vs (0 for none), four at a time.
func maxOf[T uint8 | uint32 | uint64](vs []T) T {
	var m0, m1, m2, m3 T
	e := 0
	for ; e+4 <= len(vs); e += 4 {
		v := vs[e : e+4 : e+4]
		m0, m1, m2, m3 = max(m0, v[0]), max(m1, v[1]), max(m2, v[2]), max(m3, v[3])
	}
	for _, v := range vs[e:] {
		m0 = max(m0, v)
	}
	return max(m0, m1, m2, m3)
}

// bytesBelow reports whether every byte of bs is below n, 8 bytes to a
// word: adding 128-n to a byte below 128 sets its high bit exactly when it
// is n or more, without a carry into the next, and a byte of 128 or more
// has the bit already (its carry can only reach a word already found).
// maxOf takes a step per byte, which is slower than memory here.
func bytesBelow(bs []uint8, n int) bool {
	if n > 128 {
		return int(maxOf(bs)) < n
	}
	const ones, high = 0x0101010101010101, 0x8080808080808080
	c := uint64(128-n) * ones
	var a0, a1 uint64
	e := 0
	for ; e+32 <= len(bs); e += 32 {
		b := bs[e : e+32 : e+32]
		x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		z, w := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		a0 |= (x + c) | x | (z + c) | z // + and | bind alike in Go
		a1 |= (y + c) | y | (w + c) | w
	}
	for _, v := range bs[e:] {
		a0 |= (uint64(v) + c) | uint64(v)
	}
	return (a0|a1)&high == 0
}

// validateEdgeTargets checks the targets of edges lo to hi-1.
func (s *Snapshot) validateEdgeTargets(lo, hi, n int) error {
	targets := s.Edges.Target[lo:hi]
	if int64(maxOf(targets)) < int64(n) {
		return nil
	}
	for e, t := range targets {
		if int(t) >= n {
			return fmt.Errorf("edge %d: target node %d out of range (%d nodes)", lo+e, t, n)
		}
	}
	return nil
}

func (v *Values) validate(n int, ns uint32) error {
	k := len(v.Node)
	if len(v.Kind) != k || len(v.Bits) != k || len(v.Aux) != k {
		return fmt.Errorf("value columns disagree on the value count")
	}
	if v.valid(n, ns) {
		return nil
	}
	for j := 0; j < k; j++ {
		if int(v.Node[j]) >= n || (j > 0 && v.Node[j] <= v.Node[j-1]) {
			return fmt.Errorf("value %d: node %d out of range or out of order", j, v.Node[j])
		}
		switch v.Kind[j] {
		case ValueString:
			if v.Bits[j] >= uint64(ns) {
				return fmt.Errorf("value %d: string %d out of range", j, v.Bits[j])
			}
		case ValueInt, ValueFloat, ValueBool, ValueLength, ValueNull:
		default:
			return fmt.Errorf("value %d: unknown kind %d", j, v.Kind[j])
		}
	}
	return nil
}

// valid reports whether the values are right, as validate checks them,
// in loops without a branch on the values: their kinds come in no order
// a branch predictor could learn.
func (v *Values) valid(n int, ns uint32) bool {
	var unknown [256]uint8 // 1 for kinds that are not known
	var text [256]uint64   // all ones for kinds whose bits are a string
	for k := range unknown {
		if ValueKind(k) < ValueString || ValueKind(k) > ValueNull {
			unknown[k] = 1
		}
	}
	text[ValueString] = math.MaxUint64
	nodes, kinds, bits := v.Node, v.Kind, v.Bits[:len(v.Kind)]
	if len(nodes) > 0 && int64(maxOf(nodes)) >= int64(n) {
		return false
	}
	var bad uint8
	for j := 1; j < len(nodes); j++ {
		bad |= b2u8(nodes[j] <= nodes[j-1])
	}
	var str uint64
	for j, kind := range kinds {
		bad |= unknown[kind]
		str = max(str, bits[j]&text[kind])
	}
	return bad == 0 && str < uint64(ns) // with no strings, the slow loop decides
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
