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
	"runtime"
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

// TestExploreOpen: --open gives the browser a file of the user's own that
// leads to the address, not the address itself, whose token any user of
// the machine could read on the browser's command line.
func TestExploreOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the desktop's opener is xdg-open on Linux only")
	}
	dir := t.TempDir()
	argv := filepath.Join(dir, "argv")
	opener := "#!/bin/sh\nprintf '%s' \"$1\" > " + argv + ".tmp && mv " + argv + ".tmp " + argv + "\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(opener), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "explore", "--open", filepath.Join(root, "testdata/moarvm/nqp-3snap.mvmheap#0"))
	cmd.Env = append(os.Environ(), "HEAPCONV_TEST_MAIN=1", "PATH="+dir+":"+os.Getenv("PATH"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var opened []byte
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(argv); err == nil {
			opened = b
			break
		}
	}
	target, ok := strings.CutPrefix(string(opened), "file://")
	if !ok || strings.Contains(target, "token") {
		t.Fatalf("the browser was given %q, want a file:// address without the token", opened)
	}
	info, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(target)
	// Ended by a signal, the server removes the file.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	token := regexp.MustCompile(`token=[0-9a-f]{32}`).FindString(stderr.String())
	if info.Mode().Perm() != 0o600 || token == "" || !strings.Contains(string(page), token) {
		t.Errorf("the file %s (mode %v) holds %q; the address printed: %q", target, info.Mode().Perm(), page, stderr.String())
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the file %s is still there after SIGTERM (%v)", target, err)
	}
}
