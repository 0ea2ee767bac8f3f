package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir/analysis"
)

// devtoolsRetainer is one step of the retainer chain DevTools' Retainers
// view expands, as summary.js prints it (SUMMARY_RETAINERS).
type devtoolsRetainer struct {
	ID uint64 `json:"id"`
	// Name is the retainer's name in DevTools' model, NodeType its type,
	// Shown the text of its row in the Retainers view.
	Name     string `json:"name"`
	NodeType string `json:"nodeType"`
	Shown    string `json:"shown"`
	Edge     string `json:"edge"`
	Type     string `json:"type"`
	Distance int64  `json:"distance"`
}

// TestRetainerPathsMatchDevTools holds `heapconv paths` to Chrome DevTools'
// Retainers view on a real Node heap: for objects spread over the heap, the
// shortest retainer path analysis.Navigator finds is, holder by holder and
// edge by edge, the chain the Retainers view expands on its own when the
// object is selected (its first retainer, that one's first, and so on down
// to a JavaScript global), and each holder's distance and the name the
// view shows for it (PathStep.Shown) are DevTools'.
func TestRetainerPathsMatchDevTools(t *testing.T) {
	devtoolsProject.require(t)
	src := filepath.Join(moduleRoot, "testdata/v8/node26.heapsnapshot.zst")
	data := loadFixture(t, src)
	file := filepath.Join(t.TempDir(), "node26.heapsnapshot")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := read(t, formatByName("v8"), data)
	nv, err := analysis.NewNavigator(analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
	if err != nil {
		t.Fatal(err)
	}
	// Objects the globals reach, at every distance, spread over the node
	// order: DevTools expands at most 20 levels, so deeper ones are left out.
	var ids []string
	byID := map[string]int{}
	const want = 150
	n := nv.Nodes()
	for i := 0; i < n && len(ids) < want; i += 1 + n/(want*4) {
		d := nv.Distance(i)
		if d < 2 || d >= 20 || nv.Retained(i) == 0 {
			continue
		}
		id := strconv.FormatUint(f.Snapshots[0].Nodes.ID.At(i), 10)
		ids = append(ids, id)
		byID[id] = i
	}
	if len(ids) < want/2 {
		t.Fatalf("only %d objects to check", len(ids))
	}
	chains := devtoolsRetainers(t, file, ids)
	checked := 0
	// The holders compared, by node type: their names are dressed by it.
	holders := map[string]map[uint64]bool{}
	plain := 0 // steps through a plain object, named by its properties
	for _, id := range ids {
		chain, ok := chains[id]
		if !ok || chain == nil {
			t.Errorf("@%s: DevTools does not find the object", id)
			continue
		}
		path := nv.ShortestPath(byID[id])
		// path runs from the root side to the object; DevTools' chain from
		// the object's first retainer up.
		var got []string
		for k := len(path) - 2; k >= 0; k-- {
			st := path[k]
			got = append(got, fmt.Sprintf("@%d %q --%s %s--> (distance %d)", st.ID, st.Shown, st.Edge.Kind, st.Edge.Name, st.Distance))
		}
		var wantSteps []string
		for _, r := range chain {
			if holders[r.NodeType] == nil {
				holders[r.NodeType] = map[uint64]bool{}
			}
			holders[r.NodeType][r.ID] = true
			if strings.HasPrefix(r.Shown, "{") {
				plain++
			}
			wantSteps = append(wantSteps, fmt.Sprintf("@%d %q --%s %s--> (distance %d)", r.ID, r.Shown, r.Type, r.Edge, r.Distance))
		}
		if strings.Join(got, "\n") != strings.Join(wantSteps, "\n") {
			t.Errorf("@%s (%s): heapconv's retainer path differs from DevTools' Retainers view\nheapconv:\n  %s\nDevTools:\n  %s",
				id, nv.Class(byID[id]), strings.Join(got, "\n  "), strings.Join(wantSteps, "\n  "))
			continue
		}
		checked++
	}
	var tally []string
	for _, typ := range slices.Sorted(maps.Keys(holders)) {
		tally = append(tally, fmt.Sprintf("%d %s", len(holders[typ]), typ))
	}
	t.Logf("%d objects' retainer paths equal DevTools' Retainers view, names included; holders compared: %s", checked, strings.Join(tally, ", "))
	// The names that take more than the file's name: functions, plain
	// objects and internal arrays must have been among them.
	for _, typ := range []string{"closure", "object", "array"} {
		if len(holders[typ]) == 0 {
			t.Errorf("no holder of type %s was compared", typ)
		}
	}
	if plain == 0 {
		t.Errorf("no plain object (named {a, b, …}) was among the holders compared")
	}
}

// devtoolsRetainers runs summary.js on file and returns the retainer chain
// DevTools' Retainers view expands for each node id.
func devtoolsRetainers(t *testing.T, file string, ids []string) map[string][]devtoolsRetainer {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(devtoolsDir, "summary.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, file)
	cmd.Dir = devtoolsDir
	cmd.Env = append(os.Environ(), "SUMMARY_TIMEOUT=120", "SUMMARY_RETAINERS="+strings.Join(ids, ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node summary.js: %v\n%s", err, stderr.String())
	}
	var out struct {
		Retainers map[string][]devtoolsRetainer `json:"retainers"`
		Error     string                        `json:"error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("summary.js output: %v", err)
	}
	if out.Error != "" {
		t.Fatalf("DevTools could not load %s: %s", file, out.Error)
	}
	return out.Retainers
}

// TestRetainerPathNamesOfANodeProgram runs a Node program
// (testdata/v8/names.js) that holds objects in the ways retainer paths
// name: a Map of plain objects in a global (sessions), an array in a
// closure's context (onChange), a Set's and a WeakMap's entries, a
// concatenated string and a plain object with an odd property name. Their
// paths must name what the program named, step by step as DevTools'
// Retainers view does.
func TestRetainerPathNamesOfANodeProgram(t *testing.T) {
	devtoolsProject.require(t)
	dir := t.TempDir()
	script, err := filepath.Abs(filepath.Join(moduleRoot, "testdata/v8/names.js"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("node names.js: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "names.heapsnapshot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f := read(t, formatByName("v8"), data)
	nv, err := analysis.NewNavigator(analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
	if err != nil {
		t.Fatal(err)
	}
	// Each path as "edge in shown", holder by holder from the root side.
	steps := func(path []analysis.PathStep) string {
		var parts []string
		for _, st := range path[:len(path)-1] {
			parts = append(parts, st.Edge.Kind+" "+st.Edge.Label()+" in "+st.Shown)
		}
		return strings.Join(parts, " / ")
	}
	var ids []string
	byID := map[string][]analysis.PathStep{}
	for _, c := range []struct{ class, want string }{
		{"Session", `^property sessions in global / internal table in Map / internal \d+ in \(internal array\)\[\] / property session in \{session, opened\}$`},
		{"Handler", `^property watcher in global / internal context in onChange\(\) / context handlers in system / Context / element \[\d\] in Array$`},
		{"Entry", `^property seen in global / internal table in Set / internal \d+ in \(internal array\)\[\]$`},
		{"Tagged", `^property tags in global / internal table in WeakMap / internal \d+ / part of key \(Object @\d+\) -> value \(Tagged @\d+\) pair in WeakMap \(table @\d+\) in \(internal array\)\[\]$`},
	} {
		nodes := nv.ClassNodes(c.class, -1)
		if len(nodes) == 0 {
			t.Errorf("no %s in the heap", c.class)
			continue
		}
		for _, i := range nodes {
			path := nv.ShortestPath(i)
			if len(path) < 2 {
				t.Errorf("%s %s: no path", c.class, nv.Ref(i))
				continue
			}
			if got := steps(path); !regexp.MustCompile(c.want).MatchString(got) {
				t.Errorf("%s %s's path:\n  %s\nwant\n  %s", c.class, nv.Ref(i), got, c.want)
			}
			id := strconv.FormatUint(path[len(path)-1].ID, 10)
			ids = append(ids, id)
			byID[id] = path
		}
	}
	// What the globals hold directly: the objects' own shown names.
	global := -1
	for _, i := range nv.ClassNodes("global", -1) {
		for _, r := range nv.Edges(i) {
			if r.Name == "sessions" {
				global = i
			}
		}
	}
	if global < 0 {
		t.Fatal("no global holds sessions")
	}
	held := map[string]string{}
	for _, r := range nv.Edges(global) {
		held[r.Name] = nv.Shown(r.To)
	}
	for name, want := range map[string]string{
		"watcher": "onChange()",
		"motto":   `"a long line of text, and more of ita long line of text, and more of ita long line of text, and more of it0"`,
		"config":  `{host, "odd, name"}`, // port is a small integer: no edge
		"keys":    "Array",
	} {
		if held[name] != want {
			t.Errorf("global.%s is shown as %q, want %q", name, held[name], want)
		}
	}
	// And as DevTools' Retainers view, holder by holder.
	chains := devtoolsRetainers(t, file, ids)
	for _, id := range ids {
		path := byID[id]
		var got, want []string
		for k := len(path) - 2; k >= 0; k-- {
			got = append(got, fmt.Sprintf("%s in %s @%d", path[k].Edge.Name, path[k].Shown, path[k].ID))
		}
		for _, r := range chains[id] {
			want = append(want, fmt.Sprintf("%s in %s @%d", r.Edge, r.Shown, r.ID))
		}
		if !slices.Equal(got, want) {
			t.Errorf("@%s: heapconv's path\n  %s\nDevTools' Retainers view\n  %s", id, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	t.Logf("%d paths of names.js's objects name their steps as DevTools does", len(ids))
}
