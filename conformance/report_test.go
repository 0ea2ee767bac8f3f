package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/report"
)

// browserProject drives headless Chromium, the judge of the HTML reports.
var browserProject = &nodeProject{dir: "browser", pkg: "playwright-core", purpose: "the browser driver (the judge of the HTML reports)"}

var (
	chromiumOnce sync.Once
	chromiumErr  error
)

// requireChromium returns Debian's headless Chromium, installing the
// package (as root, with apt-get) the first time it is missing.
func requireChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	chromiumOnce.Do(func() {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if !canAptInstall() {
			chromiumErr = fmt.Errorf("%s is missing and this user cannot install it: install Debian's chromium package (or set CHROMIUM)", path)
			return
		}
		if chromiumErr = aptInstall("chromium"); chromiumErr != nil {
			return
		}
		if _, err := os.Stat(path); err != nil {
			chromiumErr = fmt.Errorf("apt-get installed chromium, but %s is still missing", path)
		}
	})
	if chromiumErr != nil {
		t.Fatal(chromiumErr)
	}
	return path
}

// canAptInstall reports whether the tests may install a Debian package
// they need: apt-get exists and they run as root (as on CI).
func canAptInstall() bool {
	_, err := exec.LookPath("apt-get")
	return err == nil && os.Geteuid() == 0
}

// aptInstall installs Debian packages with apt-get, after updating its
// lists (a fresh machine has none). Callers check canAptInstall first.
func aptInstall(pkgs ...string) error {
	for _, args := range [][]string{{"update", "-qq"}, append([]string{"install", "-y", "-qq"}, pkgs...)} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// browserCheck is check.js's line for one report.
type browserCheck struct {
	File     string   `json:"file"`
	Errors   []string `json:"errors"`
	Requests []string `json:"requests"`
	Rows     int      `json:"rows"`
	Rects    int      `json:"rects"`
	Paths    int      `json:"paths"`
	Chart    int      `json:"chart"`
	Leaks    []struct {
		Title   string   `json:"title"`
		Classes []string `json:"classes"`
		Path    []string `json:"path"`
		Shown   bool     `json:"shown"`
	} `json:"leaks"`
	LeaksHeading string `json:"leaksHeading"`
	Sorted       bool   `json:"sorted"`
	Growth       *struct {
		Lines []struct {
			Class  string    `json:"class"`
			Stroke string    `json:"stroke"`
			Dash   string    `json:"dash"`
			Ys     []float64 `json:"ys"`
		} `json:"lines"`
		Labels [][4]float64 `json:"labels"`
		Height float64      `json:"height"`
		Legend int          `json:"legend"`
	} `json:"growth"`
	Treemap *struct {
		Layout struct {
			Cells    int     `json:"cells"`
			Outside  int     `json:"outside"`
			Overlaps int     `json:"overlaps"`
			AreaErr  float64 `json:"areaErr"`
		} `json:"layout"`
		Steps []treemapView `json:"steps"`
		Back  treemapView   `json:"back"`
		Keys  *struct {
			Focused int         `json:"focused"`
			Enter   treemapView `json:"enter"`
			Escape  treemapView `json:"escape"`
		} `json:"keys"`
	} `json:"treemap"`
}

// treemapView is the treemap after a click (check.js's view).
type treemapView struct {
	Clicked int    `json:"clicked"`
	Kind    int    `json:"kind"`
	Current int    `json:"current"`
	Crumbs  int    `json:"crumbs"`
	Rects   int    `json:"rects"`
	Info    string `json:"info"`
}

// growingSeries is n snapshots of a made-up program: 40 Big objects of
// 256 KiB each (10 MiB, steady, each holding a BigPart), a Registry
// holding 3 more Leak objects of 512 B at each snapshot (none at the
// first; each Leak holds a Closure), and a Cache of 10 to 12 objects of
// 1 KiB, up and down. Charted as absolute sizes, the leak would lie flat
// beside Big.
func growingSeries(n int) []analysis.Heap {
	var heaps []analysis.Heap
	for k := range n {
		f := &ir.File{Format: "test", Strings: []string{""}}
		s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "property"}}, Root: 0}
		edge := irtest.Strings(f, "x")[0]
		nodes := []irtest.Node{{Kind: 0, Name: irtest.Strings(f, "(root)")[0]}}
		add := func(holder int, name string, size uint64) int {
			nodes = append(nodes, irtest.Node{Kind: 1, Name: irtest.Strings(f, name)[0], Size: size})
			nodes[holder].Edges = append(nodes[holder].Edges, irtest.Edge{0, edge, uint32(len(nodes) - 1)})
			return len(nodes) - 1
		}
		for range 40 {
			add(add(0, "Big", 256<<10), "BigPart", 4<<10)
		}
		for range 4 {
			add(0, "Buffer", 2560<<10)
		}
		if k == n-1 {
			add(0, "Buffer", 8<<10)
		}
		reg := add(0, "Registry", 64)
		for range 3 * k {
			add(add(reg, "Leak", 512), "Closure", 64)
		}
		for range 10 + k%3 {
			add(0, "Cache", 1<<10)
		}
		irtest.Build(s, nodes, false)
		f.Snapshots = []*ir.Snapshot{s}
		heaps = append(heaps, analysis.Heap{File: f, Snapshot: s})
	}
	return heaps
}

// overlap reports whether two boxes [left, top, right, bottom] overlap.
func overlap(a, b [4]float64) bool {
	return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

// TestReportInChromium writes the HTML report of a heap of every format,
// and of the snapshots of a MoarVM file with their growth chart, and loads
// each in headless Chromium: no console error or exception, no request
// beyond the file (it loads nothing), the class table with every class up
// to its limit, the treemap and the retainer paths drawn, the growth chart
// where there are several snapshots, and the table sorting by count on a
// click. Each page's screenshot is kept as a test artifact (go test
// -artifacts keeps them under -outputdir).
//
// The growth charts (of the MoarVM file's 3 snapshots, and of 12 made-up
// ones, growingSeries, with a small leak beside a large steady class) draw
// the change since the first snapshot: the most grown class's line rises
// across the chart, the leak is charted and rises, the steady class is
// not; the lines' colours (and dashes) differ, each has a legend entry,
// and the snapshot labels shown do not overlap. Each treemap's first level
// lies inside the picture, its rectangles do not overlap and their areas
// follow their sizes; clicks (with the mouse, at a rectangle's centre)
// zoom in level by level, into a class's objects and then into one object
// where the heap has them, each shown with the breadcrumb one longer, and
// the breadcrumb's first entry leads back to the root; Enter on a focused
// rectangle zooms into it too, and Escape back out.
func TestReportInChromium(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	browserProject.require(t)
	cases := []struct {
		name  string
		file  string
		all   bool // every snapshot of the file, charted
		chart bool
	}{
		{"v8", "testdata/v8/node26.heapsnapshot.zst", false, false},
		{"dart", "testdata/dart/flutter-export-3k.dartheap.zst", false, false},
		{"moarvm", "testdata/moarvm/nqp-3snap.mvmheap", true, true},
		{"fuchsia", "testdata/fuchsia/gen-current-tags.pb", false, false},
		{"fuchsia-fidl", "testdata/fuchsia-fidl/reassembly-edges.fidlstream", false, false},
		{"ir", "testdata/samples/node26.heapir.zst", false, false},
		{"series", "", true, true},   // growingSeries
		{"sessions", "", true, true}, // testdata/v8/sessions.js's rounds
	}
	// The first leak suspect each page shows: its heading, and what its
	// classes and path must show.
	leak := map[string][]string{
		"sessions": {"Leak suspects", "Map @", "Function onChange()", "sessions in global @"},
		"series":   {"Leak suspects", "Registry", "Leak", ""},
		"moarvm":   {"Leak suspects", "BOOTHash @161", "NQPArray", ""},
		"v8":       {"Biggest holders", "", "", ""},
	}
	// The pages whose treemap has an object to zoom into two clicks down.
	deep := map[string]bool{"v8": true, "moarvm": true, "ir": true, "series": true, "sessions": true}
	dir := t.TempDir()
	art := t.ArtifactDir()
	var args []string
	want := map[string]int{} // report → classes it lists
	charted := map[string]bool{}
	for _, c := range cases {
		var heaps []analysis.Heap
		var names []string
		switch {
		case c.name == "sessions":
			rounds := sessionRounds(t)
			for k := 1; k <= 3; k++ {
				name := filepath.Join(rounds, fmt.Sprintf("round-%d.heapsnapshot", k))
				f, err := heapconv.ReadFile(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				heaps = append(heaps, analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
				names = append(names, filepath.Base(name))
			}
		case c.file == "":
			heaps = growingSeries(12)
			for k := range heaps {
				names = append(names, fmt.Sprintf("snap-%02d.heapsnapshot", k))
			}
		default:
			f, err := heapconv.ReadFile(filepath.Join(moduleRoot, c.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, s := range f.Snapshots {
				if c.all || k == len(f.Snapshots)-1 {
					heaps = append(heaps, analysis.Heap{File: f, Snapshot: s})
				}
			}
		}
		out := filepath.Join(dir, c.name+".html")
		if err := heapconv.WriteReport(out, heaps, &heapconv.ReportOptions{Report: report.Options{Title: c.name, Names: names}}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		last := heaps[len(heaps)-1]
		want[out] = min(len(analysis.ClassStats(last.File, last.Snapshot)), 500)
		charted[out] = c.chart
		args = append(args, out, filepath.Join(art, c.name+".png"))
	}
	script, err := filepath.Abs(filepath.Join("browser", "check.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Dir = "browser"
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node check.js: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	seen := 0
	for sc.Scan() {
		var r browserCheck
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		seen++
		name := filepath.Base(r.File)
		if len(r.Errors) > 0 || len(r.Requests) > 0 {
			t.Errorf("%s: errors %q, requests %q", name, r.Errors, r.Requests)
		}
		if r.Rows != want[r.File] || r.Rects == 0 || r.Paths == 0 || !r.Sorted {
			t.Errorf("%s: %d table rows (want %d), %d treemap rectangles, %d path steps, sorted by a click: %v", name, r.Rows, want[r.File], r.Rects, r.Paths, r.Sorted)
		}
		if w := leak[strings.TrimSuffix(name, ".html")]; w != nil {
			switch {
			case r.LeaksHeading != w[0] || len(r.Leaks) == 0:
				t.Errorf("%s: leak section %q with %d suspects, want %q", name, r.LeaksHeading, len(r.Leaks), w[0])
			case !r.Leaks[0].Shown || !strings.Contains(r.Leaks[0].Title, w[1]) ||
				!strings.Contains(strings.Join(r.Leaks[0].Classes, "\n"), w[2]) || !strings.Contains(strings.Join(r.Leaks[0].Path, "\n"), w[3]):
				t.Errorf("%s: the first suspect shows %q, classes %q, path %q; want %q", name, r.Leaks[0].Title, r.Leaks[0].Classes, r.Leaks[0].Path, w[1:])
			default:
				t.Logf("%s: first suspect %s", name, r.Leaks[0].Title)
			}
		}
		if (r.Chart > 0) != charted[r.File] {
			t.Errorf("%s: %d lines in the growth chart, want them: %v", name, r.Chart, charted[r.File])
		}
		if g := r.Growth; charted[r.File] && g != nil {
			drawn := map[string]bool{}
			rises := map[string]float64{}
			for _, l := range g.Lines {
				if drawn[l.Stroke+" "+l.Dash] {
					t.Errorf("%s: two lines drawn %s %q", name, l.Stroke, l.Dash)
				}
				drawn[l.Stroke+" "+l.Dash] = true
				if len(l.Ys) != len(g.Lines[0].Ys) || len(l.Ys) < 2 {
					t.Fatalf("%s: the line of %s has %d points", name, l.Class, len(l.Ys))
				}
				rises[l.Class] = l.Ys[0] - l.Ys[len(l.Ys)-1]
			}
			if top := g.Lines[0]; rises[top.Class] < 0.4*g.Height {
				t.Errorf("%s: the most grown class, %s, rises %.1f of %.0f pixels: %v", name, top.Class, rises[top.Class], g.Height, top.Ys)
			}
			if g.Legend != len(g.Lines) {
				t.Errorf("%s: %d legend entries for %d lines", name, g.Legend, len(g.Lines))
			}
			if len(g.Labels) < 2 {
				t.Errorf("%s: %d snapshot labels shown", name, len(g.Labels))
			}
			for i := range g.Labels {
				for j := range i {
					if overlap(g.Labels[i], g.Labels[j]) {
						t.Errorf("%s: snapshot labels %v and %v overlap", name, g.Labels[j], g.Labels[i])
					}
				}
			}
			if strings.HasPrefix(name, "series") {
				if rises["Leak"] < 0.4*g.Height {
					t.Errorf("%s: the Leak line rises %.1f of %.0f pixels; lines %v", name, rises["Leak"], g.Height, rises)
				}
				if _, ok := rises["Buffer"]; !ok {
					t.Errorf("%s: the Buffer, grown at the last, is not charted", name)
				}
				if _, ok := rises["Big"]; ok {
					t.Errorf("%s: the steady Big is charted", name)
				}
				if len(g.Labels) != 12 {
					t.Errorf("%s: %d of 12 snapshot labels shown", name, len(g.Labels))
				}
			}
			t.Logf("%s: %d lines, %d snapshot labels shown; rises %v", name, len(g.Lines), len(g.Labels), rises)
		} else if charted[r.File] {
			t.Errorf("%s: no growth chart described", name)
		}
		tm := r.Treemap
		if tm == nil {
			t.Errorf("%s: no treemap described", name)
			continue
		}
		if l := tm.Layout; l.Cells == 0 || l.Outside > 0 || l.Overlaps > 0 || l.AreaErr > 0.5 {
			t.Errorf("%s: treemap layout %+v", name, l)
		}
		object := false
		for k, st := range tm.Steps {
			if st.Current != st.Clicked || st.Crumbs != k+2 || st.Rects == 0 || st.Info == "" {
				t.Errorf("%s: click %d: %+v", name, k+1, st)
			}
			if st.Kind == 2 {
				object = object || strings.Contains(st.Info, "retains")
			}
		}
		if deep[strings.TrimSuffix(name, ".html")] && (len(tm.Steps) < 2 || !object) {
			t.Errorf("%s: the treemap opened %d levels (down to an object: %v): %+v", name, len(tm.Steps), object, tm.Steps)
		}
		if b := tm.Back; b.Current != 0 || b.Crumbs != 1 || b.Rects == 0 {
			t.Errorf("%s: back to the root by the breadcrumb: %+v", name, b)
		}
		if k := tm.Keys; len(tm.Steps) > 0 && (k == nil || k.Enter.Current != k.Focused || k.Enter.Crumbs != 2 || k.Escape.Current != 0 || k.Escape.Crumbs != 1) {
			t.Errorf("%s: Enter on a rectangle and Escape: %+v", name, k)
		}
		t.Logf("%s: treemap %+v, zoomed %d levels", name, tm.Layout, len(tm.Steps))
	}
	if seen != len(cases) {
		t.Fatalf("check.js reported on %d of %d pages\n%s", seen, len(cases), stderr.String())
	}
	t.Logf("screenshots in %s", art)
}
