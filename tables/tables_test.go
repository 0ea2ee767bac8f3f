package tables_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/tables"
)

// smallHeap is a two-snapshot heap: a root holding two objects of class
// Thing, one of which holds a string with a value, and an edge named by an
// index; in the second snapshot the other Thing holds a third.
func smallHeap() *ir.File {
	f := &ir.File{Format: "test", FormatVersion: "1", Strings: []string{""}}
	str := irtest.Strings(f, "root", "Thing", "text", "x", "hello", "category", "bad \xff")
	f.Classes.Name = []uint32{str[1]}
	f.Classes.Library = []uint32{0}
	for k, extra := range []int{0, 1} {
		s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object", "string"}, EdgeKinds: []ir.EdgeKind{{Name: "property"}, {Name: "element", Indexed: true}}, Root: 0}
		nodes := []irtest.Node{
			{Kind: 0, Name: str[0], Edges: []irtest.Edge{{0, str[3], 1}, {1, 7, 2}}},
			{Kind: 1, Name: str[1], Class: 1, Size: 16, Edges: []irtest.Edge{{0, str[2], 3}}},
			{Kind: 1, Name: str[1], Class: 1, Size: 16},
			{Kind: 2, Name: str[6], Size: 24},
		}
		for range extra {
			nodes[2].Edges = append(nodes[2].Edges, irtest.Edge{1, 8, 4})
			nodes = append(nodes, irtest.Node{Kind: 1, Name: str[1], Class: 1, Size: 16})
		}
		irtest.Build(s, nodes, true)
		s.Roots = []ir.RootRef{{Node: 1, Category: str[5]}}
		s.Values = ir.Values{Node: []uint32{3}, Kind: []ir.ValueKind{ir.ValueString}, Bits: []uint64{uint64(str[4])}, Aux: []uint64{0}}
		s.Totals = []ir.Total{{Name: "total", Value: uint64(100 + k)}}
		f.Snapshots = append(f.Snapshots, s)
	}
	return f
}

func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := pq.ReadFile[T](path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	loss, err := tables.Write(dir, smallHeap(), &tables.Options{FileID: "small", Source: "small.test"})
	if err != nil {
		t.Fatal(err)
	}
	nodes := readRows[tables.NodeRow](t, filepath.Join(dir, "nodes.parquet"))
	if len(nodes) != 9 {
		t.Fatalf("%d node rows, want 4 + 5", len(nodes))
	}
	n := nodes[5] // snapshot 1, node 1
	if n.FileID != "small" || n.Snapshot != 1 || n.Node != 1 || n.ID != 3 || n.Kind != "object" || n.Name != "Thing" || n.SelfSize != 16 || n.CountedSize != 16 || n.Edges != 1 || n.Class == nil {
		t.Errorf("node row %+v", n)
	}
	classes := readRows[tables.ClassRow](t, filepath.Join(dir, "classes.parquet"))
	counts := map[string]int64{}
	for _, c := range classes {
		if c.Class == *n.Class && c.Snapshot == 1 && c.Name != "Thing" {
			t.Errorf("node 1 is in class %q, want Thing", c.Name)
		}
		counts[fmt.Sprintf("%d %s", c.Snapshot, c.Name)] = c.Count
	}
	if counts["0 Thing"] != 2 || counts["1 Thing"] != 3 {
		t.Errorf("class counts %v, want 2 and 3 Things", counts)
	}
	edges := readRows[tables.EdgeRow](t, filepath.Join(dir, "edges.parquet"))
	if len(edges) != 7 {
		t.Fatalf("%d edge rows, want 3 + 4", len(edges))
	}
	if e := edges[0]; e.Name == nil || *e.Name != "x" || e.Index != nil || e.From != 0 || e.To != 1 || e.Kind != "property" {
		t.Errorf("edge 0: %+v", e)
	}
	if e := edges[1]; e.Name != nil || e.Index == nil || *e.Index != 7 || e.Kind != "element" {
		t.Errorf("edge 1 (an element): %+v", e)
	}
	values := readRows[tables.ValueRow](t, filepath.Join(dir, "values.parquet"))
	if len(values) != 2 || values[0].String == nil || *values[0].String != "hello" || values[0].Kind != "string" {
		t.Errorf("values %+v", values)
	}
	roots := readRows[tables.RootRow](t, filepath.Join(dir, "roots.parquet"))
	if len(roots) != 2 || roots[1].Category != "category" || roots[1].Snapshot != 1 {
		t.Errorf("roots %+v", roots)
	}
	totals := readRows[tables.TotalRow](t, filepath.Join(dir, "totals.parquet"))
	if len(totals) != 2 || totals[1].Value != 101 {
		t.Errorf("totals %+v", totals)
	}
	strs := readRows[tables.StringRow](t, filepath.Join(dir, "strings.parquet"))
	if len(strs) != 8 || strs[7].Value != "bad \uFFFD" {
		t.Errorf("strings %+v", strs)
	}
	if l, ok := loss.Get(ir.LossValues); !ok || l.Count < 1 {
		t.Errorf("the string that is not UTF-8 is not in the loss report: %v", loss)
	}
	if _, err := os.Stat(filepath.Join(dir, "stacks.parquet")); !os.IsNotExist(err) {
		t.Errorf("a heap without allocation stacks has a stacks table (%v)", err)
	}
	files := readRows[tables.FileRow](t, filepath.Join(dir, "files.parquet"))
	if len(files) != 1 || files[0].Source != "small.test" || files[0].Snapshots != 2 {
		t.Errorf("files %+v", files)
	}
}

// TestWriteRetained checks the dominator tree and the retained sizes of
// the nodes and classes tables: in the second snapshot of smallHeap the
// root dominates Things 1 and 2, Thing 1 the string and Thing 2 Thing 4,
// so that the class Thing retains Thing 1 and 2's sizes, in which Thing
// 4's already is.
func TestWriteRetained(t *testing.T) {
	dir := t.TempDir()
	if _, err := tables.Write(dir, smallHeap(), &tables.Options{Snapshots: []int{1}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range readRows[tables.NodeRow](t, filepath.Join(dir, "nodes.parquet")) {
		dom := "null"
		if n.Dominator != nil {
			dom = fmt.Sprint(*n.Dominator)
		}
		ret := "null"
		if n.RetainedSize != nil {
			ret = fmt.Sprint(*n.RetainedSize)
		}
		got = append(got, fmt.Sprintf("%d<-%s:%s", n.Node, dom, ret))
	}
	if want := "[0<-null:72 1<-0:40 2<-0:32 3<-1:24 4<-2:16]"; fmt.Sprint(got) != want {
		t.Errorf("node<-dominator:retained %v, want %s", got, want)
	}
	retained := map[string]string{}
	for _, c := range readRows[tables.ClassRow](t, filepath.Join(dir, "classes.parquet")) {
		if c.RetainedSize == nil {
			t.Errorf("class %s has no retained size", c.Name)
			continue
		}
		retained[c.Name] = fmt.Sprint(*c.RetainedSize)
	}
	if want := "map[(string):24 (synthetic):0 Thing:72]"; fmt.Sprint(retained) != want {
		t.Errorf("classes' retained sizes %v, want %s", retained, want)
	}
}

// TestWriteNoRoot checks that a snapshot without a root has no dominators
// and no retained sizes, rather than made-up ones.
func TestWriteNoRoot(t *testing.T) {
	f := smallHeap()
	f.Snapshots = f.Snapshots[:1]
	f.Snapshots[0].Root = ir.NoNode
	f.Snapshots[0].Roots = nil
	dir := t.TempDir()
	if _, err := tables.Write(dir, f, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range readRows[tables.NodeRow](t, filepath.Join(dir, "nodes.parquet")) {
		if n.Dominator != nil || n.RetainedSize != nil {
			t.Errorf("node %d of a heap without a root: dominator %v, retained size %v", n.Node, n.Dominator, n.RetainedSize)
		}
	}
	for _, c := range readRows[tables.ClassRow](t, filepath.Join(dir, "classes.parquet")) {
		if c.RetainedSize != nil {
			t.Errorf("class %s of a heap without a root: retained size %d", c.Name, *c.RetainedSize)
		}
	}
}

// TestWriteVirtualRoot checks a snapshot that lists its GC roots without
// a root node: the nodes only the roots as a whole hold have no
// dominator, and what they retain is summed as heapconv info sums it.
func TestWriteVirtualRoot(t *testing.T) {
	f := smallHeap()
	f.Snapshots = f.Snapshots[1:]
	s := f.Snapshots[0]
	s.Root = ir.NoNode
	s.Roots = []ir.RootRef{{Node: 1}, {Node: 2}}
	dir := t.TempDir()
	if _, err := tables.Write(dir, f, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range readRows[tables.NodeRow](t, filepath.Join(dir, "nodes.parquet")) {
		dom := "null"
		if n.Dominator != nil {
			dom = fmt.Sprint(*n.Dominator)
		}
		got = append(got, fmt.Sprintf("%d<-%s:%d", n.Node, dom, *n.RetainedSize))
	}
	// Node 0, which nothing holds now, hangs from the virtual root.
	if want := "[0<-null:0 1<-null:40 2<-null:32 3<-1:24 4<-2:16]"; fmt.Sprint(got) != want {
		t.Errorf("node<-dominator:retained %v, want %s", got, want)
	}
}

func TestWriteOneSnapshot(t *testing.T) {
	dir := t.TempDir()
	if _, err := tables.Write(dir, smallHeap(), &tables.Options{Snapshots: []int{1}}); err != nil {
		t.Fatal(err)
	}
	snaps := readRows[tables.SnapshotRow](t, filepath.Join(dir, "snapshots.parquet"))
	if len(snaps) != 1 || snaps[0].Snapshot != 1 || snaps[0].Nodes != 5 || snaps[0].FileID != "heap" {
		t.Errorf("snapshots %+v, want snapshot 1 alone, file id heap", snaps)
	}
}

func TestSchema(t *testing.T) {
	var names []string
	for _, s := range tables.Schema() {
		for _, f := range s.Fields() {
			if f.Name() == "file_id" {
				names = append(names, s.Name())
			}
		}
	}
	if len(names) != len(tables.Schema()) {
		t.Errorf("tables without a file_id column: %v of %d", names, len(tables.Schema()))
	}
	if !slices.Contains(tables.Names(), tables.Nodes) {
		t.Errorf("Names %v lacks nodes", tables.Names())
	}
}
