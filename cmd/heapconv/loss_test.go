package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lossJSON is the --loss-report file.
type lossJSON struct {
	Input, From, To string
	Outputs         []string
	Losses          []struct {
		Kind    string
		Count   int64
		What    string
		Example string
	}
}

// TestLossReport: a lossy conversion warns once per kind of loss, with its
// count, for all the files of --snapshot all together; -q silences it; the
// --loss-report file has the same kinds for scripts.
func TestLossReport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(testdata, "moarvm", "nqp-3snap.mvmheap")
	report := filepath.Join(dir, "loss.json")
	code, stdout, stderr := cliRun(t, nil, "convert", "--snapshot", "all", "--loss-report", report, in, filepath.Join(dir, "s%d.heapsnapshot"))
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var r lossJSON
	if err := json.Unmarshal(cliReadFile(t, report), &r); err != nil {
		t.Fatal(err)
	}
	if r.From != "moarvm" || r.To != "v8" || r.Input != in || len(r.Outputs) != 3 || len(r.Losses) == 0 {
		t.Fatalf("report %+v", r)
	}
	var kinds []string
	for _, l := range r.Losses {
		if l.Kind == "" || l.What == "" || l.Count < 0 || strings.Contains(l.What, "snapshot 1:") {
			t.Errorf("loss %+v", l)
		}
		kinds = append(kinds, l.Kind)
	}
	slices.Sort(kinds)
	if len(slices.Compact(slices.Clone(kinds))) != len(kinds) {
		t.Errorf("kinds repeat: %q", kinds)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "warning: the 3 v8 files cannot hold everything the moarvm input had") {
		t.Errorf("the report does not start with a warning:\n%s", stderr)
	}
	if len(lines) != 1+len(r.Losses) {
		t.Errorf("%d lines for %d kinds of loss:\n%s", len(lines), len(r.Losses), stderr)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "heapconv") {
			t.Errorf("a line that looks like an error: %q", l)
		}
	}
	// The highscore boards of the three snapshots: one line, their sum.
	for _, l := range r.Losses {
		if l.Kind == "moarvm-highscores" && !strings.Contains(stderr, "  480 × ") {
			t.Errorf("highscores counted %d; stderr:\n%s", l.Count, stderr)
		}
	}

	// -q: nothing on standard error; the report still written.
	code, stdout, stderr = cliRun(t, nil, "convert", "-q", "--snapshot", "1", "--loss-report", report, "--force", in, filepath.Join(dir, "q.heapsnapshot"))
	if code != 0 || stderr != "" || stdout != "" {
		t.Errorf("-q: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if err := json.Unmarshal(cliReadFile(t, report), &r); err != nil || len(r.Outputs) != 1 {
		t.Errorf("report after -q: %v %+v", err, r)
	}
	// --loss-report -: on standard output; a lossless conversion has an
	// empty list.
	code, stdout, stderr = cliRun(t, nil, "convert", "--loss-report", "-", in, filepath.Join(dir, "same.mvmheap"))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var same map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &same); err != nil || string(same["losses"]) != "[]" {
		t.Errorf("a lossless conversion's report: %v %s", err, stdout)
	}
	if code, _, stderr := cliRun(t, nil, "convert", "--to", "v8", "--loss-report", "-", in, "-"); code != 2 || !strings.Contains(stderr, "standard output") {
		t.Errorf("--loss-report - with OUT -: exit %d, %q", code, stderr)
	}
}
