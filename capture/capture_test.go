package capture_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

func TestParseTarget(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind capture.Kind
		url  string
		pid  int
	}{
		{"http://127.0.0.1:8181/AbCd1234=/", capture.DartVM, "http://127.0.0.1:8181/AbCd1234=/", 0},
		{"ws://127.0.0.1:8181/AbCd1234=/ws", capture.DartVM, "ws://127.0.0.1:8181/AbCd1234=/ws", 0},
		{"ws://127.0.0.1:8181/ws", capture.DartVM, "ws://127.0.0.1:8181/ws", 0},
		{"http://127.0.0.1:9100/?uri=http://127.0.0.1:8181/AbCd1234=/", capture.DartVM, "http://127.0.0.1:8181/AbCd1234=/", 0},
		{"http://127.0.0.1:9100/#/?uri=ws://127.0.0.1:8181/AbCd1234=/ws", capture.Endpoint, "http://127.0.0.1:9100", 0},
		{"ws://127.0.0.1:9229/0f2c9d1e-5a8b-4c3d-9e7f-1a2b3c4d5e6f", capture.Inspector, "ws://127.0.0.1:9229/0f2c9d1e-5a8b-4c3d-9e7f-1a2b3c4d5e6f", 0},
		{"ws://127.0.0.1:9222/devtools/page/ABC", capture.Inspector, "ws://127.0.0.1:9222/devtools/page/ABC", 0},
		{"http://127.0.0.1:9229", capture.Endpoint, "http://127.0.0.1:9229", 0},
		{"http://127.0.0.1:9229/", capture.Endpoint, "http://127.0.0.1:9229", 0},
		{"127.0.0.1:9229", capture.Endpoint, "http://127.0.0.1:9229", 0},
		{"pid:4242", capture.NodeProcess, "", 4242},
	} {
		got, err := capture.ParseTarget(c.in)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", c.in, err)
			continue
		}
		if got.Kind != c.kind || got.PID != c.pid || c.url != "" && got.URL.String() != c.url {
			t.Errorf("ParseTarget(%q) = kind %d, %v, pid %d; want kind %d, %s, pid %d", c.in, got.Kind, got.URL, got.PID, c.kind, c.url, c.pid)
		}
	}
	for _, bad := range []string{"pid:", "pid:-3", "pid:x", "ftp://host/", "http://127.0.0.1:9229/some/path", "", "http://"} {
		if _, err := capture.ParseTarget(bad); !errors.Is(err, capture.ErrNoTarget) {
			t.Errorf("ParseTarget(%q) = %v, want ErrNoTarget", bad, err)
		}
	}
}

// snapshotText is a V8 snapshot's text as the chunks carry it, with what
// the unescaping must get right: escapes of its own (a string's quote,
// a lone surrogate as V8 writes it), and text beyond ASCII.
const snapshotText = `{"snapshot":{"meta":{}},"strings":["a \"quoted\" word","lone \uD800 surrogate","Zürich 東京 🙂"]}`

// take connects to target and takes one snapshot.
func take(t *testing.T, target string, opts *capture.Options) ([]byte, capture.Producer, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := capture.Connect(ctx, target, opts)
	if err != nil {
		return nil, capture.Producer{}, err
	}
	defer s.Close()
	var b bytes.Buffer
	n, err := s.Snapshot(ctx, &b)
	if err == nil && n != int64(b.Len()) {
		t.Errorf("Snapshot returned %d bytes, wrote %d", n, b.Len())
	}
	return b.Bytes(), s.Producer(), err
}

func TestInspector(t *testing.T) {
	split := func(s string, at ...int) []string {
		var out []string
		prev := 0
		for _, i := range at {
			out = append(out, s[prev:i])
			prev = i
		}
		return append(out, s[prev:])
	}
	emoji := strings.Index(snapshotText, "🙂")
	for _, c := range []struct {
		name   string
		chunks []string
		escape func(string) string
	}{
		{"one chunk", []string{snapshotText}, nil},
		{"many chunks", split(snapshotText, 1, 10, 40, len(snapshotText)-1), nil},
		// An encoder that escapes everything beyond ASCII as UTF-16, cut
		// between a surrogate pair's halves: the pair is one character.
		{"pair across chunks", pairSplit(snapshotText, emoji), asciiJSON},
		{"escaped ASCII", split(snapshotText, emoji), func(s string) string { return strings.ReplaceAll(asciiJSON(s), "/", `\/`) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm := &fakevm.Inspector{Browser: "node.js/v20.0.0", Pages: []fakevm.Page{{Type: "node", Title: "app.js", URL: "file:///app.js"}}, Chunks: c.chunks, Escape: c.escape}
			vm.Start()
			defer vm.Close()
			var progress []capture.Progress
			for _, target := range []string{vm.URL(), vm.PageURL(0)} {
				progress = progress[:0]
				got, p, err := take(t, target, &capture.Options{GC: true, Progress: func(p capture.Progress) { progress = append(progress, p) }})
				if err != nil {
					t.Fatalf("%s: %v", target, err)
				}
				if string(got) != snapshotText {
					t.Errorf("%s: got\n%q\nwant\n%q", target, got, snapshotText)
				}
				if p.Format != "v8" || p.VM != "node.js/v20.0.0" {
					t.Errorf("%s: producer %+v", target, p)
				}
				if len(progress) < 3 || progress[0].Total != 100 || progress[len(progress)-1].Received != int64(len(snapshotText)) {
					t.Errorf("%s: progress %+v", target, progress)
				}
			}
			if vm.GCs.Load() != 2 {
				t.Errorf("%d garbage collections asked for, want 2", vm.GCs.Load())
			}
		})
	}
}

// pairSplit cuts s's text, escaped, between the two halves of the
// surrogate pair that encodes the character at byte i: the chunks are
// the texts of each side, the first ending in a high surrogate.
func pairSplit(s string, i int) []string {
	return []string{s[:i] + "\x00hi", "\x00lo" + s[i+len("🙂"):]}
}

// asciiJSON encodes s as a JSON string with every character beyond ASCII
// escaped as UTF-16, as V8's inspector does; pairSplit's markers become
// the halves of 🙂's surrogate pair.
func asciiJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 && r != 0:
			b.WriteString(`\u00` + strconv.FormatInt(int64(r)>>4, 16) + strconv.FormatInt(int64(r)&15, 16))
		case r < 0x80:
			b.WriteRune(r)
		case r >= 0x10000:
			r -= 0x10000
			b.WriteString(`\u` + strconv.FormatInt(int64(0xD800+(r>>10)), 16) + `\u` + strconv.FormatInt(int64(0xDC00+(r&0x3FF)), 16))
		default:
			b.WriteString(`\u` + leftPad(strconv.FormatInt(int64(r), 16)))
		}
	}
	b.WriteByte('"')
	out := b.String()
	out = strings.ReplaceAll(out, "\x00hi", `\ud83d`)
	return strings.ReplaceAll(out, "\x00lo", `\ude42`)
}

func leftPad(h string) string { return strings.Repeat("0", 4-len(h)) + h }

func TestInspectorErrors(t *testing.T) {
	node := []fakevm.Page{{Type: "node", Title: "app.js", URL: "file:///app.js"}}
	pages := []fakevm.Page{
		{Type: "page", Title: "Inbox", URL: "https://mail.example/inbox"},
		{Type: "browser_ui", Title: "Omnibox", URL: "chrome://omnibox"},
		{Type: "page", Title: "Shop", URL: "http://localhost:3000/shop"},
	}
	for _, c := range []struct {
		name  string
		vm    *fakevm.Inspector
		page  string
		want  error
		words string
	}{
		{"dropped", &fakevm.Inspector{Pages: node, Chunks: []string{"{", "}", "x"}, DropAfter: 2}, "", capture.ErrDropped, "after 2 bytes"},
		{"no profiler", &fakevm.Inspector{Pages: node, NoProfiler: true}, "", capture.ErrNoHeapSnapshots, "wasn't found"},
		{"several pages", &fakevm.Inspector{Pages: pages}, "", capture.ErrNoTarget, "has 2 pages"},
		{"no such page", &fakevm.Inspector{Pages: pages}, "nothing", capture.ErrNoTarget, "localhost:3000/shop"},
		{"no pages", &fakevm.Inspector{Pages: pages[1:2]}, "", capture.ErrNoTarget, "no page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm := c.vm
			vm.Start()
			defer vm.Close()
			_, _, err := take(t, vm.URL(), &capture.Options{Page: c.page})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) {
				t.Errorf("got %v, want %v with %q", err, c.want, c.words)
			}
			if vm.Connections.Load() > 0 && errors.Is(c.want, capture.ErrNoTarget) {
				t.Errorf("connected to a page although none was chosen")
			}
		})
	}
	t.Run("page chosen", func(t *testing.T) {
		vm := fakevm.Inspector{Pages: pages, Chunks: []string{"{}"}, Browser: "Chrome/131.0.0.0"}
		vm.Start()
		defer vm.Close()
		got, p, err := take(t, vm.URL(), &capture.Options{Page: "Shop"})
		if err != nil || string(got) != "{}" || p.Target != "http://localhost:3000/shop" || p.VM != "Chrome/131.0.0.0" {
			t.Errorf("got %q, %+v, %v", got, p, err)
		}
	})
}

func TestDartVM(t *testing.T) {
	data := [][]byte{[]byte("dartheap\x00\x01"), bytes.Repeat([]byte{7}, 100000), {1, 2, 3}}
	want := bytes.Join(data, nil)
	for _, c := range []struct {
		name string
		vm   *fakevm.DartVM
		opts capture.Options
	}{
		{"auth code", &fakevm.DartVM{AuthCode: "AbCd1234=", Isolates: []string{"vm-service", "main"}}, capture.Options{}},
		{"no auth code", &fakevm.DartVM{Isolates: []string{"main"}}, capture.Options{}},
		{"reply first", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}, ReplyFirst: true}, capture.Options{}},
		{"another isolate's chunk", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}, OtherIsolate: true}, capture.Options{}},
		{"isolate by name", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main", "worker"}}, capture.Options{Isolate: "worker", GC: true}},
		{"the only isolate", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"app"}}, capture.Options{}},
		{"not runnable yet", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}, NotRunnable: 3}, capture.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm := c.vm
			vm.Version, vm.Chunks = "3.7.3", data
			vm.Start()
			defer vm.Close()
			targets := []string{vm.URI(), "ws" + strings.TrimPrefix(vm.URI(), "http") + "ws"}
			for _, target := range targets {
				got, p, err := take(t, target, &c.opts)
				if err != nil {
					t.Fatalf("%s: %v", target, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: got %d bytes, want %d", target, len(got), len(want))
				}
				wantIsolate := "isolate " + map[bool]string{true: c.opts.Isolate, false: "main"}[c.opts.Isolate != ""]
				if c.name == "the only isolate" {
					wantIsolate = "isolate app"
				}
				if p.Format != "dart" || p.VM != "Dart 3.7.3 (stable)" || p.Target != wantIsolate {
					t.Errorf("%s: producer %+v", target, p)
				}
			}
			if c.opts.GC && vm.GCs.Load() != int32(len(targets)) {
				t.Errorf("%d garbage collections, want %d", vm.GCs.Load(), len(targets))
			}
		})
	}
}

func TestDartVMErrors(t *testing.T) {
	data := [][]byte{[]byte("dartheap"), []byte("more")}
	for _, c := range []struct {
		name   string
		vm     *fakevm.DartVM
		opts   capture.Options
		target func(vm *fakevm.DartVM) string
		want   error
		words  string
	}{
		{"product mode", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}, Disabled: true}, capture.Options{}, nil,
			capture.ErrNoHeapSnapshots, "product mode"},
		{"dropped", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}, DropAfter: 1}, capture.Options{}, nil,
			capture.ErrDropped, "after 8 bytes"},
		{"no such isolate", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}}, capture.Options{Isolate: "worker"}, nil,
			capture.ErrNoTarget, `"main"`},
		{"which isolate", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"a", "b"}}, capture.Options{}, nil,
			capture.ErrNoTarget, `"a", "b"`},
		{"no isolate", &fakevm.DartVM{AuthCode: "x=", Isolates: nil}, capture.Options{}, nil,
			capture.ErrNoTarget, "no isolate"},
		{"wrong auth code", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}}, capture.Options{},
			func(vm *fakevm.DartVM) string { return strings.Replace(vm.URI(), "x=", "y=", 1) }, capture.ErrNotVM, "403"},
		{"auth code left out", &fakevm.DartVM{AuthCode: "x=", Isolates: []string{"main"}}, capture.Options{},
			func(vm *fakevm.DartVM) string { return strings.Replace(vm.URI(), "/x=/", "/", 1) }, capture.ErrNotVM, "auth code"},
	} {
		t.Run(c.name, func(t *testing.T) {
			vm := c.vm
			vm.Version, vm.Chunks = "2.18.1", data
			vm.Start()
			defer vm.Close()
			target := vm.URI()
			if c.target != nil {
				target = c.target(vm)
			}
			_, _, err := take(t, target, &c.opts)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) {
				t.Errorf("got %v, want %v with %q", err, c.want, c.words)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	vm := &fakevm.Inspector{}
	vm.Start()
	addr := vm.URL()
	vm.Close() // nothing listens there now
	for _, target := range []string{addr, strings.Replace(addr, "http", "ws", 1) + "/x", addr + "/AbCd=/"} {
		if _, _, err := take(t, target, nil); !errors.Is(err, capture.ErrUnreachable) {
			t.Errorf("%s: %v, want ErrUnreachable", target, err)
		}
	}
}

// TestPIDNotNode: a pid: target that is not a Node process is refused,
// and not signalled: SIGUSR1 would end it.
func TestPIDNotNode(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("pid: targets need /proc")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	_, _, err := take(t, "pid:"+strconv.Itoa(cmd.Process.Pid), nil)
	if !errors.Is(err, capture.ErrNoTarget) || !strings.Contains(err.Error(), "not node") {
		t.Errorf("got %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process is gone: %v", err)
	}
	if _, _, err := take(t, "pid:999999999", nil); !errors.Is(err, capture.ErrNoTarget) {
		t.Errorf("a pid no process has: %v", err)
	}
}

// TestNotVM: an HTTP server that is neither an inspector nor a VM
// service is named as such.
func TestNotVM(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	for _, target := range []string{srv.URL, strings.Replace(srv.URL, "http", "ws", 1) + "/devtools/page/1", srv.URL + "/AbCd=/"} {
		if _, _, err := take(t, target, nil); !errors.Is(err, capture.ErrNotVM) {
			t.Errorf("%s: %v, want ErrNotVM", target, err)
		}
	}
}

// TestWhich: a VM with several pages, or isolates none named "main", asks
// for a choice: the error is an ErrNoTarget that says which choice.
func TestWhich(t *testing.T) {
	pages, dart := fakevm.StartAmbiguous()
	defer pages.Close()
	defer dart.Close()
	for _, c := range []struct {
		target       string
		opts         *capture.Options
		which, other error
	}{
		{pages.URL(), nil, capture.ErrWhichPage, capture.ErrWhichIsolate},
		{pages.URL(), &capture.Options{Page: "http"}, capture.ErrWhichPage, capture.ErrWhichIsolate},
		{dart.URI(), nil, capture.ErrWhichIsolate, capture.ErrWhichPage},
	} {
		_, _, err := take(t, c.target, c.opts)
		if !errors.Is(err, c.which) || !errors.Is(err, capture.ErrNoTarget) || errors.Is(err, c.other) {
			t.Errorf("%s: %v, want %v and ErrNoTarget", c.target, err, c.which)
		}
	}
	// A choice that matches nothing is no question of which.
	_, _, err := take(t, dart.URI(), &capture.Options{Isolate: "c"})
	if !errors.Is(err, capture.ErrNoTarget) || errors.Is(err, capture.ErrWhichIsolate) {
		t.Errorf("no isolate c: %v", err)
	}
}
