package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExploreFailsBeforeServing: what explore refuses, it refuses before
// it serves anything, with the status of every command.
func TestExploreFailsBeforeServing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.heapsnapshot")
	os.WriteFile(bad, []byte(`{"snapshot": {"meta": `), 0o644)
	fixture := filepath.Join(root, "testdata/moarvm/nqp-3snap.mvmheap")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"explore"}, 2, "explore needs IN"},
		{[]string{"explore", "--addr", busy.Addr().String(), fixture}, 2, "--addr " + busy.Addr().String()},
		{[]string{"explore", "--addr", "nowhere:x", fixture}, 2, "--addr"},
		{[]string{"explore", bad}, 1, "offset"},
		{[]string{"explore", filepath.Join(dir, "missing.heapsnapshot")}, 1, "missing.heapsnapshot"},
		{[]string{"explore", fixture + "#7"}, 1, "snapshot"},
	} {
		code, _, stderr := cliRun(t, nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("heapconv %s: exit %d, %q; want %d and a message with %q", strings.Join(c.args, " "), code, stderr, c.code, c.msg)
		}
	}
	code, stdout, _ := cliRun(t, nil, "explore", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") {
		t.Errorf("explore --help: exit %d, %q", code, stdout)
	}
}

// TestExploreServes runs the command as a process: it prints the address
// with its token on standard error, answers the API there (and nothing
// without the token), and ends with status 130 on SIGINT.
func TestExploreServes(t *testing.T) {
	cmd := exec.Command(os.Args[0], "explore", filepath.Join(root, "testdata/moarvm/nqp-3snap.mvmheap#0..#2"))
	cmd.Env = append(os.Environ(), "HEAPCONV_TEST_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}`).FindString(sc.Text()); m != "" {
				addr <- m
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(time.Minute):
		t.Fatal("no address printed")
	}
	base, token, _ := strings.Cut(url, "/?token=")
	get := func(path string) (int, string) {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/api/v1/heaps?token=" + token); code != 200 || strings.Count(body, `"format":"moarvm"`) != 3 {
		t.Errorf("heaps: %d %s", code, body)
	}
	if code, _ := get("/api/v1/heaps"); code != 401 {
		t.Errorf("without the token: status %d", code)
	}
	if code, body := get("/?token=" + token); code != 200 || !strings.Contains(body, "heapconv explore") {
		t.Errorf("the page: %d", code)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("exit status after SIGINT %d, want 130", got)
	}
	if stdout.Len() != 0 {
		t.Errorf("explore wrote %q on standard output", stdout.String())
	}
}
