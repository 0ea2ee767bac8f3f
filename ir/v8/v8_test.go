package v8_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestNamesMatchAFile checks the names against a file in V8 14's shape:
// its top-level keys in order, its header keys, and its meta lists.
func TestNamesMatchAFile(t *testing.T) {
	data, err := os.ReadFile("../../testdata/v8/small/compact.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	// The top-level keys in file order.
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(keys, v8ir.Keys) {
		t.Errorf("keys %v, want %v", keys, v8ir.Keys)
	}

	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(file[v8ir.KeySnapshot], &header); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{v8ir.HeaderMeta, v8ir.HeaderNodeCount, v8ir.HeaderEdgeCount, v8ir.HeaderTraceFunctionCount, v8ir.HeaderExtraNativeBytes} {
		if header[k] == nil {
			t.Errorf("no header key %q", k)
		}
	}
	var meta map[string]any
	if err := json.Unmarshal(header[v8ir.HeaderMeta], &meta); err != nil {
		t.Fatal(err)
	}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	nodeFields := strs(meta[v8ir.MetaNodeFields])
	want := append(slices.Clone(v8ir.NodeFields), v8ir.NodeTraceNodeID, v8ir.NodeDetachedness)
	if !slices.Equal(nodeFields, want) {
		t.Errorf("node fields %v, want %v", nodeFields, want)
	}
	for _, c := range []struct {
		key  string
		want []string
	}{
		{v8ir.MetaEdgeFields, v8ir.EdgeFields},
		{v8ir.MetaTraceFunctionInfoFields, v8ir.TraceFunctionInfoFields},
		{v8ir.MetaTraceNodeFields, v8ir.TraceNodeFields},
		{v8ir.MetaSampleFields, v8ir.SampleFields},
		{v8ir.MetaLocationFields, v8ir.LocationFields},
	} {
		if got := strs(meta[c.key]); !slices.Equal(got, c.want) {
			t.Errorf("%s %v, want %v", c.key, got, c.want)
		}
	}
	nt := meta[v8ir.MetaNodeTypes].([]any)
	if nt[1] != v8ir.TypeString || nt[2] != v8ir.TypeNumber {
		t.Errorf("node types %v", nt[1:])
	}
	et := meta[v8ir.MetaEdgeTypes].([]any)
	if et[1] != v8ir.TypeStringOrNumber || et[2] != v8ir.TypeNode {
		t.Errorf("edge types %v", et[1:])
	}
}

func TestRowWidth(t *testing.T) {
	v := &v8ir.Snapshot{Header: ir.JSON{Kind: ir.JSONObject}}
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set(v8ir.MetaNodeFields, ir.JSONStrs(v8ir.NodeFields...))
	meta.Set(v8ir.MetaEdgeFields, ir.JSONStrs(v8ir.EdgeFields...))
	meta.Set(v8ir.MetaTraceFunctionInfoFields, ir.JSONStrs(v8ir.TraceFunctionInfoFields...))
	meta.Set(v8ir.MetaSampleFields, ir.JSONStrs(v8ir.SampleFields...))
	meta.Set(v8ir.MetaLocationFields, ir.JSONStrs(v8ir.LocationFields...))
	v.Header.Set(v8ir.HeaderMeta, meta)
	for key, want := range map[string]int{
		v8ir.KeyNodes: 5, v8ir.KeyEdges: 3, v8ir.KeyTraceFunctionInfos: 6, v8ir.KeySamples: 2, v8ir.KeyLocations: 4,
		v8ir.KeyTraceTree: 0, v8ir.KeyStrings: 0, v8ir.KeySnapshot: 0, "other": 0,
	} {
		if got := v8ir.RowWidth(v, key); got != want {
			t.Errorf("RowWidth(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestStringsUnits(t *testing.T) {
	strs := []string{"<dummy>", "é", "😀", "a\"b\n\x01"}
	// Per string: quotes, then the text. "é" is \u00E9 in V8's style,
	// "😀" a surrogate pair of escapes; "a\"b\n\x01" is a \" b \n \u0001.
	text := map[v8ir.Escape]int{v8ir.EscapeV8: 7 + 6 + 12 + 12, v8ir.EscapeRaw: 7 + 1 + 2 + 12}
	for _, tc := range []struct {
		layout v8ir.Layout
		sep    int
	}{{v8ir.LayoutCompact, 1}, {v8ir.LayoutRows, 2}, {v8ir.LayoutOther, 1}} {
		for esc, n := range text {
			want := 2 + 4*2 + n + 3*tc.sep
			if got := v8ir.StringsUnits(strs, tc.layout, esc); got != want {
				t.Errorf("StringsUnits(%v, %v) = %d, want %d", tc.layout, esc, got, want)
			}
		}
	}
	if got := v8ir.StringsUnits(nil, v8ir.LayoutRows, v8ir.EscapeV8); got != 2 {
		t.Errorf("StringsUnits(nil) = %d", got)
	}
}

// TestSnapshotName: a V8 snapshot's name is its header's title, written
// first; without one it has none, though its Name indexes "<dummy>". A
// snapshot of another format is named by Name.
func TestSnapshotName(t *testing.T) {
	f := &ir.File{Strings: []string{"<dummy>", "isolate"}}
	for _, c := range []struct {
		title string
		v8    bool
		name  uint32
		want  string
	}{
		{"audio_core", true, 0, "audio_core"},
		{"", true, 0, ""},
		{"", true, 1, ""}, // the section says: it has no title
		{"", false, 1, "isolate"},
	} {
		s := &ir.Snapshot{Name: c.name}
		if c.v8 {
			s.SetSection(v8ir.DefaultSection(s, c.title))
			first := v8ir.Of(s).Header.Fields[0].Key
			if (c.title != "") != (first == v8ir.HeaderTitle) {
				t.Errorf("title %q: the header begins with %q", c.title, first)
			}
		}
		if got := ir.SnapshotName(f, s); got != c.want {
			t.Errorf("title %q, v8 %v, name %d: SnapshotName = %q, want %q", c.title, c.v8, c.name, got, c.want)
		}
	}
}
