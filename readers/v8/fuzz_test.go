package v8_test

import (
	"bytes"
	"strings"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	wv8 "github.com/heapconv/heapconv/writers/v8"
)

// Hand-made V8 snapshots for the fuzz corpus, one per variant the reader
// handles. Each must read without error (TestFuzzSeedsRead).
const (
	metaNode26 = `{"node_fields":["type","name","id","self_size","edge_count","detachedness"],` +
		`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic",` +
		`"concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],` +
		`"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],` +
		`"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
		`"trace_node_fields":["id","function_info_index","count","size","children"],` +
		`"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]}`

	metaNode20 = `{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
		`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic",` +
		`"concatenated string","sliced string","symbol","bigint","object shape","wasm object"],"string","number","number","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],` +
		`"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],` +
		`"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
		`"trace_node_fields":["id","function_info_index","count","size","children"],` +
		`"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]}`
)

var fuzzSeeds = map[string]string{
	// Node 26: compact, V8 escapes (\u00E9, a broken astral character as
	// V8 writes it, a lone surrogate, control characters).
	"node26-compact": `{"snapshot":{"meta":` + metaNode26 + `,"node_count":3,"edge_count":3,"trace_function_count":0,"extra_native_bytes":7},
"nodes":[9,1,1,0,2,0,3,2,3,16,1,0,2,3,5,24,0,2],
"edges":[1,1,6,2,4,12,3,4,12],
"trace_function_infos":[],
"trace_tree":[],
"samples":[],
"locations":[],
"strings":["<dummy>","","Foo","n\u00E9\uF600\uD800 \"q\" \\ \b\f\n\r\t\u0001\u001F\u007F","x"]}`,

	// Node 20: rows layout, 7 node fields, wasm object type.
	"node20-rows": `{"snapshot":{"meta":` + metaNode20 + `,"node_count":3,"edge_count":2,"trace_function_count":0},
"nodes":[9,1,1,0,1,0,0
,15,2,3,100,1,0,1
,3,3,5,40,0,0,0
],
"edges":[1,1,7
,2,3,14
],
"trace_function_infos":[],
"trace_tree":[],
"samples":[],
"locations":[14,1,2,3
],
"strings":["<dummy>",
"",
"(GC roots)",
"Object"]}`,

	// Allocation tracking: trace_function_infos, a nested trace_tree,
	// samples and locations.
	"tracking": `{"snapshot":{"meta":` + metaNode20 + `,"node_count":2,"edge_count":1,"trace_function_count":2,"extra_native_bytes":0},
"nodes":[9,1,1,0,1,0,0,3,2,3,32,0,2,1],
"edges":[2,2,7],
"trace_function_infos":[1,2,3,4,10,5,2,1,3,4,20,1],
"trace_tree":[1,0,3,96,[2,1,1,32,[],3,0,2,64,[4,1,1,8,[]]]],
"samples":[100,3,250,5],
"locations":[7,4,10,2],
"strings":["<dummy>","","f","script.js"]}`,

	// Other producers: BOM, white space, raw UTF-8, surrogate pairs,
	// lowercase hex and \/ escapes, custom kinds, extra header and
	// top-level keys, no trace arrays.
	"other-producer": "\xef\xbb\xbf" + ` { "snapshot": {"title":"raw ✓","meta":{"node_fields":["type","name","id","self_size","edge_count"],
  "node_types":[["synthetic","object","custom kind"],"string","number","number","number"],
  "edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property","weak"],"string_or_number","node"]},
  "node_count":3,"edge_count":2,"x":[1.5,-2,true,null,{"k":"v"}]},
 "nodes" : [ 0, 1, 1, 0, 1,
   1, 2, 2, 8, 0,
   2, 3, 4, 0, 1 ],
 "edges": [1, 3, 10, 0, 1, 5],
 "extra": {"a": [1, 2]},
 "strings": ["", "", "日本 😀 \ud83d\ude00 \/ \u00e9", "w"] }
`,

	// Edge fields in another order, an extra edge field.
	"field-order": `{"snapshot":{"meta":{"node_fields":["type","edge_count","self_size","id","name"],` +
		`"node_types":[["hidden","synthetic","object"],"number","number","number","string"],` +
		`"edge_fields":["type","to_node","flags","name_or_index"],` +
		`"edge_types":[["element","property"],"node","number","string_or_number"]},"node_count":2,"edge_count":2},
"nodes":[1,2,0,1,1,2,0,16,3,2],
"edges":[0,5,9,1,1,5,0,3],
"strings":["<dummy>","","Bar","baz"]}`,
}

// rootLast puts the root last and names it with root_index, which DevTools
// reads as an index into "nodes" (ordinal × node field count). It is in the
// corpus but not in fuzzSeeds: the reader takes root_index for an ordinal
// and rejects it (reported; see the conformance report).
const rootLast = `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],` +
	`"node_types":[["hidden","object","synthetic"],"string","number","number","number"],` +
	`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property","weak"],"string_or_number","node"]},` +
	`"node_count":3,"edge_count":2,"root_index":10},
"nodes":[1,2,3,8,0,1,3,5,16,1,2,1,1,0,1],
"edges":[1,3,0,0,1,5],
"strings":["<dummy>","","A","B"]}`

// TestFuzzSeedsRead: the hand-made seeds are valid, so the fuzzer starts
// from inputs that reach every part of the reader.
func TestFuzzSeedsRead(t *testing.T) {
	for name, s := range fuzzSeeds {
		t.Run(name, func(t *testing.T) {
			f, err := rv8.Read(strings.NewReader(s), rv8.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, []byte(s), f)
		})
	}
}

// seedCorpus returns the seeds, truncations and small mutations of them,
// and random V8-section graphs written by writers/v8.
func seedCorpus(t testing.TB) [][]byte {
	out := [][]byte{[]byte(rootLast)}
	for _, s := range fuzzSeeds {
		b := []byte(s)
		out = append(out, b)
		for _, cut := range []int{1, len(b) / 3, len(b) / 2, len(b) - 40, len(b) - 2, len(b) - 1} {
			if cut > 0 && cut < len(b) {
				out = append(out, b[:cut])
			}
		}
		for i, c := range []byte{'9', ']', ',', '"', '\\', 0xff, '-', '.'} {
			m := bytes.Clone(b)
			m[(i*7919+len(b)/2)%len(m)] = c
			out = append(out, m)
		}
	}
	for seed := int64(0); seed < 4; seed++ {
		o := irtest.V8Shaped(1, 6)
		o.MaxStringUnits = 8
		o.V8 = &irtest.V8Options{Layout: v8ir.Layout(seed % 2), Escape: v8ir.Escape(seed / 2 % 2), TraceNodeID: seed%2 == 0,
			Detachedness: true, Trace: seed == 1, Locations: true, ExtraNativeBytes: seed > 1, ExtraKeys: seed == 3, EdgeExtra: seed == 3}
		var b bytes.Buffer
		if _, err := wv8.Write(&b, irtest.Random(seed, o), wv8.Options{}); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// checkRoundTrip is the fuzz property for an input the reader accepted: the
// file validates, writes, and reads back to the same file. Only the style
// of a file in "other" white space changes (the writer writes it compact),
// and with it the variant description, and a miscounted
// trace_function_count is corrected; writing again gives the same bytes.
func checkRoundTrip(t *testing.T, input []byte, f *ir.File) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("Read returned an invalid file: %v", err)
	}
	var b bytes.Buffer
	if _, err := wv8.Write(&b, f, wv8.Options{}); err != nil {
		t.Fatalf("Write: %v", err)
	}
	g, err := rv8.Read(bytes.NewReader(b.Bytes()), rv8.Options{})
	if err != nil {
		t.Fatalf("reading what Write wrote: %v\ninput:  %q\nwritten: %q", err, clip(input), clip(b.Bytes()))
	}
	want := *f
	want.FormatVersion = g.FormatVersion
	ws := *f.Snapshots[0]
	wv := *v8ir.Of(&ws)
	if wv.Layout == v8ir.LayoutOther {
		wv.Layout = v8ir.LayoutCompact
	}
	if _, wrong := wv.TraceFunctionCountWrong(); wrong {
		// The writer corrects a trace_function_count that does not count
		// the functions, or is missing while there are some (and says so,
		// as the v8-header loss), so that DevTools loads the file.
		h := wv.Header
		h.Fields = append([]ir.JSONField(nil), h.Fields...)
		h.Set(v8ir.HeaderTraceFunctionCount, ir.JSONNum(int64(wv.TraceFunctions())))
		wv.Header = h
	}
	ws.SetSection(&wv)
	want.Snapshots = []*ir.Snapshot{&ws}
	if d := ir.Diff(&want, g, 10); len(d) > 0 {
		t.Fatalf("written and read back, the file differs:\n%s\ninput:   %q\nwritten: %q", strings.Join(d, "\n"), clip(input), clip(b.Bytes()))
	}
	var again bytes.Buffer
	if _, err := wv8.Write(&again, g, wv8.Options{}); err != nil {
		t.Fatalf("second Write: %v", err)
	}
	if !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Fatalf("writing is not a fixed point:\nfirst:  %q\nsecond: %q", clip(b.Bytes()), clip(again.Bytes()))
	}
}

func clip(b []byte) []byte {
	if len(b) > 2000 {
		return b[:2000]
	}
	return b
}

// FuzzRead: Read never panics or hangs, and whatever it accepts validates,
// writes with writers/v8 and reads back the same (see checkRoundTrip).
func FuzzRead(f *testing.F) {
	for _, b := range seedCorpus(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := rv8.Read(bytes.NewReader(data), rv8.Options{Size: int64(len(data))})
		if err != nil {
			return
		}
		checkRoundTrip(t, data, file)
	})
}
