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
	"github.com/heapconv/heapconv/ir/analysis"
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
	Sorted   bool     `json:"sorted"`
}

// TestReportInChromium writes the HTML report of a heap of every format,
// and of the snapshots of a MoarVM file with their growth chart, and loads
// each in headless Chromium: no console error or exception, no request
// beyond the file (it loads nothing), the class table with every class up
// to its limit, the treemap and the retainer paths drawn, the growth chart
// where there are several snapshots, and the table sorting by count on a
// click. Each page's screenshot is kept as a test artifact (go test
// -artifacts keeps them under -outputdir).
func TestReportInChromium(t *testing.T) {
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
	}
	dir := t.TempDir()
	art := t.ArtifactDir()
	var args []string
	want := map[string]int{} // report → classes it lists
	charted := map[string]bool{}
	for _, c := range cases {
		f, err := heapconv.ReadFile(filepath.Join(moduleRoot, c.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		var heaps []analysis.Heap
		for k, s := range f.Snapshots {
			if c.all || k == len(f.Snapshots)-1 {
				heaps = append(heaps, analysis.Heap{File: f, Snapshot: s})
			}
		}
		out := filepath.Join(dir, c.name+".html")
		if err := heapconv.WriteReport(out, heaps, &heapconv.ReportOptions{Report: report.Options{Title: c.name}}); err != nil {
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
		if (r.Chart > 0) != charted[r.File] {
			t.Errorf("%s: %d lines in the growth chart, want them: %v", name, r.Chart, charted[r.File])
		}
	}
	if seen != len(cases) {
		t.Fatalf("check.js reported on %d of %d pages\n%s", seen, len(cases), stderr.String())
	}
	t.Logf("screenshots in %s", art)
}
