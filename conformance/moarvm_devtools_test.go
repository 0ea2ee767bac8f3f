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
	"github.com/heapconv/heapconv/ir/irtest"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	wv8 "github.com/heapconv/heapconv/writers/v8"
)

// TestMoarVMDevTools converts every snapshot of the real MoarVM samples
// (testdata/moarvm) and a few random MoarVM heaps to V8 with
// writers/v8.Convert, and has Chrome DevTools' loader open them: they must
// load with the node and edge counts written, DevTools' total must be the
// whole MoarVM heap (Σ colsize + colusize), and its Summary must show, class
// by class, the counts, shallow sizes and retained sizes heapconv computes
// on the converted file (analysis.SummarizeBy), which in turn are the MoarVM
// graph's own (checkMoarVMConverted).
func TestMoarVMDevTools(t *testing.T) {
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
	conv, _, err := wv8.Convert(src)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	checkMoarVMConverted(t, src, conv)
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

// checkMoarVMConverted checks writers/v8.Convert's output for a snapshot
// read from a MoarVM file: the synthetic root "" in front, MoarVM's root as
// node 1 ("(GC roots)"), collectable i as node i+1 with its self size and
// its references, one native node per unmanaged size after the
// collectables, owned by its collectable, unique odd ids, and every
// collectable's retained size (unmanaged memory owned by it) the MoarVM
// graph's.
func checkMoarVMConverted(t *testing.T, src, out *ir.File) {
	t.Helper()
	s, c := src.Snapshots[0], out.Snapshots[0]
	n := s.Nodes.Len()
	natives := 0
	for i := 0; i < s.Nodes.ExternalSize.Len(); i++ {
		if s.Nodes.ExternalSize.At(i) > 0 {
			natives++
		}
	}
	if c.Nodes.Len() != 1+n+natives {
		t.Fatalf("converted graph has %d nodes; want 1 + %d collectables + %d unmanaged", c.Nodes.Len(), n, natives)
	}
	if c.NodeKindName(0) != ir.KindSynthetic || out.String(c.Nodes.Name[0]) != "" {
		t.Errorf("node 0 is not the synthetic root")
	}
	if n > 0 && (c.NodeKindName(1) != ir.KindSynthetic || out.String(c.Nodes.Name[1]) != "(GC roots)") {
		t.Errorf("MoarVM's root is %s %q, want synthetic (GC roots)", c.NodeKindName(1), out.String(c.Nodes.Name[1]))
	}
	ids := map[uint64]bool{}
	for j := 0; j < c.Nodes.Len(); j++ {
		id := c.Nodes.ID.At(j)
		if id%2 == 0 || id >= 1<<32 || ids[id] {
			t.Fatalf("node %d: id %d is not a unique odd 32-bit id", j, id)
		}
		ids[id] = true
	}
	native := 1 + n
	for i := 0; i < n; i++ {
		j := i + 1
		if got, want := c.Nodes.SelfSize.At(j), min(s.Nodes.SelfSize.At(i), 1<<32-1); got != want {
			t.Errorf("collectable %d: self size %d, want %d", i, got, want)
		}
		lo, hi := s.Nodes.EdgeRange(i)
		clo, chi := c.Nodes.EdgeRange(j)
		ext := uint64(0)
		if s.Nodes.ExternalSize.Len() > 0 {
			ext = s.Nodes.ExternalSize.At(i)
		}
		owns := 0
		if ext > 0 {
			owns = 1
		}
		if chi-clo != hi-lo+owns {
			t.Fatalf("collectable %d: %d edges, want %d references and %d unmanaged", i, chi-clo, hi-lo, owns)
		}
		for e := lo; e < hi; e++ {
			if ce := clo + e - lo; c.Edges.Target[ce] != s.Edges.Target[e]+1 {
				t.Fatalf("collectable %d reference %d: target %d, want %d", i, e-lo, c.Edges.Target[ce], s.Edges.Target[e]+1)
			}
		}
		if owns > 0 {
			if to := int(c.Edges.Target[chi-1]); to != native || c.NodeKindName(to) != ir.KindNative ||
				c.Nodes.SelfSize.At(to) != min(ext, 1<<32-1) {
				t.Errorf("collectable %d: unmanaged size %d is not native node %d", i, ext, native)
			}
			native++
		}
	}
	if n == 0 || s.Root == ir.NoNode {
		return
	}
	want, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := analysis.Dominators(c, analysis.DominatorOptions{Orphans: true, Ignore: analysis.DevToolsIgnore(out, c), SelfSizes: analysis.DevToolsSelfSizes(out, c)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Retained[0] != want.Retained[s.Root] {
		t.Errorf("the V8 root retains %d, MoarVM's root %d", got.Retained[0], want.Retained[s.Root])
	}
	bad := 0
	for i := 0; i < n && bad < 10; i++ {
		if i != int(s.Root) && got.Retained[i+1] != want.Retained[i] {
			t.Errorf("collectable %d: retains %d in V8, %d in MoarVM", i, got.Retained[i+1], want.Retained[i])
			bad++
		}
	}
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
