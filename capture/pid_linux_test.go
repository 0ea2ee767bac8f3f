package capture_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heapconv/heapconv/capture"
)

// TestIsNodeExe: a pid: target is signalled only when its executable is
// Node's; SIGUSR1 ends most other programs, whatever their name begins
// with.
func TestIsNodeExe(t *testing.T) {
	for exe, want := range map[string]bool{
		"/usr/bin/node": true, "/usr/bin/nodejs": true, "/home/u/.nvm/versions/node/v20.1.0/bin/node": true,
		"/usr/bin/node-20": true, "/usr/bin/node20": true, "/opt/nodejs-18.1/bin/nodejs-18.1": true,
		"/usr/bin/node (deleted)": true,
		"/usr/bin/node_exporter":  false, "/usr/local/bin/nodemon": false, "/usr/bin/nodeagent": false,
		"/usr/bin/bash": false, "/usr/bin/nod": false, "/bin/node-red": false,
	} {
		if got := capture.IsNodeExe(exe); got != want {
			t.Errorf("IsNodeExe(%q) = %v, want %v", exe, got, want)
		}
	}
}

// TestPIDNoExecutable: a process without an executable to read (here a
// zombie) is named for what it is, not as absent.
func TestPIDNoExecutable(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("pid: targets need /proc")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	// Not waited for, it stays a zombie once it has ended.
	for deadline := time.Now().Add(2 * time.Second); ; {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && bytes.HasPrefix(stat[i:], []byte(") Z")) {
			break
		}
		if time.Now().After(deadline) {
			t.Skip("the child did not become a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, _, err := take(t, "pid:"+strconv.Itoa(pid), nil)
	if !errors.Is(err, capture.ErrNoTarget) || !strings.Contains(err.Error(), "zombie") {
		t.Errorf("a zombie: %v", err)
	}
}
