package heapconv_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

// The tests of this file play a broken VM against CaptureFile: it must
// end with a clear error, soon, leave no output and no goroutine behind.

// clientFrame is a frame of the capturing side's code in a goroutine's
// stack: heapconv's or package capture's, not a test's or fakevm's; or
// an HTTP client's connection.
var clientFrame = regexp.MustCompile(`(?m)^(github\.com/heapconv/heapconv|github\.com/heapconv/heapconv/capture)\.|^net/http\.\(\*persistConn\)`)

// capturing counts the goroutines running the capturing side's code.
func capturing() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n, shown := 0, ""
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "testing.tRunner") || !clientFrame.MatchString(g) {
			continue
		}
		n++
		shown += g + "\n\n"
	}
	return n, shown
}

// noLeak fails the test when, a moment after it, more goroutines run the
// capturing side's code than before it.
func noLeak(t *testing.T) {
	t.Helper()
	before, _ := capturing()
	t.Cleanup(func() {
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			n, shown := capturing()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines of the capture left (%d before):\n%s", n, before, shown)
				return
			}
		}
	})
}

// brokenInspector serves a Node inspector whose sessions answer each
// takeHeapSnapshot (counted from 1) as snapshot says: the messages to
// send, and whether to reply after them (false: to go silent).
func brokenInspector(t *testing.T, snapshot func(n int) (msgs []string, reply bool)) *fakevm.Inspector {
	vm := &fakevm.Inspector{Browser: "node.js/v20.0.0", Pages: []fakevm.Page{{Type: "node", Title: "app.js"}}}
	vm.Script = func(ctx context.Context, c *websocket.Conn) {
		n := 0
		for {
			req, err := fakevm.ReadRequest(ctx, c)
			if err != nil {
				return
			}
			if req.Method != "HeapProfiler.takeHeapSnapshot" {
				fakevm.Send(ctx, c, `{"id":`+string(req.ID)+`,"result":{}}`)
				continue
			}
			n++
			msgs, reply := snapshot(n)
			for _, m := range msgs {
				if m == "drop" {
					c.CloseNow()
					return
				}
				fakevm.Send(ctx, c, m)
			}
			if !reply {
				<-ctx.Done()
				return
			}
			fakevm.Send(ctx, c, `{"id":`+string(req.ID)+`,"result":{}}`)
		}
	}
	vm.Start()
	t.Cleanup(vm.Close)
	return vm
}

// chunked cuts data into the messages of three chunks.
func chunked(data []byte) []string {
	third := len(data) / 3
	return []string{fakevm.ChunkMessage(string(data[:third])), fakevm.ChunkMessage(string(data[third : 2*third])), fakevm.ChunkMessage(string(data[2*third:]))}
}

func noOutputs(t *testing.T, dir string, keep ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.Contains(strings.Join(keep, "\n"), e.Name()) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestCaptureConversionFails: when the snapshot cannot be converted, the
// capture ends with the conversion's error, although the VM, having sent
// what it did, says nothing more (before, the capture waited on it).
func TestCaptureConversionFails(t *testing.T) {
	noLeak(t)
	vm := brokenInspector(t, func(int) ([]string, bool) {
		return []string{fakevm.ChunkMessage("this is no JSON" + strings.Repeat(" ", 4000))}, false
	})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := heapconv.CaptureFile(ctx, vm.URL(), filepath.Join(dir, "a.heapir"), nil)
	if err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not a V8 heap snapshot") {
		t.Errorf("got %v after %v, want the conversion's error", err, time.Since(start))
	}
	noOutputs(t, dir)
}

// TestCaptureCancelled: a capture cancelled in the middle of a snapshot,
// written directly or converted, ends with ctx's error, leaves no
// output, and no goroutine blocked on the pipe or the connection.
func TestCaptureCancelled(t *testing.T) {
	data, err := os.ReadFile("testdata/v8/small/rows.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	vm := brokenInspector(t, func(int) ([]string, bool) { return chunked(data)[:2], false })
	for _, out := range []string{"a.heapsnapshot", "a.heapsnapshot.zst", "a.heapir"} {
		t.Run(out, func(t *testing.T) {
			noLeak(t)
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := &heapconv.CaptureOptions{Capture: capture.Options{Progress: func(p capture.Progress) {
				if p.Received > int64(len(data)/2) {
					cancel() // in the middle of the snapshot
				}
			}}}
			_, err := heapconv.CaptureFile(ctx, vm.URL(), filepath.Join(dir, out), opts)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			noOutputs(t, dir)
		})
	}
}

// TestCaptureSeriesFails: a series whose second snapshot fails keeps the
// first whole, and leaves no second; the error says what happened. To
// standard output, what came before the failure is out already, and
// the error says so.
func TestCaptureSeriesFails(t *testing.T) {
	data, err := os.ReadFile("testdata/v8/small/rows.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	vm := brokenInspector(t, func(n int) ([]string, bool) {
		if n == 1 {
			return chunked(data), true
		}
		return append(chunked(data)[:2], "drop"), true
	})
	for _, ext := range []string{"heapsnapshot", "heapir"} {
		t.Run(ext, func(t *testing.T) {
			noLeak(t)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r, err := heapconv.CaptureFile(ctx, vm.URL(), filepath.Join(dir, "s-%d."+ext), &heapconv.CaptureOptions{Count: 2,
				Convert: heapconv.ConvertOptions{LossReportFile: filepath.Join(dir, "loss.json")}})
			if !errors.Is(err, capture.ErrDropped) || !strings.Contains(err.Error(), "after") {
				t.Errorf("got %v, want ErrDropped", err)
			}
			if len(r.Outputs) != 1 {
				t.Errorf("outputs %v", r.Outputs)
			}
			first, err := heapconv.ReadFile(filepath.Join(dir, "s-0."+ext), nil)
			if err != nil || len(first.Snapshots) != 1 || first.Snapshots[0].Nodes.Len() == 0 {
				t.Errorf("the first snapshot: %v", err)
			}
			noOutputs(t, dir, "s-0."+ext) // no second, no loss report
		})
	}
	t.Run("stdout", func(t *testing.T) {
		vm := brokenInspector(t, func(int) ([]string, bool) { return append(chunked(data)[:1], "drop"), true })
		var stdout bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := heapconv.CaptureFile(ctx, vm.URL(), "-", &heapconv.CaptureOptions{Convert: heapconv.ConvertOptions{To: "v8", Stdout: &stdout}})
		if !errors.Is(err, capture.ErrDropped) || !strings.Contains(err.Error(), "after") {
			t.Errorf("got %v, want ErrDropped", err)
		}
	})
}
