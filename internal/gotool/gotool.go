// Package gotool finds the binaries of the Go toolchain's tools for tests
// that use them as judges (`go tool pprof` reads every profile heapconv
// writes). Starting a tool through the go command costs about 0.3 s of CPU
// each time, many times what pprof needs for a small profile, and the
// suite runs it hundreds of times; so the binary is located once and run
// directly.
package gotool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

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
