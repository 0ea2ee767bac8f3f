package irtest_test

import (
	"slices"
	"testing"

	"heapconv/ir"
	"heapconv/ir/irtest"
)

var fuchsiaCases = []struct {
	name string
	opts irtest.Options
	fo   irtest.FuchsiaOptions
}{
	{"default", irtest.Options{}, irtest.FuchsiaOptions{}},
	{"everything", irtest.Options{MaxNodes: 30, Snapshots: 3, Strings: irtest.AllStrings}, irtest.FuchsiaEverything()},
	{"tags", irtest.Options{MaxNodes: 20, Snapshots: 1}, irtest.FuchsiaOptions{Tags: true, Symbolized: true}},
	{"merged multi-process", irtest.Options{MinNodes: 1, MaxNodes: 20, Snapshots: 4}, irtest.FuchsiaOptions{MultiProcess: true, Interleaved: true, Labels: true}},
	{"contents without edges", irtest.Options{MaxNodes: 20, Snapshots: 2}, irtest.FuchsiaOptions{Tags: true, Contents: true}},
	{"tiny", irtest.Options{MinNodes: 0, MaxNodes: 0, Snapshots: 2}, irtest.FuchsiaEverything()},
}

// TestRandomFuchsia: every generated file validates, is deterministic,
// and keeps the Fuchsia shape ir/fuchsia.go describes; the features asked
// for show up.
func TestRandomFuchsia(t *testing.T) {
	for _, tc := range fuchsiaCases {
		t.Run(tc.name, func(t *testing.T) {
			var edges, contents, extra, labels, interleaved, lines int
			for seed := int64(0); seed < 40; seed++ {
				f := irtest.RandomFuchsia(seed, tc.opts, tc.fo)
				if err := f.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if d := ir.Diff(f, irtest.RandomFuchsia(seed, tc.opts, tc.fo), 5); len(d) > 0 {
					t.Fatalf("seed %d: not deterministic: %v", seed, d)
				}
				o := tc.opts
				o.Fuchsia = &tc.fo
				if d := ir.Diff(f, irtest.Random(seed, o), 5); len(d) > 0 {
					t.Fatalf("seed %d: Random with Options.Fuchsia differs from RandomFuchsia: %v", seed, d)
				}
				if f.Format != ir.FormatFuchsia || f.Fuchsia == nil || len(f.Snapshots) != max(tc.opts.Snapshots, 1) {
					t.Fatalf("seed %d: not a Fuchsia file of %d snapshots", seed, max(tc.opts.Snapshots, 1))
				}
				x := f.Fuchsia
				if len(x.SampleTypes) > 2 {
					extra++
				}
				if len(x.SampleSnapshot) > 0 {
					interleaved++
				}
				if len(x.Locations.Function) > 0 {
					lines++
				}
				for k, s := range f.Snapshots {
					fs := s.Fuchsia
					if fs == nil || !slices.Equal(s.NodeKinds, ir.FuchsiaNodeKinds) || !slices.Equal(s.EdgeKinds, ir.FuchsiaEdgeKinds) {
						t.Fatalf("seed %d snapshot %d: section or kind tables missing", seed, k)
					}
					if s.Edges.Len() > 0 {
						edges++
					}
					if len(fs.Contents) > 0 {
						contents++
					}
					if len(fs.LabelKey) > 0 {
						labels++
					}
					if !tc.fo.MultiProcess && (fs.HasProcessName || fs.HasProcessKoid) {
						t.Fatalf("seed %d: process labels in a single-process profile", seed)
					}
					for i := 0; i < s.Nodes.Len(); i++ {
						if tc.fo.Tags != (fs.Flags[i]&ir.FuchsiaAddress != 0) {
							t.Fatalf("seed %d snapshot %d node %d: flags %#x with tags %v", seed, k, i, fs.Flags[i], tc.fo.Tags)
						}
					}
				}
			}
			fo := tc.fo
			for _, c := range []struct {
				asked bool
				got   int
				what  string
			}{
				{fo.DerivedEdges && tc.opts.MaxNodes > 0, edges, "derived edges"},
				{fo.Contents && tc.opts.MaxNodes > 0, contents, "contents"},
				{fo.ExtraSampleTypes, extra, "extra sample types"},
				{fo.Labels && tc.opts.MaxNodes > 0, labels, "labels"},
				{fo.Interleaved && tc.opts.Snapshots > 1 && tc.opts.MaxNodes > 0, interleaved, "interleaved samples"},
				{fo.Symbolized, lines, "symbolized locations"},
			} {
				if c.asked && c.got == 0 {
					t.Errorf("no file has %s", c.what)
				}
			}
		})
	}
}
