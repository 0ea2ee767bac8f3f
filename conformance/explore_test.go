package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapconv/heapconv/explore"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir/analysis"
)

// exploreCheck is explore.js's line.
type exploreCheck struct {
	Errors, Requests []string
	Summary          [][]string
	Instances        []string
	Object           struct {
		Title string
		Facts map[string]string
		URL   string
	}
	Path, Dominators, Retainers []string
	Nested                      [][]string
	Dominator                   string
	Search                      []string
	Tree                        [][]string
}

// TestExploreInChromium clicks through `heapconv explore` in headless
// Chromium as a person does. On a real Node heap, a MoarVM file, a Dart
// heap and a Fuchsia profile with its blocks' contents: the Summary, a class, its largest object, its retainers two
// levels down, its dominator, a search by its id; what the page shows must
// be what `info --by retained` and `paths` say of the same heap and
// object. On three snapshots of a Node server that leaks sessions (made by
// testdata/v8/sessions.js) and of the NQP sample, whose hash fills: the
// comparison, whose first suspect is the one `diff` finds, named as diff
// names it, with its holder opening as an object. The page asks nothing
// of any other server. One browser runs every case.
func TestExploreInChromium(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	browserProject.require(t)
	bin := buildHeapconv(t)
	script, err := filepath.Abs(filepath.Join("browser", "explore.js"))
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		Mode  string `json:"mode"`
		URL   string `json:"url"`
		Class string `json:"class"`
		Shots string `json:"shots"`
	}
	type walkCase struct {
		name  string
		in    []string // the flags and the file
		rows  []infoRow
		class string
	}
	var jobs []job
	var walks []walkCase
	fuchsia := filepath.Join(moduleRoot, "testdata/fuchsia/gen-current-tags")
	for _, c := range []struct {
		name string
		in   []string
	}{
		{"v8", []string{"testdata/v8/node26.heapsnapshot.zst"}},
		{"moarvm", []string{"testdata/moarvm/nqp-3snap.mvmheap#2"}},
		{"dart", []string{"testdata/dart/flutter-export-3k.dartheap.zst"}},
		// A native heap with its blocks' pointers as edges, and
		// allocation stacks.
		{"fuchsia", []string{"--contents", fuchsia + ".contents", "--scan-pointers", "testdata/fuchsia/gen-current-tags.pb"}},
	} {
		in := slices.Clone(c.in)
		in[len(in)-1] = filepath.Join(moduleRoot, in[len(in)-1])
		// What info says: the class to open is the first with more than
		// one object and a name of its own.
		var info struct {
			Snapshots []struct {
				TopClasses []infoRow `json:"top_classes"`
			}
		}
		runJSON(t, bin, &info, append([]string{"info", "--json", "--by", "retained", "--top", "10"}, in...)...)
		rows := info.Snapshots[len(info.Snapshots)-1].TopClasses
		w := walkCase{name: c.name, in: in, rows: rows}
		for _, r := range rows {
			if r.Count > 1 && r.Location == nil && !strings.HasPrefix(r.Name, "(") {
				w.class = r.Name
				break
			}
		}
		if w.class == "" {
			t.Fatalf("%s: no class to open among %+v", c.name, rows)
		}
		url, stop := startExplore(t, bin, in...)
		defer stop()
		shots := filepath.Join(t.ArtifactDir(), c.name)
		os.MkdirAll(shots, 0o755)
		jobs = append(jobs, job{"walk", url, w.class, shots})
		walks = append(walks, w)
	}
	rounds := sessionRounds(t)
	compares := []struct {
		name string
		in   []string
		want []string // in the first suspect: its holder, a class, a path step
	}{
		{"v8-leak", []string{filepath.Join(rounds, "round-1.heapsnapshot"), filepath.Join(rounds, "round-2.heapsnapshot"), filepath.Join(rounds, "round-3.heapsnapshot")},
			[]string{"Map", "Function onChange()", "sessions in global"}},
		{"moarvm-leak", []string{filepath.Join(moduleRoot, "testdata/moarvm/nqp-3snap.mvmheap")}, []string{"BOOTHash", "NQPArray", ""}},
	}
	for _, c := range compares {
		url, stop := startExplore(t, bin, c.in...)
		defer stop()
		shots := filepath.Join(t.ArtifactDir(), c.name)
		os.MkdirAll(shots, 0o755)
		jobs = append(jobs, job{Mode: "compare", URL: url, Shots: shots})
	}
	spec := filepath.Join(t.TempDir(), "jobs.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(spec, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, spec)
	cmd.Dir = "browser"
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node explore.js: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(jobs) {
		t.Fatalf("explore.js reported %d of %d cases\n%s", len(lines), len(jobs), stderr.String())
	}
	for k, w := range walks {
		t.Run(w.name, func(t *testing.T) { checkExploreWalk(t, bin, w.in, w.class, w.rows, lines[k]) })
	}
	for k, c := range compares {
		t.Run(c.name, func(t *testing.T) {
			var got struct {
				Errors, Requests []string
				Suspects         []struct {
					Holder        string
					Classes, Path []string
				}
				Changes int
				Holder  string
			}
			if err := json.Unmarshal([]byte(lines[len(walks)+k]), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Errors) > 0 || len(got.Requests) > 0 {
				t.Fatalf("errors %q, requests beyond the server %q", got.Errors, got.Requests)
			}
			if len(got.Suspects) == 0 || got.Changes == 0 {
				t.Fatalf("%d suspects, %d class rows", len(got.Suspects), got.Changes)
			}
			first := got.Suspects[0]
			if !strings.HasPrefix(first.Holder, c.want[0]) || !strings.Contains(strings.Join(first.Classes, "\n"), c.want[1]) ||
				!strings.Contains(strings.Join(first.Path, "\n"), c.want[2]) {
				t.Errorf("first suspect %+v, want holder %q, class %q, path step %q", first, c.want[0], c.want[1], c.want[2])
			}
			if !strings.HasPrefix(got.Holder, c.want[0]) {
				t.Errorf("the holder opened as %q", got.Holder)
			}
		})
	}
}

// infoRow is a class row of `heapconv info --json`.
type infoRow struct {
	Name     string
	Location *struct{ ScriptID, Line, Column int } `json:"location"`
	Count    uint64
	Self     uint64 `json:"self_size"`
	Retained uint64 `json:"retained_size"`
}

// checkExploreWalk checks explore.js's line of a walk through heap in
// against info's rows and paths' view of the object it opened.
func checkExploreWalk(t *testing.T, bin string, in []string, class string, rows []infoRow, line string) {
	var got exploreCheck
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if len(got.Errors) > 0 || len(got.Requests) > 0 {
		t.Fatalf("errors %q, requests beyond the server %q", got.Errors, got.Requests)
	}
	// The Summary's first rows are info's.
	plain := func(s string) string { return strings.ReplaceAll(s, ",", "") }
	for k, r := range rows {
		if k >= len(got.Summary) {
			t.Fatalf("the Summary shows %d rows, info %d", len(got.Summary), len(rows))
		}
		want := []string{r.Name, fmt.Sprint(r.Count), fmt.Sprint(r.Self), fmt.Sprint(r.Retained)}
		g := got.Summary[k]
		if r.Location != nil {
			want[0] = g[0] // a located class's label says where
		}
		if len(g) != 4 || g[0] != want[0] || plain(g[1]) != want[1] || plain(g[2]) != want[2] || plain(g[3]) != want[3] {
			t.Errorf("Summary row %d = %q, info says %q", k, g, want)
		}
	}
	if len(got.Instances) == 0 || len(got.Retainers) == 0 || len(got.Nested) == 0 || len(got.Nested[0]) == 0 {
		t.Fatalf("instances %q, retainers %q, nested %q", got.Instances, got.Retainers, got.Nested)
	}
	// The object as paths sees it.
	ref := got.Object.Facts["id"]
	var paths struct {
		Objects []struct {
			Object struct {
				Class    string
				Self     uint64 `json:"self_size"`
				Retained uint64 `json:"retained_size"`
			}
			Path       []struct{ Ref string }
			Dominators []struct{ Ref string }
		}
	}
	runJSON(t, bin, &paths, append([]string{"paths", "--id", ref, "--json"}, in...)...)
	if len(paths.Objects) != 1 {
		t.Fatalf("paths --id %s: %d objects", ref, len(paths.Objects))
	}
	p := paths.Objects[0]
	if p.Object.Class != class || plain(got.Object.Facts["self size"]) != fmt.Sprint(p.Object.Self, " bytes") ||
		plain(got.Object.Facts["retained size"]) != fmt.Sprint(p.Object.Retained, " bytes") {
		t.Errorf("object %s: page %q, paths %+v", ref, got.Object.Facts, p.Object)
	}
	var wantPath, wantDoms []string
	for _, st := range p.Path {
		wantPath = append(wantPath, st.Ref)
	}
	for _, st := range p.Dominators {
		wantDoms = append(wantDoms, st.Ref)
	}
	if strings.Join(got.Path, " ") != strings.Join(wantPath, " ") {
		t.Errorf("retainer path %q, paths says %q", got.Path, wantPath)
	}
	if strings.Join(got.Dominators, " ") != strings.Join(wantDoms, " ") {
		t.Errorf("dominators %q, paths says %q", got.Dominators, wantDoms)
	}
	if !regexp.MustCompile(`#/h/0/o/\d+$`).MatchString(got.Object.URL) {
		t.Errorf("the object's address %q names no object", got.Object.URL)
	}
	if len(wantDoms) > 1 && (got.Dominator == "" || got.Dominator == got.Object.Title) {
		t.Errorf("following the dominator showed %q (the object was %q)", got.Dominator, got.Object.Title)
	}
	if len(got.Search) == 0 || !strings.HasSuffix(got.Search[0], ref) {
		t.Errorf("searching %s found %q", ref, got.Search)
	}
	if len(got.Tree) != 2 || len(got.Tree[0]) == 0 || len(got.Tree[1]) == 0 {
		t.Errorf("the dominator tree showed %q", got.Tree)
	}
}

// runJSON runs heapconv and decodes its standard output into v.
func runJSON(t *testing.T, bin string, v any, args ...string) {
	t.Helper()
	code, stdout, stderr := runHeapconv(t, bin, args...)
	if code != 0 {
		t.Fatalf("heapconv %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("heapconv %s: %v", strings.Join(args, " "), err)
	}
}

// startExplore runs heapconv explore on the INs and returns the address it
// printed, and a function that interrupts it and checks it ended as an
// interrupted command does (status 130).
func startExplore(t *testing.T, bin string, in ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"explore"}, in...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://\S+`).FindString(sc.Text()); m != "" {
				found <- m
			}
		}
		close(found)
	}()
	select {
	case url = <-found:
	case <-time.After(2 * time.Minute):
	}
	if url == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("heapconv explore printed no address")
	}
	return url, func() {
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		if cmd.ProcessState.ExitCode() != 130 {
			t.Errorf("heapconv explore after SIGINT: %v (exit %d), want status 130", err, cmd.ProcessState.ExitCode())
		}
	}
}

// TestExploreEveryFixture serves the fixtures of every format (by default
// the first and last of each; every one with HEAPCONV_EXHAUSTIVE=1) and
// asks every endpoint about the top of the dominator tree, the largest
// objects of the class that retains the most, and objects spread over the
// heap: each answer is a 200 with JSON, whatever the heap's shape (no
// root, samples without edges, several snapshots).
func TestExploreEveryFixture(t *testing.T) {
	t.Parallel()
	for _, fm := range table {
		if fm.fixtures == "" {
			continue
		}
		paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no fixtures", fm.name)
		}
		picked := 0
		for k, path := range paths {
			if !sampling.Exhaustive() && k != 0 && k != len(paths)-1 {
				continue
			}
			picked++
			t.Run(fm.name+"/"+fixtureName(path), func(t *testing.T) {
				f := read(t, fm, loadFixture(t, path))
				var heaps []analysis.Heap
				for _, s := range f.Snapshots {
					heaps = append(heaps, analysis.Heap{File: f, Snapshot: s})
				}
				srv, err := explore.New(heaps, explore.Options{Token: "t"})
				if err != nil {
					t.Fatal(err)
				}
				get := func(path string, v any) {
					t.Helper()
					req := httptest.NewRequest("GET", "http://127.0.0.1/api/v1"+path, nil)
					req.Header.Set("Authorization", "Bearer t")
					rec := httptest.NewRecorder()
					srv.Handler().ServeHTTP(rec, req)
					if rec.Code != 200 || !json.Valid(rec.Body.Bytes()) {
						t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
					}
					if v != nil {
						json.Unmarshal(rec.Body.Bytes(), v)
					}
				}
				for h := range heaps {
					base := fmt.Sprintf("/heaps/%d", h)
					var classes explore.Page[explore.Class]
					get(base+"/classes", &classes)
					get(base+"/kinds", nil)
					var nodes []int
					var tops explore.Page[explore.Object]
					get(base+"/dominator-tree", &tops)
					for _, o := range tops.Items {
						nodes = append(nodes, o.Node)
					}
					if len(classes.Items) > 0 {
						var objs explore.Page[explore.Object]
						get(fmt.Sprintf("%s/classes/%d/objects?limit=5", base, classes.Items[0].Index), &objs)
						for _, o := range objs.Items {
							nodes = append(nodes, o.Node)
						}
					}
					n := heaps[h].Snapshot.Nodes.Len()
					for k := range 5 {
						if n > 0 {
							nodes = append(nodes, k*(n-1)/4)
						}
					}
					var info explore.Heap
					get(base, &info)
					stacks := 0
					for _, i := range nodes[:min(len(nodes), 12)] {
						var d explore.ObjectDetail
						get(fmt.Sprintf("%s/objects/%d", base, i), &d)
						if len(d.Stack) > 0 {
							stacks++
						}
						for _, v := range []string{"/fields", "/retainers", "/path", "/dominators", "/dominated"} {
							get(fmt.Sprintf("%s/objects/%d%s", base, i, v), nil)
						}
					}
					// A heap of allocation stacks shows them (V8 keeps them
					// only for what was allocated while it tracked: the
					// heap's last objects, looked at from the end).
					for i := n - 1; info.Stacks && stacks == 0 && i >= 0 && i >= n-2000; i-- {
						var d explore.ObjectDetail
						get(fmt.Sprintf("%s/objects/%d", base, i), &d)
						if len(d.Stack) > 0 {
							stacks++
						}
					}
					if info.Stacks && stacks == 0 {
						t.Errorf("heap %d has allocation stacks, but no object shows one", h)
					}
					get(base+"/search?q=a", nil)
				}
				if len(heaps) > 1 {
					get("/compare", nil)
				}
			})
		}
		sampling.Logf(t, picked, len(paths), fm.name+" fixtures served")
	}
}
