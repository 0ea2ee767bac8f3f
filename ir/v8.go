package ir

// V8Layout is the white-space style of a V8 .heapsnapshot file.
type V8Layout uint8

// V8 layouts.
const (
	// V8LayoutCompact is V8 ≥ 13 (Node ≥ 24): no white space except one
	// newline after each top-level section.
	V8LayoutCompact V8Layout = iota
	// V8LayoutRows is V8 ≤ 12 (Node ≤ 22): additionally a newline after every
	// row of a number array and before every string after the first.
	V8LayoutRows
	// V8LayoutOther is any other white space (other producers). Writers use
	// the compact layout for it.
	V8LayoutOther
)

var v8LayoutNames = [...]string{"compact", "rows", "other"}

func (l V8Layout) String() string {
	if int(l) < len(v8LayoutNames) {
		return v8LayoutNames[l]
	}
	return "layout?"
}

// V8Escape is how a V8 file writes non-ASCII characters in strings.
type V8Escape uint8

// V8 string escaping styles.
const (
	// V8EscapeV8 is V8's own: every non-ASCII code point as one uppercase
	// \uXXXX (astral code points lose their high bits, a V8 bug), control
	// characters as \b \f \n \r \t or uppercase \u00XX.
	V8EscapeV8 V8Escape = iota
	// V8EscapeRaw writes non-ASCII characters as raw UTF-8, as other
	// producers do.
	V8EscapeRaw
)

var v8EscapeNames = [...]string{"v8", "raw"}

func (e V8Escape) String() string {
	if int(e) < len(v8EscapeNames) {
		return v8EscapeNames[e]
	}
	return "escape?"
}

// V8Snapshot holds what a V8 .heapsnapshot has beyond the common model.
//
// The common columns hold the node fields type, name, id, self_size and
// edge_count and the edge fields type, name_or_index and to_node; every
// other field (trace_node_id, detachedness, a producer's own) is an extra
// column here. The kind tables of the Snapshot are the meta's node_types[0]
// and edge_types[0] lists as they are in the file.
type V8Snapshot struct {
	// Header is the "snapshot" object (meta, node_count, edge_count,
	// trace_function_count, extra_native_bytes, other keys) in file order.
	// node_count and edge_count are rewritten from the graph on output.
	Header JSON
	// Keys are the top-level keys in file order. Value is set for keys the
	// model does not know (other producers' additions); the known sections
	// are held in the fields below.
	Keys []V8Key
	// Layout and Escape record the file's white-space and escaping style so
	// that writing it again reproduces the file.
	Layout V8Layout
	Escape V8Escape

	// NodeExtra and EdgeExtra are the node and edge fields outside the
	// common model, in meta order, one value per node (edge).
	NodeExtra []Column
	EdgeExtra []Column

	// TraceFunctionInfos is the flat trace_function_infos array.
	TraceFunctionInfos Uints
	// TraceTree is the nested trace_tree array flattened in pre-order: the
	// number of top-level nodes, then for each node its fields except the
	// last ("children") followed by its child count and its children.
	TraceTree Uints
	// Samples is the flat samples array.
	Samples Uints
	// Locations is the flat locations array, with the node-index fields
	// (object_index, script_object_index) stored as node ordinals rather than
	// offsets into the nodes array.
	Locations Uints
}

// V8Key is one top-level key of a V8 file (package ir/v8 names the keys
// V8 writes, in its order).
type V8Key struct {
	Name  string
	Value *JSON // nil for the sections the model holds
}

// Column is a named extra column.
type Column struct {
	Name   string
	Values Uints
}

// Meta returns the header's meta object (nil if absent).
func (v *V8Snapshot) Meta() *JSON { return v.Header.Get("meta") }

// MetaList returns meta[key] as a list of strings (nil if absent).
func (v *V8Snapshot) MetaList(key string) []string { return v.Meta().Get(key).Strings() }

// NodeColumn returns the values of the extra node field name (nil if the
// snapshot has none).
func (v *V8Snapshot) NodeColumn(name string) *Uints {
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
