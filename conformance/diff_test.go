package conformance

import (
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

// TestDiffFindsNodeLeak runs a Node program (testdata/v8/leak.js) that
// takes a heap snapshot, leaks N objects of a class and keeps M objects of
// another only until a second snapshot, then takes a third. Compared, the
// three real snapshots must show exactly N more objects of the leaked
// class, the N and the M objects as new in the second, and exactly the N
// still alive in the third, held from the global the program stores them
// in.
func TestDiffFindsNodeLeak(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the suite makes real V8 snapshots with it")
	}
	const leaked, temporary = 137, 59
	dir := t.TempDir()
	script, err := filepath.Abs(filepath.Join(moduleRoot, "testdata/v8/leak.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, dir, strconv.Itoa(leaked), strconv.Itoa(temporary))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node leak.js: %v\n%s", err, out)
	}
	var heaps []analysis.Heap
	for k := 1; k <= 3; k++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("s%d.heapsnapshot", k)))
		if err != nil {
			t.Fatal(err)
		}
		f := read(t, formatByName("v8"), data)
		heaps = append(heaps, analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
	}
	c, err := analysis.Compare(heaps, analysis.CompareOptions{Retained: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity != "V8 node ids" {
		t.Fatalf("identity %q, want V8 node ids", c.Identity)
	}
	var counts []uint64
	for _, row := range c.Classes {
		if row.Name == "LeakedThing" {
			counts = row.Count
		}
	}
	if fmt.Sprint(counts) != fmt.Sprint([]uint64{0, leaked, leaked}) {
		t.Errorf("LeakedThing counts %v, want [0 %d %d]", counts, leaked, leaked)
	}
	// By class name: a group names its class with the allocation
	// location DevTools splits it by ("LeakedThing at script 81 line 7
	// column 32").
	className := func(g analysis.ObjectGroup) string {
		name, _, _ := strings.Cut(g.Class, " at script ")
		return name
	}
	groups := func(gs []analysis.ObjectGroup) map[string]uint64 {
		m := map[string]uint64{}
		for _, g := range gs {
			m[className(g)] += g.Count
		}
		return m
	}
	if n := groups(c.New); n["LeakedThing"] != leaked || n["Temporary"] != temporary {
		t.Errorf("new in the second snapshot: %d LeakedThing and %d Temporary, want %d and %d", n["LeakedThing"], n["Temporary"], leaked, temporary)
	}
	if n := groups(c.Leaked); n["LeakedThing"] != leaked || n["Temporary"] != 0 {
		t.Errorf("still alive in the third: %d LeakedThing and %d Temporary, want %d and 0", n["LeakedThing"], n["Temporary"], leaked)
	}
	for _, g := range c.Leaked {
		if className(g) != "LeakedThing" {
			continue
		}
		if !strings.Contains(g.Class, " at script ") {
			t.Errorf("the group %q does not name its allocation location", g.Class)
		}
		if g.Count != leaked || len(g.Path) != 3 || g.Path[0].Edge == nil || g.Path[0].Edge.Name != "leakBox" || !g.Path[1].Edge.Indexed {
			out, _ := json.Marshal(g)
			t.Errorf("the leaked objects are not one group held by global.leakBox[i]: %s", out)
		}
	}
}

// TestDiffMoarVMGrowth compares the snapshots of a real MoarVM file with
// each other. MoarVM counts the objects of its most common types in each
// snapshot itself (its highscores, which the file's independently made
// expected summary holds); the growth diff finds for those types between
// any two snapshots must be MoarVM's, and diff must say that MoarVM objects
// have no identity to match.
func TestDiffMoarVMGrowth(t *testing.T) {
	const name = "nqp-3snap"
	data := loadFixture(t, filepath.Join(moduleRoot, "testdata/moarvm", name+".mvmheap"))
	f := read(t, formatByName("moarvm"), data)
	raw, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/moarvm", name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected struct {
		Snapshots []struct {
			Highscores struct {
				TypesByCount [][3]any `json:"types_by_count"`
			} `json:"highscores_top3"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	// The summary lists the file's table of contents too, after the snapshots.
	if len(expected.Snapshots) < len(f.Snapshots) || len(f.Snapshots) < 3 {
		t.Fatalf("%d snapshots, expected summary has %d", len(f.Snapshots), len(expected.Snapshots))
	}
	count := func(k int, typ string) (float64, bool) {
		for _, e := range expected.Snapshots[k].Highscores.TypesByCount {
			if e[1] == typ {
				return e[2].(float64), true
			}
		}
		return 0, false
	}
	checked := 0
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		c, err := analysis.Compare([]analysis.Heap{
			{File: f, Snapshot: f.Snapshots[pair[0]]}, {File: f, Snapshot: f.Snapshots[pair[1]]},
		}, analysis.CompareOptions{By: analysis.ByCount})
		if err != nil {
			t.Fatal(err)
		}
		if c.Identity != "" || c.New != nil {
			t.Errorf("snapshots %v: MoarVM objects matched by identity (%q)", pair, c.Identity)
		}
		for _, row := range c.Classes {
			a, okA := count(pair[0], row.Name)
			b, okB := count(pair[1], row.Name)
			if !okA || !okB {
				continue
			}
			checked++
			if got, want := row.Growth(analysis.ByCount), int64(b-a); got != want {
				t.Errorf("snapshots %v: %s grew by %d, MoarVM counts %d", pair, row.Name, got, want)
			}
		}
	}
	if checked < 6 {
		t.Errorf("only %d class growths checked", checked)
	}
}
