package v8

import (
	"math"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// DefaultSection builds the V8 section of a snapshot V8 14 would write (Node
// 26: the header with six node fields, the keys in order, compact layout,
// V8's escaping, no node detached), for a heap made into a V8 one; a title
// other than "" goes first in the header, as V8 wrote one (HeaderTitle).
func DefaultSection(s *ir.Snapshot, title string) *Snapshot {
	meta := ir.JSON{Kind: ir.JSONObject}
	edgeNames := make([]string, len(s.EdgeKinds))
	for i, k := range s.EdgeKinds {
		edgeNames[i] = k.Name
	}
	etypes := ir.JSON{Kind: ir.JSONArray}
	// The edge fields are V8's three, in its order (EdgeFields).
	etypes.Elems = append(etypes.Elems, ir.JSONStrs(edgeNames...), ir.JSONStr(TypeStringOrNumber), ir.JSONStr(TypeNode))
	meta.Set(MetaNodeFields, ir.JSON{}) // set below, in this place
	meta.Set(MetaNodeTypes, ir.JSON{})
	meta.Set(MetaEdgeFields, ir.JSONStrs(EdgeFields...))
	meta.Set(MetaEdgeTypes, etypes)
	meta.Set(MetaTraceFunctionInfoFields, ir.JSONStrs(TraceFunctionInfoFields...))
	meta.Set(MetaTraceNodeFields, ir.JSONStrs(TraceNodeFields...))
	meta.Set(MetaSampleFields, ir.JSONStrs(SampleFields...))
	meta.Set(MetaLocationFields, ir.JSONStrs(LocationFields...))
	h := ir.JSON{Kind: ir.JSONObject}
	if title != "" {
		h.Set(HeaderTitle, ir.JSONStr(title))
	}
	h.Set(HeaderMeta, meta)
	SetNodeFields(&h, s.NodeKinds, NodeDetachedness)
	h.Set(HeaderNodeCount, ir.JSONNum(int64(s.Nodes.Len())))
	h.Set(HeaderEdgeCount, ir.JSONNum(int64(s.Edges.Len())))
	h.Set(HeaderTraceFunctionCount, ir.JSONNum(0))
	for _, t := range s.Totals {
		if t.Name == HeaderExtraNativeBytes {
			h.Set(HeaderExtraNativeBytes, ir.JSONNum(int64(min(t.Value, math.MaxInt64))))
		}
	}
	v := &Snapshot{Header: h, Layout: LayoutCompact, Escape: EscapeV8}
	for _, k := range Keys {
		v.Keys = append(v.Keys, Key{Name: k})
	}
	var det ir.Uints
	det.AppendZeros(s.Nodes.Len())
	v.NodeExtra = []Field{{Name: NodeDetachedness, Values: det}}
	return v
}

// SetNodeFields sets a header's node_fields to V8's five common fields and
// extra, and node_types to match: the node kinds, the name a string, the
// rest numbers.
func SetNodeFields(h *ir.JSON, kinds []string, extra ...string) {
	fields := append(slices.Clone(NodeFields), extra...)
	types := ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONStrs(kinds...), ir.JSONStr(TypeString)}}
	for range fields[2:] {
		types.Elems = append(types.Elems, ir.JSONStr(TypeNumber))
	}
	meta := h.Get(HeaderMeta)
	meta.Set(MetaNodeFields, ir.JSONStrs(fields...))
	meta.Set(MetaNodeTypes, types)
}

// SnapshotName returns the header's title (HeaderTitle), "" for none: the
// snapshot's name, which the string table does not hold.
func (v *Snapshot) SnapshotName() string {
	if t := v.Header.Get(HeaderTitle); t != nil && t.Kind == ir.JSONString {
		return t.Str
	}
	return ""
}
