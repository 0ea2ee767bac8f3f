package conformance

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/heapconv/heapconv/internal/sampling"
)

// devtoolsDir is the Node project holding Chrome DevTools' loader.
const devtoolsDir = "devtools"

// classAgg is one row of DevTools' Summary view, as summary.js prints it.
type classAgg struct {
	Count    int64 `json:"count"`
	Self     int64 `json:"self"`
	MaxRet   int64 `json:"maxRet"`
	Distance int64 `json:"distance"`
}

// summary is summary.js's line for one file.
type summary struct {
	NodeCount int64               `json:"nodeCount"`
	EdgeCount int64               `json:"edgeCount"`
	RootIndex int64               `json:"rootIndex"`
	TotalSize float64             `json:"totalSize"` // DevTools adds extra_native_bytes as a double
	Classes   map[string]classAgg `json:"classes"`
	// Stacks are the allocation stacks DevTools shows of the first nodes
	// that have one, by node id: "function script:line:column" per frame,
	// innermost first.
	Stacks map[string][]string `json:"stacks"`
	Error  string              `json:"error"`
}

// nodeProject is a Node project of the suite (a judge written in
// JavaScript) with the npm package it needs, installed by `npm ci` the
// first time a test needs it. A test without node, npm or the package
// fails: the judges are never skipped.
type nodeProject struct {
	dir     string // the project's directory, relative to this package
	pkg     string // the npm package that must be installed
	purpose string // what the project is, for messages
	once    sync.Once
	err     error
}

// The suite's Node projects.
var (
	devtoolsProject = &nodeProject{dir: devtoolsDir, pkg: "heap-snapshot-toolkit", purpose: "Chrome DevTools' loader"}
	irreaderProject = &nodeProject{dir: irreaderDir, pkg: "@msgpack/msgpack", purpose: "the second IR reader"}
)

// require makes sure node and npm exist and the project's package is
// installed, running `npm ci` when node_modules is missing.
func (p *nodeProject) require(t *testing.T) {
	t.Helper()
	p.once.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				p.err = fmt.Errorf("%s is not on PATH: the conformance suite needs Node.js and npm to run %s "+
					"(conformance/%s); install them (Node >= 18)", tool, p.purpose, p.dir)
				return
			}
		}
		marker := filepath.Join(p.dir, "node_modules", filepath.FromSlash(p.pkg), "package.json")
		if _, err := os.Stat(marker); err == nil {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = p.dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			p.err = fmt.Errorf("npm ci in conformance/%s failed: %v\n%s", p.dir, err, out)
			return
		}
		if _, err := os.Stat(marker); err != nil {
			p.err = fmt.Errorf("npm ci in conformance/%s did not install %s: %v", p.dir, p.pkg, err)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
}

// oracle collects V8 files the suite writes and the expectations on
// DevTools' view of them, then loads them all with as few Node processes as
// the machine has cores (summary.js takes many files per process).
type oracle struct {
	dir    string
	mu     sync.Mutex
	files  []string // in registration order, unique
	seen   map[string]bool
	checks []oracleCheck
	serial int
	// skipped counts the checks of cases the default run has DevTools
	// leave out (see skipping).
	skipped int
	// skipOf is set in an oracle from skipping: it only counts.
	skipOf *oracle
}

type oracleCheck struct {
	name string
	fn   func(t *testing.T, sum func(path string) *summary)
}

func newOracle(dir string) *oracle { return &oracle{dir: dir, seen: map[string]bool{}} }

// skipping returns an oracle for a case whose V8 output DevTools does not
// load in this run: it takes the same calls, loads nothing and counts the
// checks it was given in o, so o.run can say how many were left out. The
// case's own checks in Go still run.
func (o *oracle) skipping() *oracle { return &oracle{skipOf: o} }

// file writes data under a new name in the oracle's directory and
// registers it for loading; it returns the path.
func (o *oracle) file(t *testing.T, name string, data []byte) string {
	t.Helper()
	if o.skipOf != nil {
		return ""
	}
	path := o.keep(t, name, data)
	o.load(path)
	return path
}

// keep writes data under a new name in the oracle's directory, for other
// Node scripts, without registering it for loading; it returns the path.
func (o *oracle) keep(t *testing.T, name string, data []byte) string {
	t.Helper()
	o.mu.Lock()
	o.serial++
	path := filepath.Join(o.dir, fmt.Sprintf("%03d-%s.heapsnapshot", o.serial, sanitize(name)))
	o.mu.Unlock()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// load registers an existing file.
func (o *oracle) load(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.seen[path] {
		o.seen[path] = true
		o.files = append(o.files, path)
	}
}

// expect registers a check that runs once every file is loaded.
func (o *oracle) expect(name string, fn func(t *testing.T, sum func(path string) *summary)) {
	if p := o.skipOf; p != nil {
		p.mu.Lock()
		p.skipped++
		p.mu.Unlock()
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.checks = append(o.checks, oracleCheck{name, fn})
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

// run loads every registered file with DevTools and runs the checks as
// subtests.
func (o *oracle) run(t *testing.T) {
	if len(o.checks) == 0 {
		t.Fatal("no DevTools checks were registered (did the format subtests run?)")
	}
	devtoolsProject.require(t)
	// Files with the same bytes load the same way: load each content once,
	// in this test binary (TestMoarVMDevTools converts the MoarVM samples
	// TestConformance converted already).
	byHash := map[[32]byte]string{}
	hashOf := map[string][32]byte{}
	var unique []string
	sizes := map[string]int64{}
	loadedBefore := 0
	for _, p := range o.files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		hashOf[p] = h
		if _, ok := byHash[h]; ok {
			continue
		}
		byHash[h] = p
		if devtoolsLoaded.get(h) != nil {
			loadedBefore++
			continue
		}
		unique = append(unique, p)
		sizes[p] = int64(len(data))
	}
	results, err := summarize(unique, sizes)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range unique {
		if s := results[p]; s != nil {
			devtoolsLoaded.put(hashOf[p], s)
		}
	}
	t.Logf("DevTools loaded %d files (%d registered, %d loaded by an earlier test)", len(unique), len(o.files), loadedBefore)
	sampling.Logf(t, len(o.checks), len(o.checks)+o.skipped, "DevTools checks")
	get := func(path string) *summary {
		h, ok := hashOf[path]
		s := devtoolsLoaded.get(h)
		if !ok || s == nil {
			return &summary{Error: "file was not registered with the oracle: " + path}
		}
		return s
	}
	for _, c := range o.checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, get) })
	}
}

// devtoolsLoaded holds DevTools' summary of every content loaded so far in
// this test binary, by SHA-256.
var devtoolsLoaded = summaryCache{m: map[[32]byte]*summary{}}

type summaryCache struct {
	mu sync.Mutex
	m  map[[32]byte]*summary
}

func (c *summaryCache) get(h [32]byte) *summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[h]
}

func (c *summaryCache) put(h [32]byte, s *summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[h] = s
}

// summarize runs summary.js over files, split across up to two Node
// processes of about equal input size.
func summarize(files []string, sizes map[string]int64) (map[string]*summary, error) {
	script, err := filepath.Abs(filepath.Join(devtoolsDir, "summary.js"))
	if err != nil {
		return nil, err
	}
	procs := 2
	if len(files) < procs {
		procs = len(files)
	}
	groups := make([][]string, procs)
	load := make([]int64, procs)
	sorted := append([]string(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return sizes[sorted[i]] > sizes[sorted[j]] })
	for _, f := range sorted {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		groups[k] = append(groups[k], f)
		load[k] += sizes[f] + 1<<20 // a Node worker costs about as much as a megabyte
	}
	results := map[string]*summary{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := runSummary(script, g)
			errs[i] = err
			mu.Lock()
			for k, v := range res {
				results[k] = v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

// runSummary runs one summary.js process. A file DevTools cannot load gets
// a summary with Error set (summary.js exits 1 then, which is not an error
// here); a missing or unparsable output line is.
func runSummary(script string, files []string) (map[string]*summary, error) {
	if len(files) == 0 {
		return nil, nil
	}
	cmd := exec.Command("node", append([]string{script}, files...)...)
	cmd.Dir = devtoolsDir
	// A watchdog against a DevTools busy loop (each file here loads in a
	// few seconds at most), not a timing assertion.
	cmd.Env = append(os.Environ(), "SUMMARY_TIMEOUT=60")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var exitErr *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &exitErr) && exitErr.ExitCode() == 1) {
		return nil, fmt.Errorf("node summary.js: %v\n%s", runErr, stderr.String())
	}
	res := map[string]*summary{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	i := 0
	for sc.Scan() {
		if i >= len(files) {
			return res, fmt.Errorf("summary.js printed more lines than files")
		}
		var s summary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return res, fmt.Errorf("summary.js output for %s: %v", files[i], err)
		}
		if s.Error != "" {
			s.Error += "\n" + stderr.String()
		}
		res[files[i]] = &s
		i++
	}
	if i != len(files) {
		return res, fmt.Errorf("summary.js printed %d lines for %d files (exit %v)\n%s", i, len(files), runErr, stderr.String())
	}
	return res, nil
}

// loaded fails the test unless DevTools loaded the file.
func loaded(t *testing.T, s *summary) bool {
	t.Helper()
	if s.Error != "" {
		t.Errorf("DevTools could not load the file: %s", s.Error)
		return false
	}
	return true
}

// jsonCounts is what a plain JSON.parse of a V8 file says about its size.
type jsonCounts struct {
	NodeCount  int64  `json:"node_count"`
	EdgeCount  int64  `json:"edge_count"`
	NodeRows   int64  `json:"node_rows"`
	EdgeRows   int64  `json:"edge_rows"`
	NodeFields int64  `json:"node_fields"`
	EdgeFields int64  `json:"edge_fields"`
	Error      string `json:"error"`
}

// jsonParseScript prints, per file, the header counts and the array
// lengths divided by the field counts, read with nothing but JSON.parse.
const jsonParseScript = `
const fs = require('node:fs');
for (const f of process.argv.slice(1)) {
  try {
    const j = JSON.parse(fs.readFileSync(f, 'utf8'));
    const m = j.snapshot.meta;
    console.log(JSON.stringify({
      node_count: j.snapshot.node_count, edge_count: j.snapshot.edge_count,
      node_rows: j.nodes.length / m.node_fields.length, edge_rows: j.edges.length / m.edge_fields.length,
      node_fields: m.node_fields.length, edge_fields: m.edge_fields.length}));
  } catch (e) {
    console.log(JSON.stringify({error: String(e)}));
  }
}`

// parseCounts runs jsonParseScript over files in one Node process.
func parseCounts(t *testing.T, files []string) []jsonCounts {
	t.Helper()
	devtoolsProject.require(t)
	cmd := exec.Command("node", append([]string{"-e", jsonParseScript}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node -e (JSON.parse): %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("JSON.parse script printed %d lines for %d files:\n%s", len(lines), len(files), out)
	}
	res := make([]jsonCounts, len(files))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &res[i]); err != nil {
			t.Fatalf("JSON.parse script output %q: %v", l, err)
		}
		if res[i].Error != "" {
			t.Fatalf("JSON.parse of %s: %s", files[i], res[i].Error)
		}
	}
	return res
}
