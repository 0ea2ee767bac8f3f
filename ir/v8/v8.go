package v8

import (
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
)

// The top-level keys of a V8 file. V8 writes them in this order (Keys),
// and DevTools finds the sections by searching the text in this order, so
// the order is part of the format.
const (
	KeySnapshot           = "snapshot" // the header object
	KeyNodes              = "nodes"
	KeyEdges              = "edges"
	KeyTraceFunctionInfos = "trace_function_infos"
	KeyTraceTree          = "trace_tree"
	KeySamples            = "samples"
	KeyLocations          = "locations"
	KeyStrings            = "strings" // the string table, last
)

// Keys lists the top-level keys in the order V8 writes them.
var Keys = []string{KeySnapshot, KeyNodes, KeyEdges, KeyTraceFunctionInfos, KeyTraceTree, KeySamples, KeyLocations, KeyStrings}

// Keys of the header object (the "snapshot" key's value).
const (
	HeaderMeta               = "meta" // the field and type lists
	HeaderNodeCount          = "node_count"
	HeaderEdgeCount          = "edge_count"
	HeaderTraceFunctionCount = "trace_function_count"
	HeaderRootIndex          = "root_index" // other producers': the root's offset in the nodes array
	// HeaderTitle is the snapshot's title, which older V8 versions wrote
	// first in the header (the name the embedder gave the snapshot, then
	// a "uid"); DevTools' loader ignores it (it names a loaded profile by
	// its file). heapconv writes a snapshot's name there
	// (ir.SnapshotName).
	HeaderTitle = "title"
	// HeaderExtraNativeBytes (V8 13 on) is native memory no node holds;
	// the IR keeps it as a snapshot total of the same name.
	HeaderExtraNativeBytes = "extra_native_bytes"
)

// Keys of the meta object: the lists that lay out every array. A reader
// goes by them, never by fixed positions: they change between versions.
const (
	MetaNodeFields              = "node_fields"
	MetaNodeTypes               = "node_types" // per node field: its type names, or a type
	MetaEdgeFields              = "edge_fields"
	MetaEdgeTypes               = "edge_types" // per edge field: its type names, or a type
	MetaTraceFunctionInfoFields = "trace_function_info_fields"
	MetaTraceNodeFields         = "trace_node_fields"
	MetaSampleFields            = "sample_fields"
	MetaLocationFields          = "location_fields"
)

// Node fields (meta.node_fields). The first five are the ones DevTools
// needs (NodeFields), which the IR's common node columns hold; the others
// are extra columns (Snapshot.NodeExtra).
const (
	NodeType      = "type" // index into the node type names
	NodeName      = "name" // string index
	NodeID        = "id"
	NodeSelfSize  = "self_size"
	NodeEdgeCount = "edge_count"
	// NodeTraceNodeID is the node's allocation trace (allocation tracking).
	NodeTraceNodeID = "trace_node_id"
	// NodeDetachedness says whether an embedder (DOM) node is attached:
	// 0 unknown, 1 attached, 2 detached.
	NodeDetachedness = "detachedness"
)

// NodeFields are the node fields DevTools needs, in the order V8 writes
// them first.
var NodeFields = []string{NodeType, NodeName, NodeID, NodeSelfSize, NodeEdgeCount}

// Edge fields (meta.edge_fields).
const (
	EdgeType        = "type"          // index into the edge type names
	EdgeNameOrIndex = "name_or_index" // string index, or an element's index
	EdgeToNode      = "to_node"       // the target's offset in the nodes array
)

// EdgeFields are the edge fields DevTools needs, in the order V8 writes
// them (V8 writes no others).
var EdgeFields = []string{EdgeType, EdgeNameOrIndex, EdgeToNode}

// The types meta.node_types and meta.edge_types give the fields other than
// "type" (whose entry is the list of type names).
const (
	TypeString         = "string"
	TypeNumber         = "number"
	TypeStringOrNumber = "string_or_number" // name_or_index
	TypeNode           = "node"             // to_node
)

// The field lists V8 14 writes for allocation tracking, samples and
// locations, which a file made from another format declares too.
var (
	TraceFunctionInfoFields = []string{"function_id", "name", "script_name", "script_id", "line", "column"}
	TraceNodeFields         = []string{"id", "function_info_index", "count", "size", "children"}
	SampleFields            = []string{"timestamp_us", "last_assigned_id"}
	LocationFields          = []string{"object_index", "script_id", "line", "column"}
)

// RowFields returns the meta list that lays out the rows of the number
// array of top-level key key (nodes, edges, trace_function_infos, samples,
// locations), or "" for the others: the trace tree is nested, not rows. A
// row is one value per field; V8 ≤ 12 ends every row with a newline
// (LayoutRows).
func RowFields(key string) string {
	switch key {
	case KeyNodes:
		return MetaNodeFields
	case KeyEdges:
		return MetaEdgeFields
	case KeyTraceFunctionInfos:
		return MetaTraceFunctionInfoFields
	case KeySamples:
		return MetaSampleFields
	case KeyLocations:
		return MetaLocationFields
	}
	return ""
}

// RowWidth returns how many values make a row of the number array of
// top-level key key, as v's meta declares (RowFields); 0 when it declares
// none or key has no rows.
func RowWidth(v *Snapshot, key string) int {
	if f := RowFields(key); f != "" {
		return len(v.MetaList(f))
	}
	return 0
}

// MaxStringsUnits is Chrome's maximum string length in UTF-16 units:
// DevTools parses the whole strings section as one JS string, so a longer
// section cannot be loaded.
const MaxStringsUnits = 536_870_888

// StringsUnits returns the UTF-16 units of the strings section holding strs
// as a writer lays it out and escapes it: the brackets, and each string
// with its quotes, its escapes (StringUnits) and the separator before it
// (",\n" in the rows layout, "," otherwise). DevTools parses the section as
// one JS string, so this is what MaxStringsUnits bounds.
func StringsUnits(strs []string, layout Layout, esc Escape) int {
	units := 2
	sep := 1
	if layout == LayoutRows {
		sep = 2
	}
	for i, s := range strs {
		if i > 0 {
			units += sep
		}
		units += StringUnits(s, esc)
	}
	return units
}

// StringUnits returns the UTF-16 units of s (WTF-8) written as a JSON string
// in the given escaping style, quotes included: \" \\ and the short
// escapes take 2, other control characters and in V8's style every
// non-ASCII code point 6 (\uXXXX, a surrogate pair 12), lone surrogates 6
// in either style, raw non-ASCII its UTF-16 length, and an invalid byte 1
// (V8's '?', or the replacement character a browser decodes it to).
func StringUnits(s string, esc Escape) int {
	units := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				units += 2
			case EscapesAsU(rune(c)):
				units += 6
			case c < 0x20:
				units += 2
			default:
				units++
			}
			i++
			continue
		}
		r, size := ir.DecodeWTF8(s[i:])
		switch {
		case r < 0:
			units++
		case r >= 0xD800 && r < 0xE000:
			units += 6
		case esc == EscapeRaw && r > 0xFFFF:
			units += 2
		case esc == EscapeRaw:
			units++
		case r > 0xFFFF:
			units += 12
		default:
			units += 6
		}
		i += size
	}
	return units
}

// HexDigits are the digits of V8's \uXXXX escapes, which are uppercase.
const HexDigits = "0123456789ABCDEF"

// EscapesAsU reports whether V8's escaping style writes the code point r as
// a \uXXXX escape: a control character without a two-character escape
// (\b \f \n \r \t), or any code point beyond ASCII. Everything else is
// written as itself, but for \" and \\. The writer escapes by it, and the
// reader tells by it whether a file is in V8's style.
func EscapesAsU(r rune) bool {
	return r >= 0x80 || r < 0x20 && ir.JSONShortEscape(byte(r)) == 0
}
