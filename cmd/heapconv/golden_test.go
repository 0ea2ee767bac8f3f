package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// TestGoldenDump compares `heapconv dump` of small inputs of every format
// with testdata/golden/NAME.txt: the hand-made V8 and Dart files, Fuchsia
// profiles and FIDL streams, and a MoarVM file heapconv writes from the
// Dart sample (the real MoarVM fixtures have tens of thousands of
// objects). `go test ./cmd/heapconv -run Golden -update` rewrites the
// golden files.
func TestGoldenDump(t *testing.T) {
	golden := filepath.Join("..", "..", "testdata", "golden")
	inputs, err := filepath.Glob(filepath.Join(smallDir, "*.heapsnapshot"))
	if err != nil || len(inputs) < 3 {
		t.Fatalf("inputs %v: %v", inputs, err)
	}
	td := filepath.Join("..", "..", "testdata")
	dart := filepath.Join(td, "dart", "synthetic_vm_layout.dartheap")
	inputs = append(inputs,
		// The Dart sample: every data tag, a zero reference, an external
		// property, identity hashes.
		dart,
		// ffx's own test profiles: per-block samples with every label,
		// and one process per snapshot.
		filepath.Join(td, "fuchsia", "ffx-test-current-tags.pb"),
		filepath.Join(td, "fuchsia", "ffx-test-two-snapshots.pb"),
		// FIDL streams: ffx's test snapshot, and one whose stack traces
		// and contents come in chunks (with derived edges).
		filepath.Join(td, "fuchsia-fidl", "ffx-test.fidlstream"),
		filepath.Join(td, "fuchsia-fidl", "reassembly-edges.fidlstream"))
	mvm := filepath.Join(t.TempDir(), "dart-sample.mvmheap")
	if code, _, stderr := cliRun(t, nil, "convert", "-q", dart, mvm); code != 0 {
		t.Fatalf("convert to MoarVM: exit %d: %s", code, stderr)
	}
	inputs = append(inputs, mvm)
	for _, in := range inputs {
		name := filepath.Base(in)
		for _, ext := range []string{".heapsnapshot", ".dartheap", ".mvmheap", ".pb", ".fidlstream"} {
			name = strings.TrimSuffix(name, ext)
		}
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, nil, "dump", in)
			if code != 0 {
				t.Fatalf("dump: exit %d: %s", code, stderr)
			}
			path := filepath.Join(golden, name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if stdout != string(want) {
				t.Errorf("dump of %s differs from %s (run with -update to accept):\n%s", in, path, lineDiff(string(want), stdout))
			}
		})
	}
}

// lineDiff shows the first differing line of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return "(same lines)"
}
