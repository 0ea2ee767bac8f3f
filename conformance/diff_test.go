package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
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
	heaps := readV8Series(t, filepath.Join(dir, "s%d.heapsnapshot"), 3)
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

// readmeLeakTest returns the shell lines of the README's CI leak test.
func readmeLeakTest(t *testing.T) []string {
	t.Helper()
	_, s, _ := strings.Cut(readmeSection(t, "A leak test in CI"), "```sh\n")
	block, _, _ := strings.Cut(s, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "node ") {
		t.Fatalf("the README's leak test has %d lines, want mkdir, node and heapconv: %q", len(lines), lines)
	}
	return lines
}

// TestREADMELeakTest runs the README's leak test as a CI job would, with
// heapconv on PATH: on the leaking server it exits with status 3 and
// prints the sessions' Map as the first suspect, the global's property
// and the closure's function named; the same server without the leak
// passes (status 0).
func TestREADMELeakTest(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the suite makes real V8 snapshots with it")
	}
	bin := buildHeapconv(t)
	lines := readmeLeakTest(t)
	for _, tc := range []struct {
		name   string
		logins string // appended to the node line
		status int
	}{{"leaking", "", 3}, {"not leaking", " 0", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := strings.ReplaceAll(lines[0]+"\n"+lines[1]+tc.logins+"\n"+lines[2]+"\n", "/tmp/heapconv", dir)
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = moduleRoot
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			if x, ok := err.(*exec.ExitError); ok {
				status = x.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tc.status {
				t.Fatalf("exit status %d, want %d\n%s\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			if tc.status == 0 {
				return
			}
			out := stdout.String()
			first, _, _ := strings.Cut(out[strings.Index(out, " 1. "):], "\n 2. ")
			for _, want := range []string{" 1. Map @", "sessions in global @", "Function onChange()"} {
				if !strings.Contains(first, want) {
					t.Errorf("the first suspect does not show %q:\n%s", want, first)
				}
			}
			if !strings.Contains(stderr.String(), "grew in every one of the 3 steps") {
				t.Errorf("stderr does not say what grew: %s", stderr.String())
			}
			for _, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); n > 100 && !strings.HasPrefix(line, "#") {
					t.Errorf("a line of %d characters:\n%s", n, line)
				}
			}
		})
	}
}

// TestDiffFindsServerLeak plants a leak in a small HTTP server (a global
// Map of sessions, each with a closure, a prefs object and strings;
// testdata/v8/sessions.js), takes three snapshots of it, and requires
// diff to name the leak as its first suspect, alone: the Map, held by the
// global's property "sessions", holding ≥ 95% of the leaked memory and
// every leaked session with its closure (named by its function, onChange),
// the path from the roots passing through the property.
func TestDiffFindsServerLeak(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the suite makes real V8 snapshots with it")
	}
	heaps := readV8Series(t, filepath.Join(sessionRounds(t), "round-%d.heapsnapshot"), 3)
	c, err := analysis.Compare(heaps, analysis.CompareOptions{Retained: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Suspects) == 0 {
		t.Fatal("no suspects")
	}
	s := c.Suspects[0]
	if s.Holder.Class != "Map" || s.Share < 0.95 {
		t.Errorf("first suspect: %s holding %.1f%% of the leaked memory, want the Map with ≥ 95%%", s.Holder, 100*s.Share)
	}
	counts := map[string]uint64{}
	for _, g := range s.Classes {
		counts[g.Class+" "+g.Name] += g.Count
	}
	if counts["{id, token, prefs, onChange} "] != 500 || counts["Function onChange()"] != 500 || counts["{theme, lang, user} "] != 500 {
		t.Errorf("the first suspect's classes: %v, want 500 sessions, 500 onChange closures and 500 prefs", counts)
	}
	if k := s.HolderStep; k < 1 || s.Path[k-1].Edge == nil || s.Path[k-1].Edge.Name != "sessions" {
		t.Errorf("the path does not reach the holder by the property sessions: %v", s.Path)
	}
	for _, other := range c.Suspects[1:] {
		for _, g := range other.Classes {
			if g.Name == "onChange" || strings.HasPrefix(g.Class, "{id, token") {
				t.Errorf("suspect %s holds %d %s %s too: the leak is split", other.Holder, g.Count, g.Class, g.Name)
			}
		}
	}
	var leaked uint64
	for _, g := range c.Leaked {
		leaked += g.Count
	}
	// The retained size of the set, not the sum of each session's: the
	// Map's table, new since the Map last grew, is among what they keep.
	if s.Retained < s.SelfSize {
		t.Errorf("the suspect retains %d bytes, less than its objects' %d", s.Retained, s.SelfSize)
	}
	t.Logf("first suspect %s: %d objects of %d leaked, %d bytes retained, %.1f%%", s.Holder, s.Count, leaked, s.Retained, 100*s.Share)
}

// TestDiffFindsMoarVMHashLeak runs an NQP program under Debian's MoarVM
// with its heap profiler, which writes a snapshot at every collection,
// while the program fills a hash; diff of the snapshots up to the largest
// (the last may be taken at exit, when the hash is gone), whose objects
// have no identity, must name the hash as the first suspect, alone, with
// ≥ 95% of the growth.
func TestDiffFindsMoarVMHashLeak(t *testing.T) {
	t.Parallel()
	nqp := requireNQP(t)
	file := filepath.Join(t.TempDir(), "fill.mvmheap")
	cmd := exec.Command(nqp, "--profile=heap", "--profile-filename="+file, "-e",
		`my %h; my $i := 0; while $i < 60000 { %h{"k" ~ $i} := nqp::list($i, "v" ~ $i); $i++ }; say(nqp::elems(%h))`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nqp: %v\n%s", err, out)
	}
	bin := buildHeapconv(t)
	// The snapshots while the hash fills: up to the largest. The profiler
	// may take one more at exit, when the hash is gone.
	out, err := exec.Command(bin, "info", "--json", "--top", "1", file).Output()
	if err != nil {
		t.Fatalf("heapconv info: %v", err)
	}
	var info struct {
		Snapshots []struct {
			Nodes uint64 `json:"nodes"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	largest := 0
	for k, s := range info.Snapshots {
		if s.Nodes >= info.Snapshots[largest].Nodes {
			largest = k
		}
	}
	if largest < 2 {
		t.Fatalf("the largest of the %d snapshots is #%d: the hash did not fill over several", len(info.Snapshots), largest)
	}
	// Without the classes' retained sizes, whose dominator trees of every
	// snapshot the suspects do not need (only the first's and the last's).
	out, err = exec.Command(bin, "diff", "--json", "--retained=false", fmt.Sprintf("%s#0..#%d", file, largest)).Output()
	if err != nil {
		t.Fatalf("heapconv diff: %v", err)
	}
	var d struct {
		Heaps      []json.RawMessage  `json:"heaps"`
		SuspectsBy string             `json:"suspects_by"`
		Suspects   []analysis.Suspect `json:"suspects"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Heaps) < 3 || d.SuspectsBy != "growth" || len(d.Suspects) == 0 {
		t.Fatalf("%d snapshots compared, suspects by %q: %d", len(d.Heaps), d.SuspectsBy, len(d.Suspects))
	}
	s := d.Suspects[0]
	if s.Holder.Class != "BOOTHash" || s.Share < 0.95 || s.Count < 60000 {
		t.Errorf("first suspect %s: +%d objects, %.1f%% of the growth; want the BOOTHash with ≥ 95%%", s.Holder, s.Count, 100*s.Share)
	}
	t.Logf("%d snapshots: first suspect %s, +%d objects, +%d bytes retained, %.1f%% of the growth", len(d.Heaps), s.Holder, s.Count, s.Retained, 100*s.Share)
}

// TestDiffFindsDartLeak plants a leak in a real Dart VM (a global map of
// sessions, each with a closure over its prefs and a token string;
// testdata/capture/sessions.dart), captures its heap through the VM
// service before and after 500 more sessions, and requires diff's first
// suspect, of objects matched by identity hash code, to be the map, alone,
// with ≥ 95% of the leaked memory and every new session and closure.
func TestDiffFindsDartLeak(t *testing.T) {
	eachDartVM(t, func(t *testing.T, sass, version string, authCodes, newest bool) {
		dart := requireDart(t, sass)
		vm := startDart(t, dart, "testdata/capture/sessions.dart", authCodes)
		leaked := regexp.MustCompile(`^leaked$`)
		// Once before the first capture, so that the code of a login is
		// compiled by then.
		if _, err := vm.proc.command("leak 20", leaked); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var heaps []analysis.Heap
		for k, step := range []string{"", "leak 500"} {
			if step != "" {
				if _, err := vm.proc.command(step, leaked); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, fmt.Sprintf("s%d.dartheap", k))
			take(t, vm.URI, path, &heapconv.CaptureOptions{Capture: capture.Options{GC: true}})
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := read(t, formatByName("dart"), data)
			heaps = append(heaps, analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
		}
		c, err := analysis.Compare(heaps, analysis.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.SuspectsBy != "identity" || len(c.Suspects) == 0 {
			t.Fatalf("Dart %s: suspects by %q: %d (identity %q)", version, c.SuspectsBy, len(c.Suspects), c.Identity)
		}
		s := c.Suspects[0]
		counts := map[string]uint64{}
		for _, g := range s.Classes {
			counts[g.Class] += g.Count
		}
		if s.Share < 0.95 || counts["Session"] != 500 || counts["_Closure"] != 500 {
			t.Errorf("Dart %s: first suspect %s with %.1f%% of the leaked memory and classes %v; want the map with ≥ 95%%, 500 Sessions and 500 closures", version, s.Holder, 100*s.Share, counts)
		}
		if k := s.HolderStep; k < 1 || s.Path[k-1].Edge == nil || !strings.Contains(s.Path[k-1].Edge.Name, "sessions") {
			var steps []string
			for _, st := range s.Path {
				steps = append(steps, st.String())
			}
			t.Errorf("Dart %s: the path does not reach the holder by the field sessions: %v", version, steps)
		}
		for k, s := range c.Suspects[:min(len(c.Suspects), 3)] {
			t.Logf("Dart %s: suspect %d: %s (%s), %d objects, %d bytes retained, %.1f%%, %v", version, k+1, s.Holder, s.Holder.Shown, s.Count, s.Retained, 100*s.Share, s.Classes)
		}
	})
}

// requireNQP returns the path of Debian's nqp (on MoarVM), installing the
// package when it is missing and the user may.
func requireNQP(t *testing.T) string {
	t.Helper()
	path, err := installed("nqp", func() (string, error) {
		if path, err := exec.LookPath("nqp"); err == nil {
			return path, nil
		}
		if !canAptInstall() {
			return "", fmt.Errorf("nqp is missing and this user cannot install it: the MoarVM leak test runs Debian's nqp package")
		}
		if err := aptInstall("nqp"); err != nil {
			return "", err
		}
		return exec.LookPath("nqp")
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// readV8Series reads the V8 snapshots pattern names with %d from 1 to n.
func readV8Series(t *testing.T, pattern string, n int) []analysis.Heap {
	t.Helper()
	var heaps []analysis.Heap
	for k := 1; k <= n; k++ {
		data, err := os.ReadFile(fmt.Sprintf(pattern, k))
		if err != nil {
			t.Fatal(err)
		}
		f := read(t, formatByName("v8"), data)
		heaps = append(heaps, analysis.Heap{File: f, Snapshot: f.Snapshots[0]})
	}
	return heaps
}

// sessions is one run of testdata/v8/sessions.js, three rounds of 500
// logins, shared by the tests that read its snapshots.
var sessions struct {
	once sync.Once
	dir  string
	err  error
}

// sessionRounds returns the directory of the run's round-K.heapsnapshot
// files (K from 1 to 3), making them the first time.
func sessionRounds(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the suite makes real V8 snapshots with it")
	}
	sessions.once.Do(func() {
		if sessions.dir, sessions.err = os.MkdirTemp("", "heapconv-sessions-"); sessions.err != nil {
			return
		}
		cmd := exec.Command("node", filepath.Join(moduleRoot, "testdata/v8/sessions.js"), sessions.dir, "3", "500")
		if out, err := cmd.CombinedOutput(); err != nil {
			sessions.err = fmt.Errorf("node sessions.js: %v\n%s", err, out)
		}
	})
	if sessions.err != nil {
		t.Fatal(sessions.err)
	}
	return sessions.dir
}

// readmeSection returns the text of the README's section under "## "
// heading, up to the next section.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", "## "+heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}
