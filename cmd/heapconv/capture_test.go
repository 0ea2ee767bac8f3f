package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/internal/fakevm"
)

// TestCaptureCommand runs capture against scripted VMs (the conformance
// suite runs it against real ones): its messages, exit statuses and
// refusals.
func TestCaptureCommand(t *testing.T) {
	data, err := os.ReadFile("../../testdata/v8/small/rows.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	vm := &fakevm.Inspector{Browser: "node.js/v20.0.0", Pages: []fakevm.Page{{Type: "node", Title: "app.js"}}, Chunks: []string{string(data)}}
	vm.Start()
	defer vm.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "app.heapsnapshot")
	code, stdout, stderr := cliRun(t, nil, "capture", vm.URL(), out)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "capturing node.js/v20.0.0, app.js") || !strings.Contains(stderr, out+": written") {
		t.Errorf("capture: %d\n%s\n%s", code, stdout, stderr)
	}
	if got := cliReadFile(t, out); string(got) != string(data) {
		t.Errorf("the capture is not what the VM sent")
	}
	// Standard output, quietly.
	code, stdout, stderr = cliRun(t, nil, "capture", "-q", "--to", "v8", vm.URL(), "-")
	if code != 0 || stdout != string(data) || stderr != "" {
		t.Errorf("capture to -: %d, %d bytes\n%s", code, len(stdout), stderr)
	}
	// Converted, with the loss report's lines.
	code, _, stderr = cliRun(t, nil, "capture", vm.URL(), filepath.Join(dir, "app.dartheap"))
	if code != 0 || !strings.Contains(stderr, "cannot hold everything the v8 input had") {
		t.Errorf("capture to dart: %d\n%s", code, stderr)
	}

	for _, c := range []struct {
		args  []string
		code  int
		words string
	}{
		{[]string{vm.URL(), out}, 1, "use --force"},
		{[]string{vm.URL()}, 2, "needs TARGET and OUT"},
		{[]string{"ftp://x/", out}, 2, "scheme"},
		{[]string{"--count", "0", vm.URL(), out}, 2, "--count"},
		{[]string{"--interval", "1s", vm.URL(), out}, 2, "--interval is the wait"},
		{[]string{"--port", "9230", vm.URL(), out}, 2, "--port is for a pid"},
		{[]string{vm.URL(), "-"}, 2, "needs --to"},
		{[]string{vm.URL(), filepath.Join(dir, "x.txt")}, 2, "cannot tell the output format"},
		{[]string{"--count", "2", "--force", vm.URL(), out}, 2, "%d"},
		{[]string{"http://127.0.0.1:1", filepath.Join(dir, "y.heapsnapshot")}, 1, "nothing listens at"},
	} {
		code, _, stderr := cliRun(t, nil, append([]string{"capture"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.words) {
			t.Errorf("capture %s: exit %d, want %d with %q:\n%s", strings.Join(c.args, " "), code, c.code, c.words, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "y.heapsnapshot")); err == nil {
		t.Errorf("a failed capture left its output")
	}
}

// TestCaptureHints: where the VM asks for a choice, the command names
// the flag that makes it.
func TestCaptureHints(t *testing.T) {
	pages, dart := fakevm.StartAmbiguous()
	defer pages.Close()
	defer dart.Close()
	out := filepath.Join(t.TempDir(), "x.heapsnapshot")
	for _, c := range []struct {
		args      []string
		hint, not string
	}{
		{[]string{pages.URL()}, "(give --target TEXT)", "--isolate"},
		{[]string{dart.URI()}, "(give --isolate NAME)", "--target"},
		// No page matches: no question of which, and a URL that says
		// "isolates" is no isolate.
		{[]string{"--target", "zzz", pages.URL()}, "no page of", "(give"},
	} {
		code, _, stderr := cliRun(t, nil, append(append([]string{"capture"}, c.args...), out)...)
		if code != 1 || !strings.Contains(stderr, c.hint) || strings.Contains(stderr, c.not) {
			t.Errorf("capture %v: exit %d, want 1 with %q:\n%s", c.args, code, c.hint, stderr)
		}
	}
}
