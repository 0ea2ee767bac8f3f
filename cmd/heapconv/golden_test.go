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

// TestGoldenDump compares `heapconv dump` of the hand-made inputs (V8 and
// Dart) with
// testdata/golden/NAME.txt. `go test ./cmd/heapconv -run Golden -update`
// rewrites the golden files.
func TestGoldenDump(t *testing.T) {
	golden := filepath.Join("..", "..", "testdata", "golden")
	inputs, err := filepath.Glob(filepath.Join(smallDir, "*.heapsnapshot"))
	if err != nil || len(inputs) < 3 {
		t.Fatalf("inputs %v: %v", inputs, err)
	}
	// The Dart sample: every data tag, a zero reference, an external
	// property, identity hashes.
	inputs = append(inputs, filepath.Join("..", "..", "testdata", "dart", "synthetic_vm_layout.dartheap"))
	for _, in := range inputs {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(in), ".heapsnapshot"), ".dartheap")
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
