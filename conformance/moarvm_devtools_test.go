package conformance

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/devtools"
	"github.com/heapconv/heapconv/ir/irtest"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
)

// TestMoarVMDevTools converts every snapshot of the real MoarVM samples
// (testdata/moarvm) and a few random MoarVM heaps to V8 with
// devtools.Convert, and has Chrome DevTools' loader open them: they must
// load with the node and edge counts written, DevTools' total must be the
// whole MoarVM heap (Σ colsize + colusize), and its Summary must show, class
// by class, the counts, shallow sizes and retained sizes heapconv computes
// on the converted file (analysis.SummarizeBy). That the converted graph is
// the MoarVM graph node by node, with its retained sizes, ir/devtools'
// TestMoarVMSamples checks on the same files.
func TestMoarVMDevTools(t *testing.T) {
	t.Parallel()
	o := newOracle(t.TempDir())
	paths, err := filepath.Glob(filepath.Join(moduleRoot, "testdata", "moarvm", "*.mvmheap*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no MoarVM samples in testdata/moarvm")
	}
	for _, path := range paths {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".mvmheap")
		t.Run(name, func(t *testing.T) {
			f := readMoarVM(t, path)
			for k := range f.Snapshots {
				t.Run(fmt.Sprintf("snapshot%d", k), func(t *testing.T) {
					moarVMToDevTools(t, o, fmt.Sprintf("%s-snapshot%d", name, k), selectMoarVM(t, f, k))
				})
			}
		})
	}
	for _, rc := range []struct {
		name string
		mo   irtest.MoarVMOptions
	}{{"v3", irtest.MoarVMOptions{}}, {"bad-refs", irtest.MoarVMOptions{BadRefs: true}}, {"v2", irtest.MoarVMOptions{V2: true}}} {
		for seed := int64(1); seed <= 2; seed++ {
			name := fmt.Sprintf("random-%s-seed%d", rc.name, seed)
			t.Run(name, func(t *testing.T) {
				f := irtest.RandomMoarVM(seed, irtest.Options{MinNodes: 200, MaxNodes: 2000, Snapshots: 1}, rc.mo)
				moarVMToDevTools(t, o, name, f)
			})
		}
	}
	t.Run("devtools", o.run)
}

// readMoarVM reads a MoarVM file, gunzipping a .gz one.
func readMoarVM(t *testing.T, path string) *ir.File {
	t.Helper()
	f, err := rmoarvm.Read(bytes.NewReader(loadFixture(t, path)), rmoarvm.Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := f.Validate(); err != nil {
		t.Fatalf("%s: the reader returned an invalid file: %v", path, err)
	}
	return f
}

// selectMoarVM returns snapshot k as a file of its own.
func selectMoarVM(t *testing.T, f *ir.File, k int) *ir.File {
	t.Helper()
	g, err := f.Select(k)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// moarVMToDevTools converts a one-snapshot MoarVM file, checks the result
// and registers it and its expectations with the oracle.
func moarVMToDevTools(t *testing.T, o *oracle, name string, src *ir.File) {
	t.Helper()
	conv, _, err := devtools.Convert(src)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	out := convertAndCheck(t, src, conv)
	path := o.file(t, "moarvm-"+name, out)
	c := conv.Snapshots[0]
	n, m := int64(c.Nodes.Len()), int64(c.Edges.Len())
	s := src.Snapshots[0]
	heap := s.Nodes.SelfSize.Sum() + s.Nodes.ExternalSize.Sum()
	o.expect("moarvm/"+name, func(t *testing.T, sum func(string) *summary) {
		got := sum(path)
		if !loaded(t, got) {
			return
		}
		if got.NodeCount != n || got.EdgeCount != m || got.RootIndex != 0 {
			t.Errorf("DevTools: %d nodes %d edges, root at %d; we wrote %d and %d, root first", got.NodeCount, got.EdgeCount, got.RootIndex, n, m)
		}
		if uint64(got.TotalSize) != heap {
			t.Errorf("DevTools' total is %.0f bytes; the MoarVM heap has %d (colsize + colusize)", got.TotalSize, heap)
		}
		compareMoarVMSummary(t, got, conv)
	})
}

// compareMoarVMSummary requires DevTools' Summary of a converted MoarVM
// heap to be heapconv's, class by class: the nodes DevTools counts (those
// with a size), their shallow size, and the retained size analysis.SummarizeBy
// computes the way DevTools does.
func compareMoarVMSummary(t *testing.T, got *summary, conv *ir.File) {
	t.Helper()
	c := conv.Snapshots[0]
	sum, err := analysis.SummarizeBy(conv, c, -1, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	retained := map[string]uint64{}
	for _, cs := range sum.TopClasses {
		retained[jsonName(cs.Name)] = *cs.Retained
	}
	type agg struct{ count, self int64 }
	want := map[string]agg{}
	for i := 0; i < c.Nodes.Len(); i++ {
		if size := c.Nodes.SelfSize.At(i); size > 0 {
			name := jsonName(analysis.ClassName(conv, c, i))
			a := want[name]
			a.count++
			a.self += int64(size)
			want[name] = a
		}
	}
	if len(got.Classes) != len(want) {
		t.Errorf("DevTools shows %d classes, heapconv %d", len(got.Classes), len(want))
	}
	bad := 0
	for name, w := range want {
		g, ok := got.Classes[name]
		switch {
		case !ok:
			t.Errorf("class %q (%d nodes): not in DevTools' Summary", name, w.count)
		case g.Count != w.count || g.Self != w.self || uint64(g.MaxRet) != retained[name]:
			t.Errorf("class %q: DevTools %d nodes, %d bytes, retains %d; heapconv %d, %d, %d",
				name, g.Count, g.Self, g.MaxRet, w.count, w.self, retained[name])
		default:
			continue
		}
		if bad++; bad >= 10 {
			return
		}
	}
}

// registrySame requires a file written from what was read to be the
// same as the original at the level the registry's Equivalent compares
// (what `heapconv roundtrip` checks): for MoarVM the same blocks in the
// same order with the same contents, or for a version 2 file (written as
// version 3) the same graphs.
func registrySame(format string) func(t *testing.T, got, want []byte) {
	return func(t *testing.T, got, want []byte) {
		t.Helper()
		level, err := heapconv.FormatByName(format).Equivalent(got, want)
		if err != nil {
			t.Fatalf("not %s: %v", level, err)
		}
	}
}
