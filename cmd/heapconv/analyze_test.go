package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var td = filepath.Join("..", "..", "testdata")

// cliCase is one command line of a table-driven test: its input, exit
// status, and what its output must contain.
type cliCase struct {
	name   string
	stdin  []byte
	args   []string
	code   int
	stdout string // substring
	stderr string // substring
}

// runCases runs each case as a subtest; a case that fails stops the rest
// (later cases may depend on what earlier ones wrote).
func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, tc := range cases {
		ok := t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d\nstdout (want %q in it):\n%.2000s\nstderr (want %q in it):\n%s", code, tc.code, tc.stdout, stdout, tc.stderr, stderr)
			}
		})
		if !ok {
			return
		}
	}
}

// oneHeapOfEachFormat names a heap of every format heapconv reads: one
// snapshot of a file (with #N where the file holds several), and the flags
// it needs.
var oneHeapOfEachFormat = []struct {
	format string
	heap   string
	flags  []string
}{
	{"v8", filepath.Join(smallDir, "rows.heapsnapshot"), nil},
	{"v8 (compressed, real)", filepath.Join(td, "v8", "node22.heapsnapshot.zst"), nil},
	{"dart", filepath.Join(td, "dart", "flutter-export-3k.dartheap.zst"), nil},
	{"moarvm", filepath.Join(td, "moarvm", "nqp-3snap.mvmheap") + "#1", nil},
	{"moarvm v2", filepath.Join(td, "moarvm", "nqp-1snap-v002.mvmheap.gz"), nil},
	{"fuchsia", filepath.Join(td, "fuchsia", "gen-newest-multi.pb.gz") + "#1", nil},
	{"fuchsia with contents", filepath.Join(td, "fuchsia", "gen-current-tags.pb"), []string{"--contents", filepath.Join(td, "fuchsia", "gen-current-tags.contents"), "--scan-pointers"}},
	{"fuchsia-fidl", filepath.Join(td, "fuchsia-fidl", "ffx-test.fidlstream"), nil},
	{"ir", filepath.Join(td, "samples", "node26.heapir.zst"), nil},
}

// TestDiffAndPathsEveryFormat runs diff (a heap against itself: nothing
// grows, and where objects have identities nothing is new) and paths (of
// the class with the largest retained size) on a heap of every format.
func TestDiffAndPathsEveryFormat(t *testing.T) {
	for _, tc := range oneHeapOfEachFormat {
		t.Run(tc.format, func(t *testing.T) {
			args := append(append([]string{"diff", "--json", "--top", "0"}, tc.flags...), tc.heap, tc.heap)
			code, stdout, stderr := cliRun(t, nil, args...)
			if code != 0 {
				t.Fatalf("diff: exit %d: %s", code, stderr)
			}
			var d diffJSON
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatalf("diff --json: %v\n%s", err, stdout)
			}
			if d.ClassesTotal == 0 || len(d.Classes) != d.ClassesTotal {
				t.Errorf("diff listed %d of %d classes with --top 0", len(d.Classes), d.ClassesTotal)
			}
			for _, c := range d.Classes {
				if c.Growth("count") != 0 || c.Growth("self") != 0 || c.Growth("retained") != 0 || len(c.Retained) != 2 {
					t.Errorf("a heap compared with itself: %+v", c)
				}
			}
			if d.NewTotal != 0 {
				t.Errorf("a heap compared with itself has %d new objects", d.NewTotal)
			}
			args = append(append([]string{"info", "--json", "--by", "retained", "--top", "1"}, tc.flags...), tc.heap)
			if strings.Contains(tc.heap, "#") {
				file, n, _ := strings.Cut(tc.heap, "#")
				args = append(append([]string{"info", "--json", "--by", "retained", "--top", "1", "--snapshot", n}, tc.flags...), file)
			}
			code, stdout, stderr = cliRun(t, nil, args...)
			if code != 0 {
				t.Fatalf("info: exit %d: %s", code, stderr)
			}
			var info infoJSON
			if err := json.Unmarshal([]byte(stdout), &info); err != nil || len(info.Snapshots) != 1 || len(info.Snapshots[0].TopClasses) != 1 {
				t.Fatalf("info --json: %v\n%s", err, stdout)
			}
			top := info.Snapshots[0].TopClasses[0]
			args = append(append([]string{"paths", "--json", "--max", "2", "--class", top.Name}, tc.flags...), tc.heap)
			code, stdout, stderr = cliRun(t, nil, args...)
			if code != 0 {
				t.Fatalf("paths: exit %d: %s", code, stderr)
			}
			var p pathsJSON
			if err := json.Unmarshal([]byte(stdout), &p); err != nil {
				t.Fatalf("paths --json: %v\n%s", err, stdout)
			}
			if len(p.Objects) == 0 || len(p.Objects) > 2 {
				t.Fatalf("paths --max 2 listed %d objects", len(p.Objects))
			}
			o := p.Objects[0]
			if o.Object.Class != top.Name {
				t.Errorf("paths --class %q listed an object of class %q", top.Name, o.Object.Class)
			}
			if n := len(o.Path); n > 0 && o.Path[n-1].Node != o.Object.Node {
				t.Errorf("the path ends at node %d, not the object %d", o.Path[n-1].Node, o.Object.Node)
			}
			for k := 0; k+1 < len(o.Path); k++ {
				if o.Path[k].Edge == nil || o.Path[k].Edge.To != o.Path[k+1].Node {
					t.Errorf("step %d of the path does not hold step %d", k, k+1)
				}
			}
			if n := len(o.Dominators); n > 0 && o.Dominators[n-1].Node != o.Object.Node {
				t.Errorf("the dominator chain ends at node %d, not the object", o.Dominators[n-1].Node)
			}
		})
	}
}

func TestDiffCommand(t *testing.T) {
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	rows := filepath.Join(smallDir, "rows.heapsnapshot")
	runCases(t, []cliCase{
		{"two snapshots of a file", nil, []string{"diff", mvm + "#0", mvm + "#2"}, 0, "no identity that persists", ""},
		{"--snapshot pairs", nil, []string{"diff", "--top", "3", "--snapshot", "0,2", mvm}, 0, "classes by growth of self size from OLD to NEW (3 of", ""},
		{"by count", nil, []string{"diff", "--by", "count", "--snapshot", "0,1,2", mvm}, 0, "LATER", ""},
		{"standard input", cliReadFile(t, rows), []string{"diff", "-", rows}, 0, "0 objects new in NEW since OLD", ""},
		{"one operand", nil, []string{"diff", rows}, 2, "", "diff needs OLD and NEW"},
		{"four operands", nil, []string{"diff", rows, rows, rows, rows}, 0, "#3 ", ""},
		{"one file of several snapshots: all of them", nil, []string{"diff", mvm}, 0, "LATER  " + mvm + " (snapshot 2)", ""},
		{"a range of snapshots", nil, []string{"diff", mvm + "#0..#2"}, 0, " 1. BOOTHash @161: +", ""},
		{"a range backwards", nil, []string{"diff", mvm + "#2..#0"}, 2, "", "a range of snapshots is IN#A..#B"},
		{"--fail-on-growth, grown", nil, []string{"diff", "--fail-on-growth", "^NQPArray$", mvm}, 3, "NQPArray", "NQPArray grew in every one of the 2 steps"},
		{"--fail-on-growth any", nil, []string{"diff", "--fail-on-growth", "any", mvm}, 3, "", "and 1 more class grew in every one"},
		{"--fail-on-growth, not grown", nil, []string{"diff", "--fail-on-growth", "BOOTHash", mvm}, 0, "", ""},
		{"--fail-on-growth, a bad expression", nil, []string{"diff", "--fail-on-growth", "(", mvm}, 2, "", "--fail-on-growth takes a regular expression"},
		{"--snapshot with two files", nil, []string{"diff", "--snapshot", "0,1", rows, rows}, 2, "", "--snapshot takes one IN"},
		{"a bad --snapshot", nil, []string{"diff", "--snapshot", "0,x", mvm}, 2, "", "--snapshot takes snapshot numbers"},
		{"a bad --by", nil, []string{"diff", "--by", "size", rows, rows}, 2, "", "--by must be"},
		{"two snapshots of standard input", cliReadFile(t, mvm), []string{"diff", "--", "-#0", "-#2"}, 0, "classes by growth", ""},
		{"standard input of several snapshots, unnamed", cliReadFile(t, mvm), []string{"diff", "--", "-", "-#1"}, 1, "", "name one as -#N"},
		{"a file of several snapshots, unnamed", nil, []string{"diff", mvm, mvm + "#1"}, 1, "", "holds 3 snapshots; name one as"},
		{"a snapshot past the last", nil, []string{"diff", mvm + "#0", mvm + "#9"}, 1, "", "snapshot 9 does not exist"},
		{"a missing file", nil, []string{"diff", rows, rows + ".missing"}, 1, "", "no such file"},
	})
}

func TestPathsCommand(t *testing.T) {
	rows := filepath.Join(smallDir, "rows.heapsnapshot")
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	runCases(t, []cliCase{
		{"a class", nil, []string{"paths", "--class", "NQPArray", "--max", "1", mvm + "#2"}, 0, "shortest retainer path, from the roots:", ""},
		{"the heap's suspects", nil, []string{"paths", "--suspects", mvm + "#2"}, 0, "BOOTHash @161  self 32  retained 3770900  distance 2\n  keeps 29% of the heap alive: 46,794 objects, 3.8 MB", ""},
		{"--suspects with --class", nil, []string{"paths", "--suspects", "--class", "NQPArray", mvm + "#2"}, 2, "", "paths needs one of --class NAME, --id ID and --suspects"},
		{"--snapshot", nil, []string{"paths", "--class", "NQPArray", "--max", "1", "--snapshot", "2", mvm}, 0, "dominators, from the root:", ""},
		{"standard input", cliReadFile(t, rows), []string{"paths", "--id", "1", "-"}, 0, "@1", ""},
		{"neither --class nor --id", nil, []string{"paths", rows}, 2, "", "one of --class NAME, --id ID and --suspects"},
		{"both", nil, []string{"paths", "--class", "x", "--id", "1", rows}, 2, "", "one of --class NAME, --id ID and --suspects"},
		{"--max 0", nil, []string{"paths", "--class", "x", "--max", "0", rows}, 2, "", "--max must be 1 or more"},
		{"two INs", nil, []string{"paths", "--class", "x", rows, rows}, 2, "", "paths takes one IN"},
		{"a class no object has", nil, []string{"paths", "--class", "NoSuchClass", rows}, 1, "", `no object of class "NoSuchClass"`},
		{"an id no object has", nil, []string{"paths", "--id", "999999999", rows}, 1, "", "no object has id 999999999"},
		{"a file of several snapshots, unnamed", nil, []string{"paths", "--class", "NQPArray", mvm}, 1, "", "holds 3 snapshots"},
	})
}

// TestInfoCSV checks info --csv against info --json: the same classes with
// the same figures, every class of every snapshot, as CSV that reads back.
func TestInfoCSV(t *testing.T) {
	for _, tc := range oneHeapOfEachFormat {
		t.Run(tc.format, func(t *testing.T) {
			file, _, _ := strings.Cut(tc.heap, "#")
			code, stdout, stderr := cliRun(t, nil, append(append([]string{"info", "--csv"}, tc.flags...), file)...)
			if code != 0 {
				t.Fatalf("info --csv: exit %d: %s", code, stderr)
			}
			rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
			if err != nil {
				t.Fatalf("the CSV does not read back: %v", err)
			}
			if len(rows) < 2 || strings.Join(rows[0], ",") != "snapshot,class,count,self_size,retained_size,script_id,line,column" {
				t.Fatalf("header %v, %d rows", rows[0], len(rows))
			}
			code, stdout, stderr = cliRun(t, nil, append(append([]string{"info", "--json", "--by", "retained", "--top", "1000000"}, tc.flags...), file)...)
			if code != 0 {
				t.Fatalf("info --json: exit %d: %s", code, stderr)
			}
			var info infoJSON
			if err := json.Unmarshal([]byte(stdout), &info); err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, s := range info.Snapshots {
				for _, c := range s.TopClasses {
					loc := ",,"
					if c.Location != nil {
						loc = fmt.Sprintf("%d,%d,%d", c.Location.ScriptID, c.Location.Line, c.Location.Column)
					}
					want[fmt.Sprintf("%d,%s,%d,%d,%d,%s", s.Index, c.Name, c.Count, c.SelfSize, *c.Retained, loc)] = true
				}
			}
			for _, r := range rows[1:] {
				key := strings.Join(r, ",")
				if !want[key] {
					t.Errorf("CSV row %q is not among info --json's classes", key)
				}
				delete(want, key)
			}
			if len(want) > 0 {
				t.Errorf("%d classes of info --json are not in the CSV", len(want))
			}
		})
	}
	if code, _, stderr := cliRun(t, nil, "info", "--csv", "--json", filepath.Join(smallDir, "rows.heapsnapshot")); code != 2 || !strings.Contains(stderr, "choose one") {
		t.Errorf("info --csv --json: exit %d: %s", code, stderr)
	}
}

func TestConvertToParquet(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(smallDir, "rows.heapsnapshot")
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	out := filepath.Join(dir, "rows")
	runCases(t, []cliCase{
		{"tables", nil, []string{"convert", "--to", "parquet", rows, out}, 0, "", ""},
		{"an existing directory", nil, []string{"convert", "--to", "parquet", rows, out}, 1, "", "exists (use --force"},
		{"--force", nil, []string{"convert", "--to", "parquet", "--force", "--file-id", "again", rows, out}, 0, "", ""},
		{"named .parquet", nil, []string{"convert", "--loss-report", filepath.Join(dir, "loss.json"), mvm, filepath.Join(dir, "nqp.parquet")}, 0, "", "the Parquet tables cannot hold everything the moarvm input had"},
		{"one snapshot, from standard input", cliReadFile(t, mvm), []string{"convert", "-q", "--to", "parquet", "--snapshot", "2", "-", filepath.Join(dir, "nqp2")}, 0, "", ""},
		{"to standard output", nil, []string{"convert", "--to", "parquet", rows, "-"}, 2, "", "OUT cannot be -"},
		{"--snapshot all", nil, []string{"convert", "--to", "parquet", "--snapshot", "all", mvm, filepath.Join(dir, "x")}, 2, "", "--snapshot all is for formats that hold one"},
		{"a snapshot past the last", nil, []string{"convert", "--to", "parquet", "--snapshot", "7", mvm, filepath.Join(dir, "y")}, 1, "", "snapshot 7 does not exist"},
		{"--file-id without parquet", nil, []string{"convert", "--file-id", "a", rows, filepath.Join(dir, "z.heapir")}, 2, "", "--file-id is for Parquet tables"},
		{"a file in the way", nil, []string{"convert", "--to", "parquet", "--force", rows, filepath.Join(dir, "loss.json")}, 1, "", "is a file"},
	})
	names, err := filepath.Glob(filepath.Join(out, "*.parquet"))
	if err != nil || len(names) != 9 {
		t.Errorf("%d tables in %s, want 9 (no stacks): %v", len(names), out, names)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("the output directory's mode: %v %v", st.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	var loss struct {
		To     string `json:"to"`
		Losses []struct {
			Kind string `json:"kind"`
		} `json:"losses"`
	}
	if err := json.Unmarshal(cliReadFile(t, filepath.Join(dir, "loss.json")), &loss); err != nil || loss.To != "parquet" || len(loss.Losses) == 0 {
		t.Errorf("loss report: %+v %v", loss, err)
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(smallDir, "rows.heapsnapshot")
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	out := filepath.Join(dir, "r.html")
	runCases(t, []cliCase{
		{"a file", nil, []string{"report", rows, out}, 0, "", ""},
		{"an existing OUT", nil, []string{"report", rows, out}, 1, "", "exists (use --force"},
		{"--force, every snapshot of a file", nil, []string{"report", "--force", "--title", "nqp", mvm, out}, 0, "", ""},
		{"to standard output, from standard input", cliReadFile(t, rows), []string{"report", "-", "-"}, 0, "<!DOCTYPE html>", ""},
		{"two heaps", nil, []string{"report", mvm + "#0", mvm + "#2", "-"}, 0, `id="growth"`, ""},
		{"no OUT", nil, []string{"report", rows}, 2, "", "report needs IN and OUT.html"},
		{"--classes 0", nil, []string{"report", "--classes", "0", rows, "-"}, 2, "", "--classes must be 1 or more"},
		{"a missing IN", nil, []string{"report", rows + ".missing", "-"}, 1, "", "no such file"},
		{"OUT in a missing directory", nil, []string{"report", rows, filepath.Join(dir, "no", "r.html")}, 1, "", "does not exist"},
	})
	page := string(cliReadFile(t, out))
	for _, want := range []string{"<title>nqp</title>", `id="summary"`, `id="treemap"`, `id="growth"`, "VMString"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, remote := range []string{"http://", "https://", "src=\"//"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), remote) {
			t.Errorf("the report refers to %q: it must load nothing", remote)
		}
	}
}

func TestDiffWithoutRetained(t *testing.T) {
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	code, stdout, stderr := cliRun(t, nil, "diff", "--json", "--retained=false", mvm+"#0", mvm+"#1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d diffJSON
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Classes {
		if c.Retained != nil {
			t.Fatalf("--retained=false listed retained sizes: %+v", c)
		}
	}
	if code, _, stderr := cliRun(t, nil, "diff", "--retained=false", "--by", "retained", mvm+"#0", mvm+"#1"); code != 2 || !strings.Contains(stderr, "needs the retained sizes") {
		t.Errorf("--by retained --retained=false: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := cliRun(t, nil, "diff", "--retained=false", mvm+"#0", mvm+"#1"); code != 0 || !strings.Contains(stdout, "   class\n") || strings.Contains(stdout, "retained    change") {
		t.Errorf("the table without retained sizes: exit %d\n%s", code, stdout)
	}
}

// TestAnalysisOutputsRefuse checks what the new commands refuse to
// overwrite: a directory that holds more than heapconv's tables (the
// input, say), a loss report inside the tables' directory, the report's
// own input; and that an OUT named with a trailing slash is the directory.
func TestAnalysisOutputsRefuse(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "rows.heapsnapshot")
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	tablesDir := filepath.Join(dir, "t")
	runCases(t, []cliCase{
		{"a directory with other files", nil, []string{"convert", "--to", "parquet", "--force", in, dir}, 1, "", "which is not one of heapconv's tables"},
		{"a trailing slash", nil, []string{"convert", "-q", "--to", "parquet", in, tablesDir + "/"}, 0, "", ""},
		{"replacing tables, trailing slash", nil, []string{"convert", "-q", "--to", "parquet", "--force", in, tablesDir + "/"}, 0, "", ""},
		{"a loss report inside the tables", nil, []string{"convert", "--to", "parquet", "--force", "--loss-report", filepath.Join(tablesDir, "loss.json"), in, tablesDir}, 2, "", "inside it"},
		{"a report over its input", nil, []string{"report", "--force", in, in}, 1, "", "input"},
		{"a loss report over the input", nil, []string{"convert", "--to", "parquet", "--force", "--loss-report", in, in, filepath.Join(dir, "t2")}, 1, "", "input"},
		{"one standard input, two snapshots", cliReadFile(t, mvm), []string{"report", "--", "-#0", "-#2", "-"}, 0, "", ""},
		{"processes, not snapshots", nil, []string{"report", filepath.Join(td, "fuchsia", "gen-newest-multi.pb.gz"), "-"}, 1, "", "holds the heaps of 3 processes"},
		{"a class by its label", nil, []string{"paths", "--class", "Café 名前 \uf600 at script 3 line 11 column 5", in}, 0, "", ""},
	})
	if got := cliReadFile(t, in); !bytes.Equal(got, cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))) {
		t.Errorf("the input changed: %.200q", got)
	}
	if n, _ := filepath.Glob(filepath.Join(tablesDir, "*.parquet")); len(n) != 9 {
		t.Errorf("the tables' directory holds %d tables", len(n))
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestDiffFitsTerminal holds diff's text to 100 columns, suspects, paths
// and class table alike, however long the class names.
func TestDiffFitsTerminal(t *testing.T) {
	mvm := filepath.Join(td, "moarvm", "nqp-3snap.mvmheap")
	code, stdout, stderr := cliRun(t, nil, "diff", "--top", "0", mvm)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 && !strings.HasPrefix(line, "OLD") && !strings.HasPrefix(line, "NEW") && !strings.HasPrefix(line, "LATER") {
			t.Errorf("a line of %d characters:\n%s", n, line)
		}
	}
}

// TestSeriesOutOfOrder checks diff's warning for a numbered series that a
// shell sorted by text (snap-10 before snap-2).
func TestSeriesOutOfOrder(t *testing.T) {
	args := func(names ...string) []heapArg {
		var out []heapArg
		for _, n := range names {
			out = append(out, heapArg{name: n})
		}
		return out
	}
	for _, tc := range []struct {
		names []string
		warn  bool
	}{
		{[]string{"snap-1.heapsnapshot", "snap-10.heapsnapshot", "snap-2.heapsnapshot"}, true},
		{[]string{"snap-01.heapsnapshot", "snap-02.heapsnapshot", "snap-10.heapsnapshot"}, false},
		{[]string{"a.mvmheap#0", "a.mvmheap#2", "a.mvmheap#1"}, true},
		{[]string{"before.heapsnapshot", "after.heapsnapshot"}, false},
		{[]string{"x2.heapsnapshot", "y1.heapsnapshot"}, false},
	} {
		if _, _, got := seriesOutOfOrder(args(tc.names...)); got != tc.warn {
			t.Errorf("%v: out of order %v, want %v", tc.names, got, tc.warn)
		}
	}
}

// TestDiffHeapsWithoutRootNode: two snapshots of a heap whose GC roots
// have no root node above them (a Fuchsia profile's processes, a FIDL
// stream's snapshots), with objects new in the second, compare with
// suspects (the suspects' walk from the roots once panicked on them).
func TestDiffHeapsWithoutRootNode(t *testing.T) {
	for _, f := range []string{"testdata/fuchsia/gen-newest-multi.pb.gz", "testdata/fuchsia-fidl/reassembly-edges.fidlstream"} {
		in := filepath.Join(root, f)
		code, stdout, stderr := cliRun(t, nil, "diff", "--top", "3", in+"#0", in+"#1")
		if code != 0 || !strings.Contains(stdout, "leak suspects") {
			t.Errorf("diff %s#0 #1: exit %d\n%s%s", f, code, stdout, stderr)
		}
	}
}
