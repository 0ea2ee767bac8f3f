package gotool

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RunPprof runs `go tool pprof` with args on a profile's bytes and returns
// its output, failing the test if pprof fails: the judge a test asks
// whether a profile heapconv read or wrote is one pprof takes. pprof looks
// for no binaries (the profiles name modules it must not go and find) and
// keeps its files in the test's temporary directory.
func RunPprof(t testing.TB, data []byte, args ...string) string {
	t.Helper()
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
