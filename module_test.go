package heapconv_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/heapconv/heapconv"
)

// TestImportFromAnotherModule: a program in a module of its own requires
// this one (through a replace directive, as a fetched copy would be) and
// converts a file with ConvertFile in a few lines.
func TestImportFromAnotherModule(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		t.Fatalf("no go command beside the running toolchain: %v", err)
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/heapuser\n\ngo 1.26\n\nrequire github.com/heapconv/heapconv v0.0.0\n\n" +
			"replace github.com/heapconv/heapconv => " + repo + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"fmt"
	"log"
	"os"

	"github.com/heapconv/heapconv"
)

func main() {
	report, err := heapconv.ConvertFile(os.Args[1], os.Args[2], nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.From, "->", report.To, len(report.Losses))
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "counter.heapsnapshot")
	cmd := exec.Command(goCmd, "run", ".", filepath.Join(repo, "testdata/samples/flutter-counter.dartheap.zst"), out)
	cmd.Dir = dir
	// -mod=mod lets the go command record the requirements in the new
	// go.mod, as go get would. Resolving them loads go.mod files that
	// building this module never needs (brotli's requirements, say), so on a
	// machine that never built a program importing heapconv they come from
	// the module proxy, as they would for a user: the environment's GOPROXY
	// is kept, and the copied go.sum checks what it serves.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, got)
	}
	if !strings.HasPrefix(string(got), "dart -> v8 ") {
		t.Errorf("the program printed %q", got)
	}
	f, err := heapconv.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != "v8" || len(f.Snapshots) != 1 || f.Snapshots[0].Nodes.Len() == 0 {
		t.Errorf("the file converted is a %s file of %d snapshots", f.Format, len(f.Snapshots))
	}
}
