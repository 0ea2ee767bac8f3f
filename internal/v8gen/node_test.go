package v8gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	irv8 "github.com/heapconv/heapconv/ir/v8"
)

// heapFigures are what the test compares of two heaps.
type heapFigures struct {
	nodes, edges, strings, locations int64
	classes                          map[string][2]uint64 // count, self size
}

// readHeap reads a snapshot with heapconv.
func readHeap(t *testing.T, data []byte) *ir.File {
	t.Helper()
	f, err := heapconv.Read(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func figures(t *testing.T, f *ir.File) heapFigures {
	t.Helper()
	s := f.Snapshots[0]
	sum, err := analysis.SummarizeBy(f, s, -1, analysis.ByCount)
	if err != nil {
		t.Fatal(err)
	}
	h := heapFigures{nodes: int64(s.Nodes.Len()), edges: int64(s.Edges.Len()), strings: int64(len(f.Strings)),
		locations: int64(irv8.Of(s).Locations.Len() / 4), classes: map[string][2]uint64{}}
	for _, c := range sum.TopClasses {
		v := h.classes[c.Name]
		h.classes[c.Name] = [2]uint64{v[0] + c.Count, v[1] + c.SelfSize}
	}
	return h
}

// TestMatchesNode20 runs scripts/gen-big.js (the program of the package
// comment) under Node 20 for 10,000 and 20,000 Items and requires the
// generator's heaps to grow between the two as Node's does: the same numbers of nodes, edges, strings
// and locations per Item, and for the program's classes the same counts and
// shallow sizes, give or take what Node's own heap varies between runs.
// It needs node 20 on PATH and is skipped without it.
func TestMatchesNode20(t *testing.T) {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Skipf("no node: %v", err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v20.") {
		t.Skipf("node %s: the shape was measured on Node 20", v)
	}
	dir := t.TempDir()
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "gen-big.js"))
	if err != nil {
		t.Fatal(err)
	}
	const n1, n2 = 10_000, 20_000
	var real, gen [2]heapFigures
	for k, n := range []int{n1, n2} {
		path := filepath.Join(dir, strconv.Itoa(n)+".heapsnapshot")
		if out, err := exec.Command("node", script, path, strconv.Itoa(n)).CombinedOutput(); err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		real[k] = figures(t, readHeap(t, data))
		gen[k] = figures(t, readHeap(t, generate(t, Options{Items: n}).data))
	}
	near := func(what string, r0, r1, g0, g1 int64, slack int64) {
		dr, dg := r1-r0, g1-g0
		if dg < dr-slack || dg > dr+slack {
			t.Errorf("%s: %d more Items add %d in Node 20's heap, %d in the generated one", what, n2-n1, dr, dg)
		}
	}
	// Node's own heap varies between runs by up to a few hundred edges and
	// strings (code compiled or flushed, strings internalized): 1 %.
	pct := func(a, b int64) int64 { return (b - a) / 100 }
	near("nodes", real[0].nodes, real[1].nodes, gen[0].nodes, gen[1].nodes, pct(real[0].nodes, real[1].nodes))
	near("edges", real[0].edges, real[1].edges, gen[0].edges, gen[1].edges, pct(real[0].edges, real[1].edges))
	near("strings", real[0].strings, real[1].strings, gen[0].strings, gen[1].strings, pct(real[0].strings, real[1].strings))
	near("locations", real[0].locations, real[1].locations, gen[0].locations, gen[1].locations, pct(real[0].locations, real[1].locations))
	for _, class := range []string{"Item", "Point", "Array", "(string)", "Map"} {
		for i, what := range []string{"count", "self size"} {
			near(class+" "+what, int64(real[0].classes[class][i]), int64(real[1].classes[class][i]),
				int64(gen[0].classes[class][i]), int64(gen[1].classes[class][i]), []int64{4, 512}[i])
		}
	}
}
