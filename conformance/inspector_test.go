package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// inspectorFixture is a snapshot testdata/v8/inspector-tracking.js made
// under Node 20, whose header miscounts the functions: the test's input
// when the machine's node writes a consistent header.
const inspectorFixture = "testdata/v8/inspector/node20-inspector-tracking.heapsnapshot.zst"

// TestInspectorTrackingHeader: Node 20's inspector with allocation
// tracking (HeapProfiler.startTrackingHeapObjects, then takeHeapSnapshot)
// writes a trace_function_count a few functions short of
// trace_function_infos, and DevTools' loader fails on such a file. The test
// makes one with the machine's node (testdata/v8/inspector-tracking.js) and
// takes the committed one from a real run, so that it has such a file
// whatever this run of node writes. Through the heapconv command:
//   - validate reports the count with the offset of its value in the header;
//   - convert to V8 writes the count of the functions written, every other
//     byte as it was, and the loss report names the change with the count
//     it was off by; DevTools loads the output and shows allocation stacks;
//   - roundtrip says the header was corrected, not that the file differs.
func TestInspectorTrackingHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := buildHeapconv(t)
	fresh := inspectorSnapshot(t, filepath.Join(dir, "fresh.heapsnapshot"))
	committed := filepath.Join(dir, "committed.heapsnapshot")
	if err := os.WriteFile(committed, loadFixture(t, filepath.Join(moduleRoot, inspectorFixture)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := newOracle(dir)
	for _, in := range []string{fresh, committed} {
		name := strings.TrimSuffix(filepath.Base(in), ".heapsnapshot")
		data := loadFixture(t, in)
		h := traceHeader(t, data)
		if h.declared == h.functions {
			if in == committed {
				t.Fatalf("%s: the committed fixture's header counts its %d functions", inspectorFixture, h.functions)
			}
			t.Logf("this run of node wrote a header that counts its %d functions; the committed snapshot stands in", h.functions)
			continue
		}
		t.Logf("%s: trace_function_count %d, %d functions", name, h.declared, h.functions)
		t.Run(name, func(t *testing.T) {
			checkInspectorSnapshot(t, bin, in, data, h, o)
		})
	}
	t.Run("devtools", o.run)
}

// checkInspectorSnapshot runs validate, convert and roundtrip on in (whose
// bytes are data and header h) and registers in and the converted file
// with DevTools' loader.
func checkInspectorSnapshot(t *testing.T, bin, in string, data []byte, h traceHeaderFacts, o *oracle) {
	off := int64(h.declared - h.functions)
	if off < 0 {
		off = -off
	}
	// validate: the count, and where its value is.
	code, _, stderr := runHeapconv(t, bin, "validate", in)
	want := fmt.Sprintf("offset %d: trace_function_count is %d, but trace_function_infos holds %d functions", h.at, h.declared, h.functions)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("validate: exit %d, standard error:\n%s\nwant exit 1 and %q", code, stderr, want)
	}

	// convert: the header DevTools needs, every other byte as it was, and
	// the change named with its count.
	out := in + ".converted.heapsnapshot"
	report := in + ".loss.json"
	code, _, stderr = runHeapconv(t, bin, "convert", "--loss-report", report, in, out)
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	var lr struct {
		Losses []struct {
			Kind  string `json:"kind"`
			Count int64  `json:"count"`
			What  string `json:"what"`
		} `json:"losses"`
	}
	if err := json.Unmarshal(loadFixture(t, report), &lr); err != nil {
		t.Fatal(err)
	}
	if len(lr.Losses) != 1 || lr.Losses[0].Kind != v8ir.LossHeader || lr.Losses[0].Count != off ||
		!strings.Contains(lr.Losses[0].What, "trace_function_count") {
		t.Errorf("loss report %+v; want one %s line of count %d about trace_function_count", lr.Losses, v8ir.LossHeader, off)
	}
	if !strings.Contains(stderr, "trace_function_count miscounted") {
		t.Errorf("convert printed no line about the header:\n%s", stderr)
	}
	written := loadFixture(t, out)
	wantBytes := slices.Concat(data[:h.at], []byte(strconv.Itoa(h.functions)), data[h.at+int64(len(strconv.Itoa(h.declared))):])
	if !bytes.Equal(written, wantBytes) {
		i := 0
		for i < len(written) && i < len(wantBytes) && written[i] == wantBytes[i] {
			i++
		}
		t.Errorf("convert: the output differs from the input with trace_function_count %d at byte %d", h.functions, i)
	}
	if code, stdout, stderr := runHeapconv(t, bin, "validate", out); code != 0 {
		t.Errorf("validate on convert's output: exit %d\n%s%s", code, stdout, stderr)
	}

	// roundtrip: a named correction, not a difference.
	code, stdout, _ := runHeapconv(t, bin, "roundtrip", in)
	if code != 1 || !strings.Contains(stdout, "corrected") || !strings.Contains(stdout, "trace_function_count miscounted") ||
		strings.Contains(stdout, "differs") {
		t.Errorf("roundtrip: exit %d:\n%s\nwant exit 1 and the header named as corrected, not \"differs\"", code, stdout)
	}

	// DevTools: the input fails as Node wrote it, the output loads with its
	// allocation stacks.
	o.load(in)
	o.load(out)
	name := filepath.Base(in)
	o.expect(name, func(t *testing.T, sum func(string) *summary) {
		if s := sum(in); !strings.Contains(s.Error, "addTraceTopNode") {
			t.Errorf("DevTools on the input: %q; want its loader to fail reading addTraceTopNode", s.Error)
		}
		s := sum(out)
		if !loaded(t, s) {
			return
		}
		if len(s.Stacks) == 0 {
			t.Error("DevTools shows no allocation stack in the converted file")
		}
	})
}

// traceHeaderFacts is what a V8 file's header says of its functions and
// what it holds, read with encoding/json (not heapconv's reader).
type traceHeaderFacts struct {
	declared  int   // the header's trace_function_count
	functions int   // rows of trace_function_infos
	at        int64 // offset of the trace_function_count value
}

func traceHeader(t *testing.T, data []byte) traceHeaderFacts {
	t.Helper()
	var j struct {
		Snapshot struct {
			Meta struct {
				Fields []string `json:"trace_function_info_fields"`
			} `json:"meta"`
			TraceFunctionCount int `json:"trace_function_count"`
		} `json:"snapshot"`
		Infos []uint64 `json:"trace_function_infos"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	key := []byte(`"trace_function_count":`)
	at := bytes.Index(data, key)
	if at < 0 || len(j.Snapshot.Meta.Fields) == 0 {
		t.Fatal("no trace_function_count or trace_function_info_fields in the header")
	}
	return traceHeaderFacts{declared: j.Snapshot.TraceFunctionCount, functions: len(j.Infos) / len(j.Snapshot.Meta.Fields), at: int64(at + len(key))}
}

// inspectorSnapshot has the machine's node take a snapshot with
// allocation tracking through the inspector protocol
// (testdata/v8/inspector-tracking.js) into path, and returns path.
func inspectorSnapshot(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the suite makes real V8 snapshots with it")
	}
	script, err := filepath.Abs(filepath.Join(moduleRoot, "testdata/v8/inspector-tracking.js"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", script, path).CombinedOutput(); err != nil {
		t.Fatalf("node inspector-tracking.js: %v\n%s", err, out)
	}
	return path
}

// built is the heapconv command, built once for the tests of this binary
// that run it (TestMain removes it).
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildHeapconv builds the heapconv command (once) and returns its path.
func buildHeapconv(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "heapconv-conformance-"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "heapconv")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/heapconv")
		cmd.Dir = moduleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ./cmd/heapconv: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sessions.dir != "" {
		os.RemoveAll(sessions.dir)
	}
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// runHeapconv runs the heapconv command and returns its exit status and
// output.
func runHeapconv(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("heapconv %s: %v", strings.Join(args, " "), err)
	}
	return code, o.String(), e.String()
}
