// Package gotool finds the binaries of the Go toolchain's tools for tests
// that use them as judges (`go tool pprof` reads every profile heapconv
// writes). Starting a tool through the go command costs about 0.3 s of CPU
// each time, many times what pprof needs for a small profile, and the
// suite runs it hundreds of times; so the binary is located once and run
// directly.
//
// pprof is not part of the toolchain's binaries: the go command builds it
// into the build cache the first time, which on an empty cache (a fresh
// machine, CI) costs about 50 s of CPU. So the tool runs in an exhaustive
// run (HEAPCONV_EXHAUSTIVE=1, which CI runs after `go test ./...`) or with
// HEAPCONV_PPROF_TOOL=1; by default the profile is read with the package
// the tool reads it with (github.com/google/pprof/profile), and -raw
// answered with what the tool prints for it, the profile's String, while
// reports such as -top are left to the tool (UsesTool).
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/internal/sampling"
)

// UsesTool reports whether RunPprof runs the pprof tool itself (an
// exhaustive run, or HEAPCONV_PPROF_TOOL=1) rather than its parser.
func UsesTool() bool {
	return sampling.Exhaustive() || os.Getenv("HEAPCONV_PPROF_TOOL") != ""
}

var (
	pprofOnce sync.Once
	pprofPath string
	pprofErr  error
)

// Pprof returns the path of `go tool pprof`'s binary, of the toolchain
// running the test. The first call has the go command build the tool if
// needed (into the Go cache: HOME and GOCACHE are left alone).
func Pprof() (string, error) {
	pprofOnce.Do(func() {
		goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goCmd); err != nil {
			if goCmd, err = exec.LookPath("go"); err != nil {
				pprofErr = fmt.Errorf("no go command: %v", err)
				return
			}
		}
		// -h builds the tool and exits with a usage status.
		_ = exec.Command(goCmd, "tool", "pprof", "-h").Run()
		out, err := exec.Command(goCmd, "tool", "-n", "pprof").Output()
		if err != nil {
			pprofErr = fmt.Errorf("go tool -n pprof: %v", err)
			return
		}
		pprofPath = strings.TrimSpace(string(out))
		if _, err := os.Stat(pprofPath); err != nil {
			pprofErr = fmt.Errorf("go tool -n pprof names a binary that is not there: %v", err)
		}
	})
	return pprofPath, pprofErr
}
