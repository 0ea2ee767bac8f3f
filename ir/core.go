package ir

// The core's own columns: the class table of the file record, and the node,
// edge, root and value tables of each snapshot record, in the order the
// stream holds them. node.kind and edge.kind come first: they fix the node
// and edge counts the other columns of their tables are bounded by.

func bindFile(f *File, b *Bindings) {
	c := &f.Classes
	b.Column("class.name", TableClass, &c.Name, Strings())
	b.Column("class.library", TableClass, &c.Library, Strings())
	b.Column("class.field_count", TableClass, &c.FirstField, Counts(TableField))
	b.Column("class.field_name", TableField, &c.FieldName, Strings())
}

func bindSnapshot(s *Snapshot, b *Bindings) {
	nd, ed, v := &s.Nodes, &s.Edges, &s.Values
	b.Column("node.kind", TableNode, &nd.Kind)
	b.Column("edge.kind", TableEdge, &ed.Kind)
	b.Column("node.name", TableNode, &nd.Name, Strings())
	b.Column("node.class", TableNode, &nd.Class, IndexPlusOne(TableClass), Optional())
	b.Column("node.id", TableNode, &nd.ID)
	b.Column("node.self_size", TableNode, &nd.SelfSize)
	b.Column("node.external_size", TableNode, &nd.ExternalSize, Optional())
	b.Column("node.edge_count", TableNode, &nd.FirstEdge, Counts(TableEdge))
	// An edge's name is a string index or, for an indexed kind, a number.
	b.Column("edge.name", TableEdge, &ed.Name)
	b.Column("edge.target", TableEdge, &ed.Target, IndexInto(TableNode))
	b.Column("root.node", TableRoot, rootNodes{&s.Roots}, IndexInto(TableNode))
	b.Column("root.category", TableRoot, &rootCategories{&s.Roots, len(s.Roots)}, Strings())
	b.Column("value.node", TableValue, &v.Node, IndexInto(TableNode))
	b.Column("value.kind", TableValue, valueKinds{&v.Kind})
	b.Column("value.bits", TableValue, &v.Bits)
	b.Column("value.aux", TableValue, &v.Aux)
	// A snapshot of a series declares both, even empty: that is how a
	// reader knows it has an Origin.
	b.Column("origin.string", TableOriginString, originColumn{s, false}, Strings(), Optional())
	b.Column("origin.class", TableOriginClass, originColumn{s, true}, IndexInto(TableClass), Optional())
}

// originColumn is one of the two columns of a snapshot's Origin: declaring
// it (a reader finishing it) gives the snapshot one.
type originColumn struct {
	s       *Snapshot
	classes bool
}

func (c originColumn) list() *[]uint32 {
	if c.s.Origin == nil {
		c.s.Origin = new(Origin)
	}
	if c.classes {
		return &c.s.Origin.Classes
	}
	return &c.s.Origin.Strings
}

func (c originColumn) len() int {
	if c.s.Origin == nil {
		return 0
	}
	return len(*c.list())
}
func (c originColumn) at(i int) uint64                 { return uint64((*c.list())[i]) }
func (c originColumn) addZeros(n int)                  { u32Column{c.list()}.addZeros(n) }
func (c originColumn) present() bool                   { return c.s.Origin != nil }
func (c originColumn) finish()                         { c.list() }
func (c originColumn) add(v []uint64, expect int) bool { return u32Column{c.list()}.add(v, expect) }

// FileBindings returns the core's declaration of the file record's
// columns, bound to f's class table.
func FileBindings(f *File) *Bindings {
	b := &Bindings{Version: Version}
	bindFile(f, b)
	return b
}

// SnapshotBindings returns the core's declaration of a snapshot record's
// columns, bound to s's tables.
func SnapshotBindings(s *Snapshot) *Bindings {
	b := &Bindings{Version: Version}
	bindSnapshot(s, b)
	return b
}

// rootNodes is the roots' node column: appending adds roots.
type rootNodes struct{ p *[]RootRef }

func (c rootNodes) len() int        { return len(*c.p) }
func (c rootNodes) at(i int) uint64 { return uint64((*c.p)[i].Node) }
func (c rootNodes) addZeros(n int)  { *c.p = append(*c.p, make([]RootRef, n)...) }
func (c rootNodes) present() bool   { return len(*c.p) > 0 }
func (c rootNodes) finish()         {}
func (c rootNodes) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, 1<<32-1, func(x uint64) RootRef { return RootRef{Node: uint32(x)} })
}

// rootCategories is the roots' category column: it fills in the roots the
// node column added, n of them so far.
type rootCategories struct {
	p *[]RootRef
	n int
}

func (c *rootCategories) len() int        { return c.n }
func (c *rootCategories) at(i int) uint64 { return uint64((*c.p)[i].Category) }
func (c *rootCategories) present() bool   { return c.n > 0 }
func (c *rootCategories) finish()         {}
func (c *rootCategories) addZeros(n int)  { c.add(make([]uint64, n), 0) }
func (c *rootCategories) add(v []uint64, _ int) bool {
	if c.n+len(v) > len(*c.p) {
		return false
	}
	for _, x := range v {
		if x > 1<<32-1 {
			return false
		}
		(*c.p)[c.n].Category = uint32(x)
		c.n++
	}
	return true
}

// valueKinds is the values' kind column.
type valueKinds struct{ p *[]ValueKind }

func (c valueKinds) len() int        { return len(*c.p) }
func (c valueKinds) at(i int) uint64 { return uint64((*c.p)[i]) }
func (c valueKinds) addZeros(n int)  { *c.p = append(*c.p, make([]ValueKind, n)...) }
func (c valueKinds) present() bool   { return len(*c.p) > 0 }
func (c valueKinds) finish()         {}
func (c valueKinds) add(v []uint64, expect int) bool {
	return appendConv(c.p, v, expect, 255, func(x uint64) ValueKind { return ValueKind(x) })
}
