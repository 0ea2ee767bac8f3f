package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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
	} `json:"classes"`
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
// class.
func TestTablesInDuckDB(t *testing.T) {
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
	checked, stacked := 0, 0
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
		got := map[string]string{}
		for _, c := range r.Classes {
			loc := ""
			if c.ScriptID != nil {
				loc = fmt.Sprintf(" at %s:%s:%s", *c.ScriptID, *c.Line, *c.Column)
			}
			got[fmt.Sprintf("%d %s%s", c.Snapshot, c.Name, loc)] = c.Count + " objects, " + c.SelfSize + " bytes"
		}
		want := map[string]string{}
		for k, s := range f.Snapshots {
			for _, c := range analysis.ClassStats(f, s) {
				loc := ""
				if l := c.Location; l != nil {
					loc = fmt.Sprintf(" at %d:%d:%d", l.ScriptID, l.Line, l.Column)
				}
				want[fmt.Sprintf("%d %s%s", k, c.Name, loc)] = fmt.Sprintf("%d objects, %d bytes", c.Count, c.SelfSize)
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
	t.Logf("DuckDB's figures equal heapconv info's for %d of %d fixtures (%d with allocation stacks)", checked, len(dirs), stacked)
	if stacked == 0 {
		t.Error("no fixture has allocation stacks: the stacks table went unchecked")
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

// TestTablesREADMEQuery runs the README's DuckDB query (its first sql
// block) on the tables of the three snapshots of a real MoarVM file, each
// exported to a directory of its own as the README does: the class that
// grows most must come first, with its bytes in the first and last
// snapshot as heapconv info counts them.
func TestTablesREADMEQuery(t *testing.T) {
	duckdbProject.require(t)
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```sql\n")
	query, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no sql block")
	}
	root := t.TempDir()
	src := filepath.Join(moduleRoot, "testdata/moarvm/nqp-3snap.mvmheap")
	if err := os.Mkdir(filepath.Join(root, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		out := filepath.Join(root, "tables", fmt.Sprintf("nqp-%d", k))
		if _, err := heapconv.ExportTables(src, out, &heapconv.ExportOptions{Snapshots: heapconv.Snapshot(k), FileID: fmt.Sprintf("nqp-%d", k)}); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs(filepath.Join("duckdb", "query.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, "--sql", query)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v", err)
	}
	var rows []struct {
		Name       string `json:"name"`
		FirstBytes string `json:"first_bytes"`
		LastBytes  string `json:"last_bytes"`
		Snapshots  string `json:"snapshots"`
	}
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) == 0 {
		t.Fatalf("DuckDB's answer %s: %v", out, err)
	}
	f := read(t, formatByName("moarvm"), loadFixture(t, src))
	// Over three equally spaced snapshots a line's slope is half the
	// growth from the first to the last: the class first in the query
	// grows most, by heapconv's own figures (a tie may put either first).
	bytes := func(k int) map[string]int64 {
		m := map[string]int64{}
		for _, c := range analysis.ClassStats(f, f.Snapshots[k]) {
			m[c.Name] = int64(c.SelfSize)
		}
		return m
	}
	first, mid, last := bytes(0), bytes(1), bytes(2)
	best := int64(-1 << 62)
	for name, b := range last {
		_, inFirst := first[name]
		_, inMid := mid[name]
		if inFirst && inMid && b-first[name] > best {
			best = b - first[name]
		}
	}
	r := rows[0]
	got, _ := strconv.ParseInt(r.LastBytes, 10, 64)
	from, _ := strconv.ParseInt(r.FirstBytes, 10, 64)
	if r.Snapshots != "3" || got-from != best || r.FirstBytes != strconv.FormatInt(first[r.Name], 10) || r.LastBytes != strconv.FormatInt(last[r.Name], 10) {
		t.Errorf("the README's query ranks first %+v; want a class grown by %d bytes over 3 snapshots, its bytes as heapconv info counts them", r, best)
	}
}
