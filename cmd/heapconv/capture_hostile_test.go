package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

// TestCaptureProgressRange: the progress line draws the VM's numbers,
// which it does not check, as a percentage from 0 to 100.
func TestCaptureProgressRange(t *testing.T) {
	for _, p := range []capture.Progress{
		{Done: 50, Total: 100},
		{Done: math.MaxInt64, Total: math.MaxInt64},
		{Done: math.MaxInt64 / 10, Total: 1},
		{Done: -5, Total: 100},
		{Done: 200, Total: 100},
		{Done: 5, Total: 0},
		{Done: 5, Total: -1},
	} {
		var stderr bytes.Buffer
		c := newCaptureProgress(&env{stderr: &stderr, stderrTerminal: true}, false)
		c.update(p)
		m := regexp.MustCompile(`(-?\d+)% of`).FindStringSubmatch(stderr.String())
		if m == nil {
			if p.Total > 0 {
				t.Errorf("%+v: no percentage in %q", p, stderr.String())
			}
			continue
		}
		if m[1] != strings.TrimLeft(m[1], "-") || len(m[1]) > 3 || m[1] > "100" && len(m[1]) == 3 {
			t.Errorf("%+v: %q", p, stderr.String())
		}
	}
}

// TestCaptureHostileText: what a VM calls itself and its targets reaches
// the terminal without its escape sequences; the progress line, cleared,
// leaves the lines after it whole (Parquet's too).
func TestCaptureHostileText(t *testing.T) {
	data, err := os.ReadFile("../../testdata/v8/small/rows.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	vm := &fakevm.Inspector{Browser: "node.js/\x1b]0;owned\a", Pages: []fakevm.Page{{Type: "node", Title: "app\x1b[2J\u009b1m.js"}}, Chunks: []string{string(data)}}
	vm.Start()
	defer vm.Close()
	dir := t.TempDir()
	for _, out := range []string{"a.heapsnapshot", "a.parquet"} {
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, stderrTerminal: true}
		if code := run(e, []string{"capture", vm.URL(), filepath.Join(dir, out)}); code != 0 {
			t.Fatalf("%s: exit %d: %s", out, code, stderr.String())
		}
		// The terminal's own sequences are the progress line's: \r\x1b[K.
		text := strings.ReplaceAll(stderr.String(), "\r\x1b[K", "")
		if strings.ContainsAny(text, "\x1b\a\u009b") {
			t.Errorf("%s: escape sequences of the VM's printed: %q", out, stderr.String())
		}
		if !strings.Contains(text, `capturing node.js/\x1b]0;owned\a, app\x1b[2J\u009b1m.js`) {
			t.Errorf("%s: %q", out, stderr.String())
		}
		// Every line begins on a cleared one or a new one.
		if regexp.MustCompile(`of \d+ objects[^\n\r]`).MatchString(stderr.String()) {
			t.Errorf("%s: a line printed after the progress line, which was not cleared: %q", out, stderr.String())
		}
	}
}
