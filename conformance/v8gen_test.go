package conformance

import (
	"bytes"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/v8gen"
	"github.com/heapconv/heapconv/ir/analysis"
)

// TestV8GenDevTools has Chrome DevTools' loader open heaps made by
// internal/v8gen (the generator of large Node 20 snapshots for benchmarks
// and scale tests): one without Items, one with a single Item, and two of
// 3 MB with different seeds. Each must load with the node and edge counts
// Write reported, the root first, the heap's whole self size as its total,
// and a Summary that shows, class by class, what `heapconv info` shows:
// the nodes DevTools counts (those with a size), their shallow size and
// their retained size.
func TestV8GenDevTools(t *testing.T) {
	t.Parallel()
	o := newOracle(t.TempDir())
	for _, tc := range []struct {
		name string
		opts v8gen.Options
	}{
		{"empty", v8gen.Options{TargetBytes: 1}},
		{"one-item", v8gen.Options{Items: 1}},
		{"3MB", v8gen.Options{TargetBytes: 3_000_000}},
		{"3MB-seed9", v8gen.Options{TargetBytes: 3_000_000, Seed: 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			st, err := v8gen.Write(&buf, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := o.file(t, "v8gen-"+tc.name, buf.Bytes())
			f, err := heapconv.Read(bytes.NewReader(buf.Bytes()), nil)
			if err != nil {
				t.Fatal(err)
			}
			s := f.Snapshots[0]
			if int64(s.Nodes.Len()) != st.Nodes || int64(s.Edges.Len()) != st.Edges {
				t.Errorf("heapconv reads %d nodes, %d edges; v8gen wrote %d, %d", s.Nodes.Len(), s.Edges.Len(), st.Nodes, st.Edges)
			}
			sum, err := analysis.SummarizeBy(f, s, -1, analysis.ByRetained)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]classAgg{}
			for _, c := range sum.TopClasses {
				if c.SelfSize == 0 {
					continue // DevTools leaves out nodes without a size
				}
				name := jsonName(c.Name)
				if _, dup := want[name]; dup {
					t.Fatalf("heapconv splits class %q by location; the test compares classes by name", name)
				}
				want[name] = classAgg{Count: int64(c.Count), Self: int64(c.SelfSize), MaxRet: int64(*c.Retained)}
			}
			if want["Item"].Count != int64(st.Items) || want["Point"].Count != int64(st.Items) {
				t.Errorf("heapconv info counts %d Items and %d Points; v8gen wrote %d of each", want["Item"].Count, want["Point"].Count, st.Items)
			}
			total := s.Nodes.SelfSize.Sum()
			o.expect("v8gen/"+tc.name, func(t *testing.T, get func(string) *summary) {
				got := get(path)
				if !loaded(t, got) {
					return
				}
				if got.NodeCount != st.Nodes || got.EdgeCount != st.Edges || got.RootIndex != 0 {
					t.Errorf("DevTools: %d nodes, %d edges, root at %d; v8gen wrote %d and %d, root first",
						got.NodeCount, got.EdgeCount, got.RootIndex, st.Nodes, st.Edges)
				}
				if uint64(got.TotalSize) != total {
					t.Errorf("DevTools' total is %.0f bytes; the heap's self sizes sum to %d", got.TotalSize, total)
				}
				if len(got.Classes) != len(want) {
					t.Errorf("DevTools shows %d classes, heapconv info %d", len(got.Classes), len(want))
				}
				for name, w := range want {
					g, ok := got.Classes[name]
					switch {
					case !ok:
						t.Errorf("class %q (%d nodes): not in DevTools' Summary", name, w.Count)
					case g.Count != w.Count || g.Self != w.Self || g.MaxRet != w.MaxRet:
						t.Errorf("class %q: DevTools %d nodes, %d bytes, retains %d; heapconv info %d, %d, %d",
							name, g.Count, g.Self, g.MaxRet, w.Count, w.Self, w.MaxRet)
					}
				}
			})
		})
	}
	t.Run("devtools", o.run)
}
