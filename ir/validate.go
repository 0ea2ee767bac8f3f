package ir

import "fmt"

// Validate checks the structural invariants every reader guarantees and every
// writer relies on: column lengths agree, indices are in range, edges are
// grouped by source. Readers call it after parsing, as google/pprof's
// profile package does.
func (f *File) Validate() error {
	ns := uint32(len(f.Strings))
	if err := f.Classes.validate(ns); err != nil {
		return err
	}
	if f.MoarVM != nil {
		if err := f.MoarVM.validate(f); err != nil {
			return err
		}
	}
	if f.Fuchsia != nil {
		if err := f.Fuchsia.validate(f); err != nil {
			return err
		}
	}
	for i, s := range f.Snapshots {
		if err := s.validate(f, ns); err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
	}
	return nil
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

func checkOffsets(off []uint32, total int, what string) error {
	if off[0] != 0 {
		return fmt.Errorf("%s offsets must start at 0", what)
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return fmt.Errorf("%s offsets decrease at %d", what, i)
		}
	}
	if int(off[len(off)-1]) != total {
		return fmt.Errorf("%s offsets end at %d, but there are %d", what, off[len(off)-1], total)
	}
	return nil
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
	if err := checkOffsets(nd.FirstEdge, m, "edge"); err != nil {
		return err
	}
	for i, k := range nd.Kind[:n] {
		if int(k) >= len(s.NodeKinds) {
			return fmt.Errorf("node %d: kind %d is not in the kind table (%d entries)", i, k, len(s.NodeKinds))
		}
	}
	for i, v := range nd.Name[:n] {
		if v >= ns {
			return fmt.Errorf("node %d: name string %d out of range (%d strings)", i, v, ns)
		}
	}
	nc := uint32(f.Classes.Len())
	for i, c := range nd.Class {
		if c > nc {
			return fmt.Errorf("node %d: class %d out of range (%d classes)", i, c, nc)
		}
	}
	// One pass per column, with the kind table flattened, keeps this loop
	// cheap next to reading (it runs after every parse).
	var named [256]bool // kinds whose names are string indices
	for k, ek := range s.EdgeKinds {
		named[k] = !ek.Indexed
	}
	kinds, names, targets := s.Edges.Kind[:m], s.Edges.Name[:m], s.Edges.Target[:m]
	for e, k := range kinds {
		if int(k) >= len(s.EdgeKinds) {
			return fmt.Errorf("edge %d: kind %d is not in the kind table (%d entries)", e, k, len(s.EdgeKinds))
		}
		if named[k] && names[e] >= ns {
			return fmt.Errorf("edge %d: name string %d out of range (%d strings)", e, names[e], ns)
		}
	}
	for e, t := range targets {
		if int(t) >= n {
			return fmt.Errorf("edge %d: target node %d out of range (%d nodes)", e, t, n)
		}
	}
	if s.Root != NoNode && int(s.Root) >= n {
		return fmt.Errorf("root node %d out of range (%d nodes)", s.Root, n)
	}
	for i, r := range s.Roots {
		if int(r.Node) >= n || r.Category >= ns {
			return fmt.Errorf("root %d: node or category out of range", i)
		}
	}
	if err := s.Values.validate(n, ns); err != nil {
		return err
	}
	if s.V8 != nil {
		if err := s.V8.validate(n, m); err != nil {
			return err
		}
	}
	if s.Dart != nil {
		if err := s.Dart.validate(f, s, n, ns); err != nil {
			return err
		}
	}
	if s.MoarVM != nil {
		if err := s.MoarVM.validate(f, s, n, m); err != nil {
			return err
		}
	}
	if s.Fuchsia != nil {
		return s.Fuchsia.validate(f, s, n, ns)
	}
	return nil
}

func (d *DartSnapshot) validate(f *File, s *Snapshot, n int, ns uint32) error {
	nc, nf := f.Classes.Len(), len(f.Classes.FieldName)
	if len(s.Nodes.Class) != n {
		return fmt.Errorf("dart: every object has a class: %d classes for %d nodes", len(s.Nodes.Class), n)
	}
	if d.Padding >= DartExportChunk || (d.Padding > 0 && !d.IdentityHashes) {
		return fmt.Errorf("dart: %d bytes of padding (DevTools pads an export, which has identity hash codes, to a multiple of %d)", d.Padding, DartExportChunk)
	}
	if d.ClassFlags.Len() != nc || len(d.ClassURI) != nc || len(d.ClassReserved) != nc {
		return fmt.Errorf("dart: class columns have %d, %d and %d entries for %d classes",
			d.ClassFlags.Len(), len(d.ClassURI), len(d.ClassReserved), nc)
	}
	if d.FieldFlags.Len() != nf || d.FieldIndex.Len() != nf || len(d.FieldReserved) != nf {
		return fmt.Errorf("dart: field columns have %d, %d and %d entries for %d fields",
			d.FieldFlags.Len(), d.FieldIndex.Len(), len(d.FieldReserved), nf)
	}
	for _, col := range [][]uint32{d.ClassURI, d.ClassReserved, d.FieldReserved, d.ExternalName} {
		for i, v := range col {
			if v >= ns {
				return fmt.Errorf("dart: string %d out of range at entry %d", v, i)
			}
		}
	}
	if len(d.ZeroRefNode) != len(d.ZeroRefSlot) {
		return fmt.Errorf("dart: %d zero-reference nodes for %d slots", len(d.ZeroRefNode), len(d.ZeroRefSlot))
	}
	if refs := uint64(s.Edges.Len() + len(d.ZeroRefNode)); d.ReferenceCount < refs || d.ReferenceCount > DartMaxReferenceCount {
		return fmt.Errorf("dart: referenceCount %d for %d references (it must be at least their number and at most %d)",
			d.ReferenceCount, refs, uint64(DartMaxReferenceCount))
	}
	for i, v := range d.ZeroRefNode {
		if int(v) >= n {
			return fmt.Errorf("dart: zero reference %d: node %d out of range", i, v)
		}
		if i > 0 && (v < d.ZeroRefNode[i-1] || (v == d.ZeroRefNode[i-1] && d.ZeroRefSlot[i] <= d.ZeroRefSlot[i-1])) {
			return fmt.Errorf("dart: zero reference %d out of order", i)
		}
	}
	if len(d.ExternalNode) != d.ExternalSize.Len() || len(d.ExternalNode) != len(d.ExternalName) {
		return fmt.Errorf("dart: external property columns disagree")
	}
	for i, v := range d.ExternalNode {
		if int(v) >= n {
			return fmt.Errorf("dart: external property %d: node %d out of range", i, v)
		}
	}
	return nil
}

func (v *Values) validate(n int, ns uint32) error {
	k := len(v.Node)
	if len(v.Kind) != k || len(v.Bits) != k || len(v.Aux) != k {
		return fmt.Errorf("value columns disagree on the value count")
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

func (v *V8Snapshot) validate(n, m int) error {
	if v.Header.Kind != JSONObject {
		return fmt.Errorf("v8: header is not an object")
	}
	for _, c := range v.NodeExtra {
		if c.Values.Len() != n {
			return fmt.Errorf("v8: node field %q has %d values for %d nodes", c.Name, c.Values.Len(), n)
		}
	}
	for _, c := range v.EdgeExtra {
		if c.Values.Len() != m {
			return fmt.Errorf("v8: edge field %q has %d values for %d edges", c.Name, c.Values.Len(), m)
		}
	}
	if err := v.validateTraceTree(); err != nil {
		return err
	}
	if lf := v.MetaList("location_fields"); len(lf) > 0 && v.Locations.Len() > 0 {
		if v.Locations.Len()%len(lf) != 0 {
			return fmt.Errorf("v8: %d location values is not a multiple of %d fields", v.Locations.Len(), len(lf))
		}
		for fi, name := range lf {
			if !isLocationNodeField(name) {
				continue
			}
			for i := fi; i < v.Locations.Len(); i += len(lf) {
				if v.Locations.At(i) >= uint64(n) {
					return fmt.Errorf("v8: location %d: %s %d out of range", i/len(lf), name, v.Locations.At(i))
				}
			}
		}
	}
	return nil
}

// validateTraceTree checks the shape of the flattened trace tree (see
// V8Snapshot.TraceTree): every node has its fields and a child count, the
// counts add up, and nothing is left over; V8Traces walks it trusting so.
func (v *V8Snapshot) validateTraceTree() error {
	tt := &v.TraceTree
	if tt.Len() == 0 {
		return nil
	}
	own := len(v.MetaList("trace_node_fields")) - 1 // the fields before children
	if own < 0 && (tt.At(0) != 0 || tt.Len() > 1) {
		return fmt.Errorf("v8: a trace tree without meta.trace_node_fields")
	}
	own = max(own, 0)
	// pending[k] is how many children are still to come at depth k.
	pending := []uint64{tt.At(0)}
	pos := 1
	for len(pending) > 0 {
		top := len(pending) - 1
		if pending[top] == 0 {
			pending = pending[:top]
			continue
		}
		pending[top]--
		if tt.Len()-pos < own+1 {
			return fmt.Errorf("v8: trace tree: node at %d cut short (%d values)", pos, tt.Len())
		}
		pending = append(pending, tt.At(pos+own))
		pos += own + 1
	}
	if pos != tt.Len() {
		return fmt.Errorf("v8: trace tree: %d values after the tree's last node", tt.Len()-pos)
	}
	return nil
}

func isLocationNodeField(name string) bool {
	for _, f := range LocationNodeFields {
		if f == name {
			return true
		}
	}
	return false
}

// IsLocationNodeField reports whether a V8 location field holds a node index.
func IsLocationNodeField(name string) bool { return isLocationNodeField(name) }
