package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir/analysis"
)

// devtoolsRetainer is one step of the retainer chain DevTools' Retainers
// view expands, as summary.js prints it (SUMMARY_RETAINERS).
type devtoolsRetainer struct {
	ID       uint64 `json:"id"`
	Name     string `json:"name"`
	Edge     string `json:"edge"`
	Type     string `json:"type"`
	Distance int64  `json:"distance"`
}

// TestRetainerPathsMatchDevTools holds `heapconv paths` to Chrome DevTools'
// Retainers view on a real Node heap: for objects spread over the heap, the
// shortest retainer path analysis.Navigator finds is, holder by holder and
// edge by edge, the chain the Retainers view expands on its own when the
// object is selected (its first retainer, that one's first, and so on down
// to a JavaScript global), and each holder's distance is DevTools'.
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
			got = append(got, fmt.Sprintf("@%d --%s %s--> (distance %d)", st.ID, st.Edge.Kind, st.Edge.Name, st.Distance))
		}
		var wantSteps []string
		for _, r := range chain {
			wantSteps = append(wantSteps, fmt.Sprintf("@%d --%s %s--> (distance %d)", r.ID, r.Type, r.Edge, r.Distance))
		}
		if strings.Join(got, "\n") != strings.Join(wantSteps, "\n") {
			t.Errorf("@%s (%s): heapconv's retainer path differs from DevTools' Retainers view\nheapconv:\n  %s\nDevTools:\n  %s",
				id, nv.Class(byID[id]), strings.Join(got, "\n  "), strings.Join(wantSteps, "\n  "))
			continue
		}
		checked++
	}
	t.Logf("%d objects' retainer paths equal DevTools' Retainers view", checked)
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
