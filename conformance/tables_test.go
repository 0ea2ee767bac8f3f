package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/tables"
)

// duckdbProject is DuckDB, the engine that judges the Parquet tables.
var duckdbProject = &nodeProject{dir: "duckdb", pkg: "@duckdb/node-api", purpose: "DuckDB (the judge of the Parquet tables)"}

// duckdbResult is query.js's line for one directory of tables.
type duckdbResult struct {
	Dir       string `json:"dir"`
	Error     string `json:"error"`
	Snapshots []struct {
		Snapshot int    `json:"snapshot"`
		Nodes    string `json:"nodes"`
		Edges    string `json:"edges"`
		Roots    string `json:"roots"`
	} `json:"snapshots"`
	Classes []struct {
		Snapshot int     `json:"snapshot"`
		Name     string  `json:"name"`
		ScriptID *string `json:"script_id"`
		Line     *string `json:"line"`
		Column   *string `json:"column"`
		Count    string  `json:"count"`
		SelfSize string  `json:"self_size"`
		Retained *string `json:"retained_size"`
	} `json:"classes"`
	Retained []struct {
		Snapshot int     `json:"snapshot"`
		Name     string  `json:"name"`
		ScriptID *string `json:"script_id"`
		Line     *string `json:"line"`
		Column   *string `json:"column"`
		Retained *string `json:"retained_size"`
		Tops     string  `json:"tops"`
	} `json:"retained"`
	Stacks []struct {
		Snapshot int    `json:"snapshot"`
		Frames   string `json:"frames"`
		Nodes    string `json:"nodes"`
	} `json:"stacks"`
}

// TestTablesInDuckDB writes every fixture of every format as Parquet
// tables and has DuckDB, which no one here wrote, read them: per snapshot,
// its counts of nodes, edges and roots must be the snapshot's, and its
// count and sum of sizes per class, grouping the nodes table by the classes
// table, must be what heapconv info shows (analysis.ClassStats), class for
// class. So must each class's retained size, both the classes table's and
// the one DuckDB computes from the nodes' dominator and retained_size
// columns alone (walking the dominator tree up from each instance, it sums
// the instances no other of their class dominates), against heapconv info
// --by retained's (analysis.SummarizeBy); both are null in a snapshot
// without a root or GC roots.
func TestTablesInDuckDB(t *testing.T) {
	t.Parallel()
	duckdbProject.require(t)
	root := t.TempDir()
	heaps := map[string]*ir.File{}
	var dirs []string
	for _, fm := range table {
		if fm.fixtures == "" {
			continue
		}
		paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no fixtures", fm.name)
		}
		for _, path := range paths {
			f := read(t, fm, loadFixture(t, path))
			dir := filepath.Join(root, fm.name+"-"+fixtureName(path))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := tables.Write(dir, f, &tables.Options{FileID: fixtureName(path), Source: path}); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			heaps[dir] = f
			dirs = append(dirs, dir)
		}
	}
	results := duckdbQuery(t, dirs)
	checked, stacked, withTree := 0, 0, 0
	for _, dir := range dirs {
		r, f := results[dir], heaps[dir]
		name := filepath.Base(dir)
		if r == nil || r.Error != "" {
			t.Errorf("%s: DuckDB cannot read the tables: %v", name, r)
			continue
		}
		if len(r.Snapshots) != len(f.Snapshots) {
			t.Errorf("%s: DuckDB finds %d snapshots, want %d", name, len(r.Snapshots), len(f.Snapshots))
			continue
		}
		for _, s := range r.Snapshots {
			want := f.Snapshots[s.Snapshot]
			if s.Nodes != strconv.Itoa(want.Nodes.Len()) || s.Edges != strconv.Itoa(want.Edges.Len()) || s.Roots != strconv.Itoa(len(want.Roots)) {
				t.Errorf("%s snapshot %d: DuckDB counts %s nodes, %s edges, %s roots; want %d, %d, %d",
					name, s.Snapshot, s.Nodes, s.Edges, s.Roots, want.Nodes.Len(), want.Edges.Len(), len(want.Roots))
			}
		}
		// Allocation stacks: a row per frame of every node that has one.
		wantStacks := map[int]string{}
		for k, s := range f.Snapshots {
			stackOf := ir.AllocationStacks(f, s)
			if stackOf == nil {
				continue
			}
			frames, nodes := 0, 0
			for i := 0; i < s.Nodes.Len(); i++ {
				n := 0
				for _, fr := range stackOf(i) {
					if !fr.Class {
						n++
					}
				}
				frames += n
				if n > 0 {
					nodes++
				}
			}
			if frames > 0 {
				wantStacks[k] = fmt.Sprintf("%d frames of %d nodes", frames, nodes)
			}
		}
		gotStacks := map[int]string{}
		for _, st := range r.Stacks {
			gotStacks[st.Snapshot] = st.Frames + " frames of " + st.Nodes + " nodes"
		}
		if fmt.Sprint(gotStacks) != fmt.Sprint(wantStacks) {
			t.Errorf("%s: DuckDB finds stacks %v, want %v", name, gotStacks, wantStacks)
		}
		if len(wantStacks) > 0 {
			stacked++
		}
		nullable := func(s *string) string {
			if s == nil {
				return "null"
			}
			return *s
		}
		// From the nodes' dominators: a class none of whose instances
		// counts has no row (0, as info counts it).
		walked := map[string]string{}
		for _, c := range r.Retained {
			loc := ""
			if c.ScriptID != nil {
				loc = fmt.Sprintf(" at %s:%s:%s", *c.ScriptID, *c.Line, *c.Column)
			}
			walked[fmt.Sprintf("%d %s%s", c.Snapshot, c.Name, loc)] = nullable(c.Retained)
		}
		got := map[string]string{}
		for _, c := range r.Classes {
			loc := ""
			if c.ScriptID != nil {
				loc = fmt.Sprintf(" at %s:%s:%s", *c.ScriptID, *c.Line, *c.Column)
			}
			key := fmt.Sprintf("%d %s%s", c.Snapshot, c.Name, loc)
			fromNodes, ok := walked[key]
			if !ok {
				fromNodes = "0"
				if c.Retained == nil {
					fromNodes = "null"
				}
			}
			got[key] = fmt.Sprintf("%s objects, %s bytes, retains %s (from the nodes %s)", c.Count, c.SelfSize, nullable(c.Retained), fromNodes)
		}
		want := map[string]string{}
		for k, s := range f.Snapshots {
			sum, err := analysis.SummarizeBy(f, s, -1, analysis.ByRetained)
			if err != nil {
				t.Fatalf("%s snapshot %d: %v", name, k, err)
			}
			hasTree := s.Root != ir.NoNode || len(s.Roots) > 0
			for _, c := range sum.TopClasses {
				loc := ""
				if l := c.Location; l != nil {
					loc = fmt.Sprintf(" at %d:%d:%d", l.ScriptID, l.Line, l.Column)
				}
				retained := "null"
				if hasTree {
					retained = strconv.FormatUint(*c.Retained, 10)
				}
				want[fmt.Sprintf("%d %s%s", k, c.Name, loc)] = fmt.Sprintf("%d objects, %d bytes, retains %s (from the nodes %s)", c.Count, c.SelfSize, retained, retained)
			}
			if hasTree {
				withTree++
			}
		}
		var diffs []string
		for k, w := range want {
			if got[k] != w {
				diffs = append(diffs, fmt.Sprintf("%q: DuckDB %q, heapconv info %q", k, got[k], w))
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%q: DuckDB %q, not a class of heapconv info", k, got[k]))
			}
		}
		sort.Strings(diffs)
		if len(diffs) > 0 {
			if len(diffs) > 5 {
				diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
			}
			t.Errorf("%s: DuckDB's classes differ from heapconv info's:\n  %s", name, fmtLines(diffs))
			continue
		}
		checked++
	}
	t.Logf("DuckDB's figures equal heapconv info's for %d of %d fixtures (%d with allocation stacks; %d snapshots with retained sizes)", checked, len(dirs), stacked, withTree)
	if stacked == 0 {
		t.Error("no fixture has allocation stacks: the stacks table went unchecked")
	}
	if withTree == 0 {
		t.Error("no snapshot has a dominator tree: the retained sizes went unchecked")
	}
}

func fmtLines(l []string) string {
	var b bytes.Buffer
	for i, s := range l {
		if i > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// duckdbQuery runs query.js over the directories, by directory.
func duckdbQuery(t *testing.T, dirs []string) map[string]*duckdbResult {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("duckdb", "query.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, dirs...)...)
	cmd.Dir = "duckdb"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	out := map[string]*duckdbResult{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var r duckdbResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("query.js output: %v", err)
		}
		out[r.Dir] = &r
	}
	if len(out) != len(dirs) {
		t.Fatalf("query.js answered for %d of %d directories (%v)\n%s", len(out), len(dirs), runErr, stderr.String())
	}
	return out
}

// readmeQueries returns the README's DuckDB queries (the sql blocks of its
// section on SQL): the classes that grow, then the suspects by retained
// size. docs/tables.md must show them too, word for word.
func readmeQueries(t *testing.T) (growth, suspects string) {
	t.Helper()
	section := readmeSection(t, "Heap archives in SQL")
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "```sql\n")
		if !ok {
			break
		}
		block, after, ok := strings.Cut(rest, "```")
		if !ok {
			t.Fatal("the README has an sql block without its end")
		}
		blocks, section = append(blocks, block), after
	}
	if len(blocks) != 2 {
		t.Fatalf("the README's section on SQL has %d sql blocks, want 2 (growth, suspects)", len(blocks))
	}
	doc, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if !strings.Contains(string(doc), "```sql\n"+b+"```") {
			t.Errorf("docs/tables.md does not show the README's query\n%s", b)
		}
	}
	return blocks[0], blocks[1]
}

// duckdbSQL runs query in DuckDB from directory dir and decodes its rows
// into rows.
func duckdbSQL(t *testing.T, dir, query string, rows any) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("duckdb", "query.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, "--sql", query)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, rows); err != nil {
		t.Fatalf("DuckDB's answer %s: %v", out, err)
	}
}

// growthRow is a row of the README's growth query.
type growthRow struct {
	Name       string `json:"name"`
	FirstBytes string `json:"first_bytes"`
	LastBytes  string `json:"last_bytes"`
	Slope      *int64 `json:"bytes_per_snapshot"`
}

// suspectRow is a row of the README's suspects query.
type suspectRow struct {
	FileID   string `json:"file_id"`
	Snapshot int    `json:"snapshot"`
	Class    string `json:"class"`
	Node     string `json:"node"`
	ID       string `json:"id"`
	Retained string `json:"retained_size"`
}

// TestTablesREADMEQuery runs the README's DuckDB queries on the tables of
// the three snapshots of a real MoarVM file (of a program that fills a
// hash), each exported to a directory of its own as the README does, and
// on those of a crafted series in which a class appears in the second
// snapshot and grows. The growth query must rank every class by the
// slope of its bytes (as heapconv info counts them, 0 in a snapshot
// without it), so that the class that appears late and grows most comes
// first; the suspects query must list, per snapshot, the objects with
// the largest retained sizes as analysis.NodeRetained computes them.
func TestTablesREADMEQuery(t *testing.T) {
	t.Parallel()
	duckdbProject.require(t)
	growth, suspects := readmeQueries(t)

	t.Run("moarvm", func(t *testing.T) {
		root := t.TempDir()
		src := filepath.Join(moduleRoot, "testdata/moarvm/nqp-3snap.mvmheap")
		for k := range 3 {
			out := filepath.Join(root, "tables", fmt.Sprintf("nqp-%d", k))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := heapconv.ExportTables(src, out, &heapconv.ExportOptions{Snapshots: heapconv.Snapshot(k), FileID: fmt.Sprintf("nqp-%d", k)}); err != nil {
				t.Fatal(err)
			}
		}
		f := read(t, formatByName("moarvm"), loadFixture(t, src))
		checkGrowth(t, root, growth, f, "")

		var rows []suspectRow
		duckdbSQL(t, root, suspects, &rows)
		var want []string
		for k, s := range f.Snapshots {
			classes, of, sizes, tree, err := analysis.NodeRetained(f, s)
			if err != nil || tree == nil {
				t.Fatalf("snapshot %d: no dominator tree (%v)", k, err)
			}
			var nodes []int
			for i := range s.Nodes.Len() {
				if of[i] >= 0 && sizes.At(i) > 0 {
					nodes = append(nodes, i)
				}
			}
			sort.Slice(nodes, func(a, b int) bool {
				x, y := tree.Retained[nodes[a]], tree.Retained[nodes[b]]
				return x > y || x == y && nodes[a] < nodes[b]
			})
			for _, i := range nodes[:5] {
				want = append(want, fmt.Sprintf("nqp-%d %d %s #%d id %d retains %d", k, k, classes[of[i]].Name, i, s.Nodes.ID.At(i), tree.Retained[i]))
			}
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s %d %s #%s id %s retains %s", r.FileID, r.Snapshot, r.Class, r.Node, r.ID, r.Retained))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the README's suspects query finds\n  %s\nwant\n  %s", fmtLines(got), fmtLines(want))
		}
		// The program fills a hash: in the last snapshot it keeps the most.
		if len(rows) == 15 && (rows[10].Snapshot != 2 || rows[10].Class != "BOOTHash") {
			t.Errorf("the last snapshot's first suspect is %+v, want the BOOTHash the program fills", rows[10])
		}
	})

	t.Run("late class", func(t *testing.T) {
		root := t.TempDir()
		out := filepath.Join(root, "tables", "crafted")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		f := lateClassSeries()
		if _, err := tables.Write(out, f, &tables.Options{FileID: "crafted"}); err != nil {
			t.Fatal(err)
		}
		rows := checkGrowth(t, root, growth, f, "Late")
		if len(rows) > 1 && rows[1].Name != "Steady" {
			t.Errorf("the README's growth query ranks %q second, want Steady", rows[1].Name)
		}
	})
}

// checkGrowth runs the README's growth query in root, on the tables of
// f's snapshots, and checks each row against heapconv's figures: a
// class's bytes in the first and last snapshot (0 where it has none), and
// the slope of the line through its bytes in every snapshot, largest
// first. With first set, that class must come first. It returns the rows.
func checkGrowth(t *testing.T, root, query string, f *ir.File, first string) []growthRow {
	t.Helper()
	var rows []growthRow
	duckdbSQL(t, root, query, &rows)
	series := map[string][]float64{}
	n := len(f.Snapshots)
	for k, s := range f.Snapshots {
		for _, c := range analysis.ClassStats(f, s) {
			if series[c.Name] == nil {
				series[c.Name] = make([]float64, n)
			}
			series[c.Name][k] += float64(c.SelfSize)
		}
	}
	// The least-squares slope over the snapshots 1..n.
	slope := func(ys []float64) int64 {
		mx, my := float64(n+1)/2, 0.0
		for _, y := range ys {
			my += y / float64(n)
		}
		var num, den float64
		for k, y := range ys {
			num += (float64(k+1) - mx) * (y - my)
			den += (float64(k+1) - mx) * (float64(k+1) - mx)
		}
		return int64(math.Round(num / den))
	}
	best := int64(math.MinInt64)
	for _, ys := range series {
		best = max(best, slope(ys))
	}
	if len(rows) != min(10, len(series)) {
		t.Fatalf("the README's growth query gives %d rows, want %d", len(rows), min(10, len(series)))
	}
	for j, r := range rows {
		ys := series[r.Name]
		switch {
		case ys == nil:
			t.Errorf("row %d: %q is not a class", j, r.Name)
		case r.Slope == nil || *r.Slope != slope(ys) ||
			r.FirstBytes != strconv.FormatFloat(ys[0], 'f', 0, 64) || r.LastBytes != strconv.FormatFloat(ys[n-1], 'f', 0, 64):
			t.Errorf("row %d: %+v (slope %v); want bytes %v, slope %d", j, r, r.Slope, ys, slope(ys))
		case j == 0 && *r.Slope != best:
			t.Errorf("the README's growth query ranks first %q (slope %d); the largest slope is %d", r.Name, *r.Slope, best)
		case j > 0 && rows[j-1].Slope != nil && *r.Slope > *rows[j-1].Slope:
			t.Errorf("row %d: slope %d after %d: not ordered", j, *r.Slope, *rows[j-1].Slope)
		}
	}
	if first != "" && rows[0].Name != first {
		t.Errorf("the README's growth query ranks %q first, want %s", rows[0].Name, first)
	}
	return rows
}

// lateClassSeries is a file of three snapshots of a crafted heap: Steady
// objects take 100, 250 and 400 bytes (a slope of 150); Late objects none,
// then 500 and 600 bytes (a slope of 300, where counting only the
// snapshots that have them gives 100); Gone objects 1000 bytes, then none.
func lateClassSeries() *ir.File {
	f := &ir.File{Format: "test", FormatVersion: "1", Strings: []string{""}}
	str := irtest.Strings(f, "root", "Steady", "Late", "Gone")
	sizes := map[uint32][]uint64{
		str[1]: {100, 250, 400},
		str[2]: {0, 500, 600},
		str[3]: {1000, 0, 0},
	}
	for k := range 3 {
		s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "element", Indexed: true}}, Root: 0}
		nodes := []irtest.Node{{Kind: 0, Name: str[0]}}
		for _, name := range str[1:] {
			if size := sizes[name][k]; size > 0 {
				nodes[0].Edges = append(nodes[0].Edges, irtest.Edge{0, uint32(len(nodes)), uint32(len(nodes))})
				nodes = append(nodes, irtest.Node{Kind: 1, Name: name, Size: size})
			}
		}
		irtest.Build(s, nodes, false)
		f.Snapshots = append(f.Snapshots, s)
	}
	return f
}
