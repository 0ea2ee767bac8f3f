package gotool

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

// RunPprof runs `go tool pprof` with args on a profile's bytes and returns
// its output, failing the test if pprof fails: the judge a test asks
// whether a profile heapconv read or wrote is one pprof takes. pprof looks
// for no binaries (the profiles name modules it must not go and find) and
// keeps its files in the test's temporary directory. Without the tool
// (UsesTool), the profile is parsed and checked as the tool does it, and
// the answer is what -raw prints, or "" for any other report.
func RunPprof(t testing.TB, data []byte, args ...string) string {
	t.Helper()
	if !UsesTool() {
		raw, err := Raw(data)
		if err != nil {
			t.Fatalf("pprof's parser: %v", err)
		}
		if slices.Contains(args, "-raw") {
			return raw
		}
		return ""
	}
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	pprof, err := Pprof()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pprof, append(append([]string{}, args...), path)...)
	cmd.Env = append(os.Environ(), "PPROF_BINARY_PATH=/nonexistent", "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Raw parses a profile as pprof does and returns what `go tool pprof -raw`
// prints for it (the profile's String), or the parser's or the check's
// error.
func Raw(data []byte) (string, error) {
	p, err := profile.ParseData(data)
	if err != nil {
		return "", err
	}
	if err := p.CheckValid(); err != nil {
		return "", err
	}
	return p.String(), nil
}
