package v8_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// vdOffsets returns the offsets of errs (which must all be *ir.FormatError).
func vdOffsets(t *testing.T, errs []error) []int64 {
	t.Helper()
	var offs []int64
	for _, err := range errs {
		var fe *ir.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("violation %T (%v) is not a *ir.FormatError", err, err)
			continue
		}
		offs = append(offs, fe.Offset)
	}
	return offs
}

// vdMarks removes every ‸ from in and returns the byte offsets they marked
// (in the marker-free text).
func vdMarks(in string) (string, []int64) {
	var offs []int64
	for {
		i := strings.Index(in, "‸")
		if i < 0 {
			return in, offs
		}
		offs = append(offs, int64(i))
		in = in[:i] + in[i+len("‸"):]
	}
}

func TestValidateValidFiles(t *testing.T) {
	for _, p := range []rdParts{rdBase(), rdRows()} {
		if errs := rv8.Validate(strings.NewReader(p.String()), rv8.Options{}); len(errs) != 0 {
			t.Errorf("Validate of a valid file: %v", errs)
		}
	}
}

// TestValidateSeveralViolations: one file with several problems gets one
// violation per problem, each at the offset of the offending value.
func TestValidateSeveralViolations(t *testing.T) {
	tests := []struct {
		name  string
		parts func(p *rdParts)
		want  []string // one substring per violation, in file order
	}{
		{
			name: "graph problems",
			parts: func(p *rdParts) {
				// node 1: type 7; node 2: id 2^32 (DevTools wraps it);
				// edge 0: to_node 6; edge 1: type 9; edge 2: to_node 99.
				p.nodes = `[2,1,1,0,2,‸7,2,3,10,1,1,3,‸4294967296,20,0]`
				p.edges = `[0,1,‸6,‸9,4,10,1,4,‸99]`
			},
			want: []string{"type 7", "does not fit in 32 bits", "to_node 6", "type 9", "to_node 99"},
		},
		{
			// Node 20's inspector with allocation tracking; the file
			// reads all the same.
			name: "trace_function_count short of the functions",
			parts: func(p *rdParts) {
				p.meta = rdMeta(vdTraceFields)
				p.counts = `"node_count":3,"edge_count":3,"trace_function_count":‸1`
				p.more = []string{`"trace_function_infos":[0,2,0,0,0,0,1,3,0,0,0,0]`, `"trace_tree":[]`}
			},
			want: []string{"trace_function_count is 1, but trace_function_infos holds 2 functions"},
		},
		{
			name: "trace_function_count beyond the functions",
			parts: func(p *rdParts) {
				p.meta = rdMeta(vdTraceFields)
				p.counts = `"node_count":3,"edge_count":3,"trace_function_count":‸3`
				p.more = []string{`"trace_function_infos":[0,2,0,0,0,0]`, `"trace_tree":[]`}
			},
			want: []string{"trace_function_count is 3, but trace_function_infos holds 1 function:"},
		},
		{
			name: "functions without trace_function_count",
			parts: func(p *rdParts) {
				p.meta = rdMeta(vdTraceFields)
				p.counts = `"node_count":3,"edge_count":3`
				p.more = []string{`"trace_function_infos":[0,2,0,0,0,0]`, `"trace_tree":[]`}
			},
			want: []string{"trace_function_count is missing"},
		},
		{
			name: "string index beyond the table",
			parts: func(p *rdParts) {
				p.nodes = `[2,1,1,0,2,‸7,2,3,10,1,1,‸8,5,20,0]`
			},
			want: []string{"type 7", "string index 8 out of range"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			tc.parts(&p)
			in, marks := vdMarks(p.String())
			if len(marks) == 0 {
				marks = []int64{int64(len(`{"snapshot":`))} // the header
			}
			errs := rv8.Validate(strings.NewReader(in), rv8.Options{})
			if len(errs) < len(tc.want) {
				t.Fatalf("%d violations, want at least %d: %v", len(errs), len(tc.want), errs)
			}
			offs := vdOffsets(t, errs)
			for i, w := range tc.want {
				j := slices.Index(offs, marks[i])
				if j < 0 {
					t.Errorf("no violation at offset %d (%s): %v", marks[i], w, errs)
					continue
				}
				if !strings.Contains(errs[j].Error(), w) {
					t.Errorf("violation at %d is %q, want it to mention %q", marks[i], errs[j], w)
				}
			}
		})
	}
}

// vdTraceFields are the meta lists of allocation traces.
const vdTraceFields = `"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
	`"trace_node_fields":["id","function_info_index","count","size","children"]`

// TestReadMiscountedFunctions: a file whose header miscounts its functions
// reads, with every function.
func TestReadMiscountedFunctions(t *testing.T) {
	p := rdBase()
	p.meta = rdMeta(vdTraceFields)
	p.counts = `"node_count":3,"edge_count":3,"trace_function_count":1`
	p.more = []string{`"trace_function_infos":[0,2,0,0,0,0,1,3,0,0,0,0]`, `"trace_tree":[]`}
	f := rdRead(t, p.String())
	if got := v8ir.Of(f.Snapshots[0]).TraceFunctions(); got != 2 {
		t.Errorf("%d functions read, want 2", got)
	}
}

func TestValidateFileLevelProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"key order", func() string {
			p := rdBase()
			p.meta = rdMeta(`"location_fields":["object_index","script_id","line","column"]`, `"sample_fields":["timestamp_us","last_assigned_id"]`)
			p.more = []string{`"locations":[]`, `"samples":[]`}
			return p.String()
		}(), []string{`key "samples" comes after "locations"`}},
		{"declared arrays missing", func() string {
			p := rdBase()
			p.meta = rdMeta(`"location_fields":["object_index","script_id","line","column"]`, `"sample_fields":["timestamp_us","last_assigned_id"]`)
			return p.String()
		}(), []string{`no "samples" array`, `no "locations" array`}},
		{"root in the middle", func() string {
			p := rdBase()
			p.counts += `,"root_index":1`
			return p.String()
		}(), []string{"root_index 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := rv8.Validate(strings.NewReader(tc.in), rv8.Options{})
			all := fmt.Sprint(errs)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("violations %s do not mention %q", all, w)
				}
			}
			if len(errs) != len(tc.want) {
				t.Errorf("%d violations, want %d: %s", len(errs), len(tc.want), all)
			}
		})
	}
}

// TestStringIndexOffsets: Validate names the exact offset of a string index
// beyond the table; Read may name the start of the batch of numbers holding
// it (and says so), but never a place after it or outside its array.
func TestStringIndexOffsets(t *testing.T) {
	tests := []struct {
		name  string
		parts func(p *rdParts)
		array string
	}{
		{"node name", func(p *rdParts) { p.nodes = `[2,1,1,0,2,1,2,3,10,1,1,‸9,5,20,0]` }, `"nodes":`},
		{"edge name", func(p *rdParts) { p.edges = `[0,1,5,1,4,10,1,‸5,10]` }, `"edges":`},
		{"largest of several", func(p *rdParts) { p.nodes = `[2,1,1,0,2,1,6,3,10,1,1,‸9,5,20,0]` }, `"nodes":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			tc.parts(&p)
			in, marks := vdMarks(p.String())
			want := marks[0]
			errs := rv8.Validate(strings.NewReader(in), rv8.Options{})
			offs := vdOffsets(t, errs)
			if !slices.Contains(offs, want) {
				t.Errorf("Validate: no violation at %d: %v", want, errs)
			}
			for _, mode := range rdModes {
				_, err := rv8.Read(mode.reader(in), mode.opts)
				var fe *ir.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), "string index") {
					t.Errorf("%s: Read = %v, want a string index error", mode.name, err)
					continue
				}
				lo := int64(strings.Index(in, tc.array) + len(tc.array))
				if fe.Offset < lo || fe.Offset > want {
					t.Errorf("%s: Read offset %d outside [%d, %d]: %v", mode.name, fe.Offset, lo, want, err)
				}
				if fe.Offset != want && !strings.Contains(err.Error(), "batch") {
					t.Errorf("%s: inexact offset %d (exact %d) without saying so: %v", mode.name, fe.Offset, want, err)
				}
			}
		})
	}
}

// vdSub replaces one value of the generated file: field f of row r of the
// nodes (edges false) or edges array.
type vdSub struct {
	edges bool
	r, f  int
	text  string
}

// vdBig builds a valid file of n nodes (the root has an element edge to
// every other node), large enough for the reader's parallel mode, with one
// value replaced.
func vdBig(n int, sub vdSub) string {
	b := make([]byte, 0, 40*n)
	b = append(b, `{"snapshot":{"meta":`+rdMeta()+fmt.Sprintf(`,"node_count":%d,"edge_count":%d,"trace_function_count":0},`, n, n-1)+"\n"...)
	row := func(edges bool, r int, vals ...uint64) {
		if r > 0 {
			b = append(b, ',')
		}
		for f, v := range vals {
			if f > 0 {
				b = append(b, ',')
			}
			if sub.edges == edges && sub.r == r && sub.f == f {
				b = append(b, sub.text...)
			} else {
				b = strconv.AppendUint(b, v, 10)
			}
		}
	}
	b = append(b, `"nodes":[`...)
	row(false, 0, 2, 1, 1, 0, uint64(n-1))
	for i := 1; i < n; i++ {
		row(false, i, 1, 2, uint64(2*i+1), uint64(100+i%1000), 0)
	}
	b = append(b, "],\n"+`"edges":[`...)
	for i := 1; i < n; i++ {
		row(true, i-1, 0, uint64(i), uint64(5*i))
	}
	b = append(b, "],\n"+`"strings":["<dummy>","","A"]}`...)
	return string(b)
}

// TestReadErrorOffsetsLargeFile checks offsets deep inside arrays larger
// than the reader's buffers and regions, in every reading mode.
func TestReadErrorOffsetsLargeFile(t *testing.T) {
	// About 5 MB: more than the reader's 4 MiB buffer and several parallel
	// regions (the Size hint switches parallel parsing on).
	const n = 160000
	tests := []struct {
		name string
		sub  vdSub
		want string
	}{
		{"to_node not a multiple", vdSub{true, 150001, 2, "‸750006"}, "to_node 750006"},
		{"node type out of range", vdSub{false, 120000, 0, "‸9"}, "type 9"},
		{"negative number", vdSub{false, 133333, 3, "‸-5"}, "negative"},
		{"float number", vdSub{true, 159997, 1, "‸1.5"}, "not an unsigned integer"},
		{"2^64", vdSub{false, 100000, 2, "‸18446744073709551616"}, "64 bits"},
		{"string index", vdSub{false, 155000, 1, "‸3"}, "string index 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, marks := vdMarks(vdBig(n, tc.sub))
			want := marks[0]
			modes := []struct {
				name string
				opts rv8.Options
			}{{"serial", rv8.Options{}}, {"parallel", rv8.Options{Size: max(int64(len(in)), 8<<20)}}}
			for _, m := range modes {
				_, err := rv8.Read(strings.NewReader(in), m.opts)
				var fe *ir.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: Read = %v, want an error about %q", m.name, err, tc.want)
					continue
				}
				exactOnlyInValidate := strings.Contains(err.Error(), "batch")
				if fe.Offset != want && !exactOnlyInValidate {
					t.Errorf("%s: offset %d, want %d: %v", m.name, fe.Offset, want, err)
				}
			}
			errs := rv8.Validate(strings.NewReader(in), rv8.Options{Size: int64(len(in))})
			if !slices.Contains(vdOffsets(t, errs), want) {
				t.Errorf("Validate: no violation at %d: %v", want, errs)
			}
		})
	}
}
