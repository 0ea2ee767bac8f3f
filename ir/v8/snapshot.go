package v8

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/heapconv/heapconv/ir"
)

// Format is the V8 format's name.
const Format = "v8"

// SectionName is the V8 section's name in the IR.
const SectionName = "v8"

func init() {
	ir.RegisterSection(SectionName, ir.SnapshotScope, 2, func() ir.Section { return new(Snapshot) })
}

// The core's hooks the V8 section implements.
var (
	_ ir.LossReporter = (*Snapshot)(nil)
	_ ir.Provenance   = (*Snapshot)(nil)
	_ ir.StackSource  = (*Snapshot)(nil)
)

// Layout is the white-space style of a V8 .heapsnapshot file.
type Layout uint8

// V8 layouts.
const (
	// LayoutCompact is V8 ≥ 13 (Node ≥ 24): no white space except one
	// newline after each top-level section.
	LayoutCompact Layout = iota
	// LayoutRows is V8 ≤ 12 (Node ≤ 22): additionally a newline after every
	// row of a number array and before every string after the first.
	LayoutRows
	// LayoutOther is any other white space (other producers). Writers use
	// the compact layout for it.
	LayoutOther
)

var layoutNames = []string{"compact", "rows", "other"}

// String gives the layout's name.
func (l Layout) String() string {
	if int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return "layout?"
}

// Escape is how a V8 file writes non-ASCII characters in strings.
type Escape uint8

// V8 string escaping styles.
const (
	// EscapeV8 is V8's own: every non-ASCII code point as one uppercase
	// \uXXXX (astral code points lose their high bits, a V8 bug), control
	// characters as \b \f \n \r \t or uppercase \u00XX.
	EscapeV8 Escape = iota
	// EscapeRaw writes non-ASCII characters as raw UTF-8, as other
	// producers do.
	EscapeRaw
)

var escapeNames = []string{"v8", "raw"}

// String gives the escaping style's name.
func (e Escape) String() string {
	if int(e) < len(escapeNames) {
		return escapeNames[e]
	}
	return "escape?"
}

// Snapshot is the V8 section of a snapshot: what a V8 .heapsnapshot has
// beyond the common model.
//
// The common columns hold the node fields type, name, id, self_size and
// edge_count and the edge fields type, name_or_index and to_node; every
// other field (trace_node_id, detachedness, a producer's own) is an extra
// column here. The kind tables of the ir.Snapshot are the meta's
// node_types[0] and edge_types[0] lists as they are in the file.
type Snapshot struct {
	// Header is the "snapshot" object (meta, node_count, edge_count,
	// trace_function_count, extra_native_bytes, other keys) in file order.
	// node_count and edge_count are rewritten from the graph on output.
	Header ir.JSON
	// Keys are the top-level keys in file order. Value is set for keys the
	// model does not know (other producers' additions); the known sections
	// are held in the fields below.
	Keys []Key
	// Layout and Escape record the file's white-space and escaping style so
	// that writing it again reproduces the file.
	Layout Layout
	Escape Escape

	// NodeExtra and EdgeExtra are the node and edge fields outside the
	// common model, in meta order, one value per node (edge).
	NodeExtra []Field
	EdgeExtra []Field

	// TraceFunctionInfos is the flat trace_function_infos array.
	TraceFunctionInfos ir.Uints
	// TraceTree is the nested trace_tree array flattened in pre-order: the
	// number of top-level nodes, then for each node its fields except the
	// last ("children") followed by its child count and its children.
	TraceTree ir.Uints
	// Samples is the flat samples array.
	Samples ir.Uints
	// Locations is the flat locations array, with the node-index fields
	// (object_index, script_object_index) stored as node ordinals rather than
	// offsets into the nodes array.
	Locations ir.Uints
}

// Key is one top-level key of a V8 file (Keys names the keys V8 writes,
// in its order).
type Key struct {
	Name  string
	Value *ir.JSON // nil for the sections the model holds
}

// Field is an extra node or edge field: its name and one value per node
// (edge).
type Field struct {
	Name   string
	Values ir.Uints
}

// Of returns the V8 section of s, or nil.
func Of(s *ir.Snapshot) *Snapshot {
	v, _ := s.Section(SectionName).(*Snapshot)
	return v
}

// SectionName returns "v8".
func (v *Snapshot) SectionName() string { return SectionName }

// Bind declares the section: the header, keys and styles as fields, the
// extra node and edge fields as columns of the node and edge tables, and
// the four flat arrays as tables of their own.
func (v *Snapshot) Bind(b *ir.Bindings) {
	b.JSON("header", &v.Header)
	b.Value("keys", v.keysJSON, v.setKeys)
	b.Value("layout", func() ir.JSON { return ir.JSONStr(v.Layout.String()) }, func(j ir.JSON) error {
		return setName(j, layoutNames, "layout", (*uint8)(&v.Layout))
	})
	b.Value("escape", func() ir.JSON { return ir.JSONStr(v.Escape.String()) }, func(j ir.JSON) error {
		return setName(j, escapeNames, "escape style", (*uint8)(&v.Escape))
	})
	b.Value("node_extra", func() ir.JSON { return fieldNames(v.NodeExtra) }, func(j ir.JSON) error {
		return setFields(j, &v.NodeExtra)
	})
	b.Value("edge_extra", func() ir.JSON { return fieldNames(v.EdgeExtra) }, func(j ir.JSON) error {
		return setFields(j, &v.EdgeExtra)
	})
	for i := range v.NodeExtra {
		b.Column("v8.node."+v.NodeExtra[i].Name, ir.TableNode, &v.NodeExtra[i].Values)
	}
	for i := range v.EdgeExtra {
		b.Column("v8.edge."+v.EdgeExtra[i].Name, ir.TableEdge, &v.EdgeExtra[i].Values)
	}
	for _, t := range flatTables {
		b.Column(t.table, t.table, t.column(v))
		// Version 2 declares the tables' lengths, so that a reader
		// allocates the columns once: locations alone can be 150 M
		// values.
		if b.Version >= 2 {
			b.DeclareSize(t.field, t.table)
		}
	}
}

// flatTables are the section's own tables: V8's flat arrays beyond nodes
// and edges, each a column of one value per number of the array, and the
// field that declares its length (version 2 on).
var flatTables = []struct {
	table, field string
	column       func(*Snapshot) *ir.Uints
}{
	{"v8.trace_function_infos", "trace_function_infos_len", func(v *Snapshot) *ir.Uints { return &v.TraceFunctionInfos }},
	{"v8.trace_tree", "trace_tree_len", func(v *Snapshot) *ir.Uints { return &v.TraceTree }},
	{"v8.samples", "samples_len", func(v *Snapshot) *ir.Uints { return &v.Samples }},
	{"v8.locations", "locations_len", func(v *Snapshot) *ir.Uints { return &v.Locations }},
}

func (v *Snapshot) keysJSON() ir.JSON {
	a := ir.JSON{Kind: ir.JSONArray}
	for _, k := range v.Keys {
		val := ir.JSON{}
		if k.Value != nil {
			val = *k.Value
		}
		a.Elems = append(a.Elems, ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONStr(k.Name), val}})
	}
	return a
}

// setKeys reads the keys: [name, value] pairs, value null for the keys the
// model holds (a top-level key whose value is null is not one V8 writes).
func (v *Snapshot) setKeys(j ir.JSON) error {
	if j.Kind != ir.JSONArray {
		return fmt.Errorf("keys: a %v, not a list", j.Kind)
	}
	v.Keys = nil
	for _, e := range j.Elems {
		if e.Kind != ir.JSONArray || len(e.Elems) != 2 || e.Elems[0].Kind != ir.JSONString {
			return fmt.Errorf("keys: an entry is not [name, value]")
		}
		k := Key{Name: e.Elems[0].Str}
		if e.Elems[1].Kind != ir.JSONNull {
			val := e.Elems[1]
			k.Value = &val
		}
		v.Keys = append(v.Keys, k)
	}
	return nil
}

// setName sets *dst to the index of j's name in names.
func setName(j ir.JSON, names []string, what string, dst *uint8) error {
	i := slices.Index(names, j.Str)
	if j.Kind != ir.JSONString || i < 0 {
		return fmt.Errorf("unknown v8 %s %s", what, j.String())
	}
	*dst = uint8(i)
	return nil
}

func fieldNames(l []Field) ir.JSON {
	names := make([]string, len(l))
	for i, c := range l {
		names[i] = c.Name
	}
	return ir.JSONStrs(names...)
}

// setFields makes a field for each name of a list of at most 256.
func setFields(j ir.JSON, dst *[]Field) error {
	names := j.Strings()
	if names == nil || len(names) > 256 {
		return fmt.Errorf("not a list of at most 256 field names")
	}
	*dst = nil
	for _, n := range names {
		*dst = append(*dst, Field{Name: n})
	}
	return nil
}

// Validate checks the header, the trace tree's shape and the locations'
// node indexes.
func (v *Snapshot) Validate(_ *ir.File, s *ir.Snapshot) error {
	if v.Header.Kind != ir.JSONObject {
		return fmt.Errorf("v8: header is not an object")
	}
	if err := v.validateTraceTree(); err != nil {
		return err
	}
	n := s.Nodes.Len()
	if lf := v.MetaList(MetaLocationFields); len(lf) > 0 && v.Locations.Len() > 0 {
		if v.Locations.Len()%len(lf) != 0 {
			return fmt.Errorf("v8: %d location values is not a multiple of %d fields", v.Locations.Len(), len(lf))
		}
		for fi, name := range lf {
			if !slices.Contains(LocationNodeFields, name) {
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
// Snapshot.TraceTree): every node has its fields and a child count, the
// counts add up, and nothing is left over; Traces walks it trusting so.
func (v *Snapshot) validateTraceTree() error {
	tt := &v.TraceTree
	if tt.Len() == 0 {
		return nil
	}
	own := len(v.MetaList(MetaTraceNodeFields)) - 1 // the fields before children
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

// Meta returns the header's meta object (nil if absent).
func (v *Snapshot) Meta() *ir.JSON { return v.Header.Get(HeaderMeta) }

// MetaList returns meta[key] as a list of strings (nil if absent).
func (v *Snapshot) MetaList(key string) []string { return v.Meta().Get(key).Strings() }

// TraceFunctions returns how many functions trace_function_infos holds:
// its rows of meta.trace_function_info_fields.
func (v *Snapshot) TraceFunctions() int {
	if w := RowWidth(v, KeyTraceFunctionInfos); w > 0 {
		return v.TraceFunctionInfos.Len() / w
	}
	return 0
}

// TraceFunctionCountWrong reports whether the header's
// trace_function_count is not the number of functions (TraceFunctions),
// and says what the header has instead. Node 20's inspector writes it
// short when it tracks allocations: DevTools reads only as many functions
// as the header counts, and its loader fails on a trace node of a function
// beyond them. A header without the key is right only without functions.
func (v *Snapshot) TraceFunctionCountWrong() (declared string, wrong bool) {
	n := v.TraceFunctions()
	c := v.Header.Get(HeaderTraceFunctionCount)
	if c == nil {
		return "missing", n > 0
	}
	if x, ok := c.Uint(); ok {
		return strconv.FormatUint(x, 10), x != uint64(n)
	}
	return c.String(), true
}

// NodeColumn returns the values of the extra node field name (nil if the
// snapshot has none).
func (v *Snapshot) NodeColumn(name string) *ir.Uints {
	if v == nil {
		return nil
	}
	for k := range v.NodeExtra {
		if v.NodeExtra[k].Name == name {
			return &v.NodeExtra[k].Values
		}
	}
	return nil
}

// LocationNodeFields lists the location fields that hold node indexes.
var LocationNodeFields = []string{"object_index", "script_object_index"}

// The detachedness of a V8 node (NodeDetachedness): unknown (0), attached
// (a DOM node in the document, or reached from one) or detached.
const (
	Attached = 1
	Detached = 2
)
