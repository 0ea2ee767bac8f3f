package irstream

import (
	"fmt"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// A snapshot may be stored against an earlier one, its base (SPEC.md,
// Snapshots stored against a base): the column node.base says which node
// of the base each node is, and the columns the snapshot record names as
// based hold each entry's difference from the base's entry (the same
// node, the same edge of it), zigzag-coded, so that what persists from
// one snapshot to the next — most of a heap — is stored as runs of
// zeros. It is the stream's business alone: the model holds the values.

// nodeBaseColumn is the core column that matches a snapshot's nodes with
// its base's.
const nodeBaseColumn = "node.base"

// minMatched is the share of a snapshot's nodes its base must hold for the
// encoder to store it against that base.
const minMatched = 0.5

// keyframeInterval is how often the encoder stores a snapshot as it is
// although it could store it against the one before: reading one snapshot
// of a long series (DecodeSnapshot) then decodes at most this many.
const keyframeInterval = 16

// basing is how the encoder stores one snapshot against its base.
type basing struct {
	base     int      // the base's index
	nodeBase []uint32 // per node: 0, or 1 + the index of the base's node it is
	inv      []uint32 // per base node: 0, or 1 + the index of its node here
	s, b     *ir.Snapshot
	baseCols map[string]*ir.Column // the base's columns by name
	based    map[string]bool       // the columns stored against the base
	order    []string              // their names, in declaration order
	zeros    map[string]bool       // those whose differences are all 0
}

// matchNodes matches the nodes of s with those of b by the identities
// their format gives objects that persist from one snapshot to the next
// (ir.ObjectIdentities: V8's node ids, Dart's identity hash codes,
// Fuchsia's block addresses): a node of s is the node of b of the same
// identity, unless more than one node of b has it; each node of b is
// matched once at most. It returns nil when the snapshots have no such
// identities, or fewer than minMatched of s's nodes are matched.
func matchNodes(b, s *ir.Snapshot) (nodeBase, inv []uint32) {
	n, bn := s.Nodes.Len(), b.Nodes.Len()
	ids, bids := ir.Identities(s), ir.Identities(b)
	if n == 0 || bn == 0 || ids == nil || bids == nil || ids.IdentityKind() != bids.IdentityKind() {
		return nil, nil
	}
	const ambiguous = ^uint32(0)
	byID := make(map[ir.Identity]uint32, bn)
	for q := range bn {
		id, ok := bids.Identity(b, q)
		if !ok {
			continue
		}
		if _, dup := byID[id]; dup {
			byID[id] = ambiguous
		} else {
			byID[id] = uint32(q)
		}
	}
	nodeBase, inv = make([]uint32, n), make([]uint32, bn)
	matched := 0
	for i := range n {
		id, ok := ids.Identity(s, i)
		if !ok {
			continue
		}
		q, ok := byID[id]
		if !ok || q == ambiguous || inv[q] != 0 {
			continue
		}
		nodeBase[i], inv[q] = q+1, uint32(i)+1
		matched++
	}
	if float64(matched) < minMatched*float64(n) {
		return nil, nil
	}
	return nodeBase, inv
}

// snapshotColumns returns the columns of a snapshot as the stream holds
// them: the core's, then each section's.
func snapshotColumns(s *ir.Snapshot) []*ir.Column {
	var cols []*ir.Column
	add := func(b *ir.Bindings) {
		for i := range b.Columns() {
			cols = append(cols, &b.Columns()[i])
		}
	}
	add(ir.SnapshotBindings(s))
	for _, x := range s.Sections {
		add(ir.SectionBindings(x))
	}
	return cols
}

// planBaseOf decides how snapshot idx, s, is stored: against the snapshot
// before it, b, when enough of its nodes are there (matchNodes) and it is
// not a keyframe (keyframeInterval), each column of the node and edge
// tables against it exactly when its differences take fewer bytes than
// its values. It returns nil for a snapshot stored as it is.
func planBaseOf(b, s *ir.Snapshot, idx int) *basing {
	if idx%keyframeInterval == 0 || b == nil {
		return nil
	}
	nodeBase, inv := matchNodes(b, s)
	if nodeBase == nil {
		return nil
	}
	p := &basing{base: idx - 1, nodeBase: nodeBase, inv: inv, s: s, b: b,
		baseCols: make(map[string]*ir.Column), based: make(map[string]bool), zeros: make(map[string]bool)}
	for _, c := range snapshotColumns(b) {
		if c.Present() {
			p.baseCols[c.Decl.Name] = c
		}
	}
	// Each column is gone through a chunk at a time, its differences made
	// and counted but not kept: the writer makes them again (residuals),
	// so that a snapshot of any size costs a chunk of memory here.
	vals := make([]uint64, chunkValues)
	resid := make([]uint64, chunkValues)
	for _, c := range snapshotColumns(s) {
		d := c.Decl
		if !c.Present() || d.Type == ir.TypeBytes || d.Table != ir.TableNode && d.Table != ir.TableEdge {
			continue
		}
		var plain, diff byteCount
		r := p.residuals(c)
		allZero := true
		for from := 0; from < c.Len(); from += chunkValues {
			part := vals[:min(chunkValues, c.Len()-from)]
			c.Values(part, from)
			out := r.next(resid[:len(part)], part)
			plain.add(part)
			diff.add(out)
			allZero = allZero && !slices.ContainsFunc(out, func(x uint64) bool { return x != 0 })
		}
		if diff.bytes() < plain.bytes() {
			p.based[d.Name] = true
			p.order = append(p.order, d.Name)
			p.zeros[d.Name] = allZero
		}
	}
	return p
}

// residualMaker makes a based column's stored numbers chunk by chunk, in
// order: each value's difference from its base value, zigzag-coded.
type residualMaker struct {
	p      *basing
	d      ir.ColumnDecl
	bc     *ir.Column // the base's column of the name, or nil
	loc    baseLocator
	pos    int // the entry the next chunk starts at
	at, bv []uint64
}

// residuals starts making the stored numbers of column c of the snapshot.
func (p *basing) residuals(c *ir.Column) *residualMaker {
	d := c.Decl
	return &residualMaker{p: p, d: d, bc: p.baseCols[d.Name],
		loc: newBaseLocator(d.Table == ir.TableEdge, p.nodeBase, p.s.Nodes.FirstEdge, p.b.Nodes.FirstEdge)}
}

// next writes into out the stored numbers of the next chunk of the
// column's values, vals, and returns out.
func (r *residualMaker) next(out, vals []uint64) []uint64 {
	at := slices.Grow(r.at[:0], len(vals))[:len(vals)]
	bv := slices.Grow(r.bv[:0], len(vals))[:len(vals)]
	r.at, r.bv = at, bv
	// The snapshot's own edges are all within its edge offsets: no entry
	// is refused here.
	r.loc.locate(at, r.pos)
	baseValues(r.bc, r.d, at, bv, func() []uint32 { return r.p.inv })
	for j, v := range vals {
		out[j] = zigzag(v - bv[j])
	}
	r.pos += len(vals)
	return out
}

// baseLocator finds, a chunk at a time and in order, which entry of the
// base's column of the same name each entry of a based column is stored
// against (SPEC.md, Snapshots stored against a base): for a node, its
// base node; for edge k of a node, edge k of its base node, if it has
// that many. The encoder and the decoder both use it, so that they agree.
type baseLocator struct {
	edges         bool
	nodeBase      []uint32 // per node: 0, or 1 + its node in the base
	first, bfirst []uint32 // the edge offsets of the snapshot and of its base
	node          int      // for edges: the node among whose edges the next entry is
}

func newBaseLocator(edges bool, nodeBase, first, bfirst []uint32) baseLocator {
	if len(first) == 0 {
		first = []uint32{0} // no nodes yet: no edges
	}
	return baseLocator{edges: edges, nodeBase: nodeBase, first: first, bfirst: bfirst}
}

// locate sets at[j] to the base's entry for entry pos+j, or to none (the
// largest uint64). It returns the index of the first edge entry past the
// edges the snapshot's offsets give (which the decoder refuses), or -1.
func (l *baseLocator) locate(at []uint64, pos int) int {
	const none = ^uint64(0)
	for j := range at {
		at[j] = none
		if !l.edges {
			if q := l.nodeBase[pos+j]; q != 0 {
				at[j] = uint64(q - 1)
			}
			continue
		}
		e := uint32(pos + j)
		if e >= l.first[len(l.first)-1] {
			return pos + j
		}
		for l.first[l.node+1] <= e {
			l.node++
		}
		if q := l.nodeBase[l.node]; q != 0 && int(q) < len(l.bfirst) {
			if k := e - l.first[l.node]; k < l.bfirst[q]-l.bfirst[q-1] {
				at[j] = uint64(l.bfirst[q-1] + k)
			}
		}
	}
	return -1
}

// baseValues sets out[j] to the base value at at[j] (locate): entry at[j]
// of the base's column bc, 0 where there is none (no entry, no column).
// For a column of node indices, a value the base has is turned into this
// snapshot's numbering through node.base's inverse, which inv gives when
// first needed.
func baseValues(bc *ir.Column, d ir.ColumnDecl, at, out []uint64, inv func() []uint32) {
	gatherBase(bc, at, out)
	if bc == nil || (d.Type != ir.TypeIndex && d.Type != ir.TypeIndex1) || d.Of != ir.TableNode {
		return
	}
	n := uint64(bc.Len())
	var in []uint32
	for j, p := range at {
		if p < n {
			if in == nil {
				in = inv()
			}
			out[j] = translate(out[j], in, d.Type)
		}
	}
}

// translate turns the base's value of a column that holds node indices
// into the index of the same node in the snapshot stored against it: an
// index or 1 + an index (0 for none, kept) of a base node becomes that of
// its counterpart (inv), 0 when it has none.
func translate(v uint64, inv []uint32, t ir.ColumnType) uint64 {
	if t == ir.TypeIndex1 {
		if v == 0 || v-1 >= uint64(len(inv)) {
			return 0
		}
		return uint64(inv[v-1])
	}
	if v >= uint64(len(inv)) || inv[v] == 0 {
		return 0
	}
	return uint64(inv[v] - 1)
}

// byteCount estimates what a column's values take in the stream, chunk
// by chunk: their significant bytes, delta-coded or not (from prev, the
// value before the first), whichever is fewer.
type byteCount struct {
	plain, delta int
	prev         uint64
}

func (c *byteCount) add(vals []uint64) {
	plain, delta, prev := c.plain, c.delta, c.prev // in registers: the encoder counts every chunk
	for _, x := range vals {
		plain += significantBytes(x)
		delta += significantBytes(zigzag(x - prev))
		prev = x
	}
	c.plain, c.delta, c.prev = plain, delta, prev
}

func (c *byteCount) bytes() int { return min(c.plain, c.delta) }

// basedOrder returns the order in which a snapshot stored against a base
// writes its columns (declared with node.base first): the node table's,
// the edge table's, then every other table's, each table's in declaration
// order — node.base and node.edge_count complete before any based value
// needs them.
func basedOrder(cols []*ir.Column) []*ir.Column {
	var node, edge, other []*ir.Column
	for _, c := range cols {
		switch {
		case c.Decl.Table == ir.TableNode:
			node = append(node, c)
		case c.Decl.Table == ir.TableEdge:
			edge = append(edge, c)
		default:
			other = append(other, c)
		}
	}
	return slices.Concat(node, edge, other)
}

// checkBased checks that the columns a snapshot names as based are
// declared columns of its node or edge table, not of bytes, not
// node.base.
func (d *decoder) checkBased(sc *scope) error {
	for name := range sc.based {
		cs := sc.cols[name]
		if cs == nil || cs.c.Decl.Type == ir.TypeBytes || cs.c.Decl.Name == nodeBaseColumn || cs.tab.name != ir.TableNode && cs.tab.name != ir.TableEdge {
			return d.errorf("snapshot %d: column %s is named as based: it must be a declared column of the node or edge table, not node.base, not of bytes", sc.index, name)
		}
	}
	return nil
}

// checkNodeBase checks node.base once it is complete — a value per node,
// each 0 or 1 + a node of the base, no node of the base twice — in memory
// of the snapshot's own size: a base of many nodes costs a small snapshot
// stored against it nothing.
func (d *decoder) checkNodeBase(sc *scope) error {
	if sc.nodeBaseChecked {
		return nil
	}
	n, bn := sc.tables[ir.TableNode].size, d.f.Snapshots[sc.base].Nodes.Len()
	if int64(len(sc.nodeBase)) != n {
		return d.errorf("snapshot %d: node.base holds %d values for %d nodes when based values need it", sc.index, len(sc.nodeBase), n)
	}
	var matched []uint32
	for i, q := range sc.nodeBase {
		switch {
		case q == 0:
		case int(q) > bn:
			return d.errorf("snapshot %d: node.base: node %d is node %d of the base, which has %d", sc.index, i, q-1, bn)
		default:
			matched = append(matched, q)
		}
	}
	slices.Sort(matched)
	for k := 1; k < len(matched); k++ {
		if q := matched[k]; q == matched[k-1] {
			first := slices.Index(sc.nodeBase, q)
			second := first + 1 + slices.Index(sc.nodeBase[first+1:], q)
			return d.errorf("snapshot %d: node.base: nodes %d and %d are both node %d of the base", sc.index, first, second, q-1)
		}
	}
	sc.nodeBaseChecked = true
	return nil
}

// inverse returns node.base's inverse (per base node, 0 or 1 + the index
// of its node here), made when a based column of node indices first needs
// it and dropped when the snapshot closes (closeSnapshot).
func (d *decoder) inverse(sc *scope) []uint32 {
	if sc.inv == nil {
		sc.inv = make([]uint32, d.f.Snapshots[sc.base].Nodes.Len())
		for i, q := range sc.nodeBase {
			if q != 0 {
				sc.inv[q-1] = uint32(i) + 1
			}
		}
	}
	return sc.inv
}

// closeSnapshot is called when a snapshot's columns are closed (the next
// snapshot record, the end record, the end of its frame): node.base is
// checked if the snapshot has one, and its inverse dropped.
func (d *decoder) closeSnapshot(sc *scope) error {
	if sc == nil || sc.base < 0 {
		return nil
	}
	sc.inv = nil
	return d.checkNodeBase(sc)
}

// unbase turns the stored values of a chunk of a based column into the
// column's values: each is its base value plus the difference stored.
func (d *decoder) unbase(sc *scope, cs *colState, vals []uint64) error {
	name := cs.c.Decl.Name
	if err := d.checkNodeBase(sc); err != nil {
		return fmt.Errorf("%w (before column %s)", err, name)
	}
	if !cs.locating {
		// The column's first chunk: node.base is complete (above), and
		// for an edge column node.edge_count must be.
		edges := cs.tab.name == ir.TableEdge
		if ec := sc.cols["node.edge_count"]; edges && (ec == nil || int64(ec.c.Len()) != sc.tables[ir.TableNode].size) {
			return d.errorf("snapshot %d: based edge column %s before node.edge_count is complete", sc.index, name)
		}
		if bc := d.snaps[sc.base].cols[name]; bc != nil {
			cs.baseCol = bc.c
		}
		cs.loc = newBaseLocator(edges, sc.nodeBase, d.f.Snapshots[sc.index].Nodes.FirstEdge, d.f.Snapshots[sc.base].Nodes.FirstEdge)
		cs.locating = true
	}
	// Where each value's base value is in the base's column, then those
	// values, then the differences added.
	at := slices.Grow(d.at[:0], len(vals))[:len(vals)]
	d.at = at
	if bad := cs.loc.locate(at, cs.c.Len()); bad >= 0 {
		last := cs.loc.first[len(cs.loc.first)-1]
		return d.errorf("snapshot %d: column %s: edge %d is past the edges node.edge_count gives (%d)", sc.index, name, bad, last)
	}
	bv := slices.Grow(d.baseVals[:0], len(vals))[:len(vals)]
	d.baseVals = bv
	baseValues(cs.baseCol, cs.c.Decl, at, bv, func() []uint32 { return d.inverse(sc) })
	for j, z := range vals {
		vals[j] = bv[j] + (z>>1 ^ -(z & 1))
	}
	return nil
}

// gatherBase sets out[j] to the base column's value at at[j], 0 where
// at[j] is none or past the column (or there is no column), reading the
// column's memory directly where it can.
func gatherBase(c *ir.Column, at, out []uint64) {
	if c == nil {
		clear(out)
		return
	}
	switch d := c.Storage().(type) {
	case []byte:
		gather(d, at, out)
	case []uint32:
		gather(d, at, out)
	case []uint64:
		gather(d, at, out)
	case *ir.Uints:
		if u, ok := d.U8(); ok {
			gather(u, at, out)
		} else if u, ok := d.U32(); ok {
			gather(u, at, out)
		} else if u, ok := d.U64(); ok {
			gather(u, at, out)
		} else {
			gatherAt(c, at, out)
		}
	default:
		gatherAt(c, at, out)
	}
}

func gather[T uint8 | uint32 | uint64](src []T, at, out []uint64) {
	for j, p := range at {
		if p < uint64(len(src)) {
			out[j] = uint64(src[p])
		} else {
			out[j] = 0
		}
	}
}

func gatherAt(c *ir.Column, at, out []uint64) {
	n := uint64(c.Len())
	for j, p := range at {
		if p < n {
			out[j] = c.At(int(p))
		} else {
			out[j] = 0
		}
	}
}
