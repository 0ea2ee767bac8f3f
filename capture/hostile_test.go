package capture_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
)

// The tests of this file play a broken or hostile VM: what it sends must
// end the capture with a clear error, soon, and nothing of it may reach a
// terminal as an escape sequence.

// shortTimeouts shortens the capture's waits on a silent VM for a test,
// the idle one the longer, as they are; long enough for what a test's
// VM does answer, under the race detector too.
func shortTimeouts(t *testing.T) {
	t.Cleanup(capture.SetTimeouts(500*time.Millisecond, 400*time.Millisecond))
}

// hostileTake takes a snapshot from target as take does, and fails the
// test when it took more than 3 s (the shortened timeouts are 0.5 s at
// most; the test's own context, 5 s, is not to be what ends it).
func hostileTake(t *testing.T, target string, opts *capture.Options) ([]byte, capture.Producer, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	var b bytes.Buffer
	s, err := capture.Connect(ctx, target, opts)
	if err == nil {
		_, err = s.Snapshot(ctx, &b)
		s.Close()
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("%s: %v to end (%v)", target, d, err)
	}
	return b.Bytes(), func() capture.Producer {
		if s != nil {
			return s.Producer()
		}
		return capture.Producer{}
	}(), err
}

// ws is an http:// server address as a WebSocket's.
func ws(httpURL string) string { return "ws" + strings.TrimPrefix(httpURL, "http") }

// respond answers each request of a session as answer says ("": none),
// until the client goes.
func respond(answer func(req fakevm.Request) []string) func(ctx context.Context, c *websocket.Conn) {
	return func(ctx context.Context, c *websocket.Conn) {
		for {
			req, err := fakevm.ReadRequest(ctx, c)
			if err != nil {
				return
			}
			for _, msg := range answer(req) {
				if fakevm.Send(ctx, c, msg) != nil {
					return
				}
			}
		}
	}
}

// TestHostile runs the tests of a VM that does not answer, all at once:
// each waits for a timeout, shortened.
func TestHostile(t *testing.T) {
	shortTimeouts(t)
	for _, test := range []struct {
		name string
		f    func(t *testing.T)
	}{
		{"inspector", hostileInspector},
		{"endpoint", hostileEndpoint},
		{"Dart VM", hostileDartVM},
		{"close after a failure", closeAfterFailure},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			test.f(t)
		})
	}
}

func hostileInspector(t *testing.T) {
	node := []fakevm.Page{{Type: "node", Title: "app.js"}}
	for _, c := range []struct {
		name   string
		vm     *fakevm.Inspector
		target func(t *testing.T, vm *fakevm.Inspector) string
		want   error
		words  string
	}{
		// A VM that never answers: the capture would wait for ever.
		{"silent after a chunk", &fakevm.Inspector{Pages: node, Script: respond(func(req fakevm.Request) []string {
			return []string{fakevm.ChunkMessage(`{"snap`)}
		})}, nil, capture.ErrDropped, "sent nothing for 500ms (is the program stopped, or not a VM?) (after 6 bytes"},
		// The list names a WebSocket elsewhere: not connected to.
		{"another host", &fakevm.Inspector{Pages: node, List: func(string) string {
			return `[{"type":"node","webSocketDebuggerUrl":"ws://192.0.2.1:9229/x"}]`
		}}, nil, capture.ErrNotVM, "another host, ws://192.0.2.1:9229/x"},
		{"another host by IPv6", &fakevm.Inspector{Pages: node, List: func(ws string) string {
			return `[{"type":"node","webSocketDebuggerUrl":"ws://[2001:db8::1]:9229/x"}]`
		}}, nil, capture.ErrNotVM, "another host"},
		{"not a WebSocket", &fakevm.Inspector{Pages: node, List: func(string) string {
			return `[{"type":"node","webSocketDebuggerUrl":"file:///etc/passwd"}]`
		}}, nil, capture.ErrNotVM, "no WebSocket address"},
		// A WebSocket that redirects to another host is not followed.
		{"redirected elsewhere", &fakevm.Inspector{Pages: node}, func(t *testing.T, _ *fakevm.Inspector) string {
			redirect := httptest.NewServer(http.RedirectHandler("http://192.0.2.1:9229/ws", http.StatusFound))
			t.Cleanup(redirect.Close)
			return ws(redirect.URL) + "/devtools/page/0"
		}, capture.ErrNotVM, "redirect to another host"},
		// Said otherwise than the protocol says it.
		{"an error after chunks", &fakevm.Inspector{Pages: node, Script: respond(func(req fakevm.Request) []string {
			return []string{fakevm.ChunkMessage("{}"), `{"id":` + string(req.ID) + `,"error":{"code":-32000,"message":"out of memory"}}`}
		})}, nil, nil, "takeHeapSnapshot: out of memory (code -32000)"},
		{"a binary message", &fakevm.Inspector{Pages: node, Script: func(ctx context.Context, c *websocket.Conn) {
			fakevm.ReadRequest(ctx, c)
			c.Write(ctx, websocket.MessageBinary, []byte{0, 1, 2})
			<-ctx.Done()
		}}, nil, capture.ErrProtocol, "invalid character"},
		{"a bad escape", &fakevm.Inspector{Pages: node, Script: respond(func(req fakevm.Request) []string {
			return []string{`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"\uZZZZ"}}`}
		})}, nil, capture.ErrProtocol, "bad escape"},
		// A message the library's reader ends: a clear error, not a wait.
		{"closed with a reason", &fakevm.Inspector{Pages: node, Script: func(ctx context.Context, c *websocket.Conn) {
			c.Close(websocket.StatusGoingAway, "bye \x1b]0;title\a")
		}}, nil, capture.ErrDropped, `reason = "bye \x1b]0;title\a"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			vm := c.vm
			vm.Start()
			defer vm.Close()
			target := vm.URL()
			if c.target != nil {
				target = c.target(t, vm)
			}
			_, _, err := hostileTake(t, target, nil)
			if err == nil || c.want != nil && !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) {
				t.Errorf("got %v, want %v with %q", err, c.want, c.words)
			}
			if strings.Contains(c.name, "host") && vm.Connections.Load() > 0 {
				t.Errorf("connected to the WebSocket")
			}
		})
	}
}

// hostileEndpoint: an HTTP endpoint that answers slowly, endlessly or
// elsewhere.
func hostileEndpoint(t *testing.T) {
	vm := &fakevm.Inspector{Browser: "node.js/v20.0.0", Pages: []fakevm.Page{{Type: "node", Title: "app.js"}}, Chunks: []string{"{}"}}
	vm.Start()
	t.Cleanup(vm.Close) // after the parallel subtests
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		ws      bool // the target is the server's WebSocket
		want    error
		words   string
		or      error // another error that is right
	}{
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"Browser": "node`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, false, capture.ErrUnreachable, "no answer within", nil},
		// Cut at 16 MB, or at the timeout when reading them is slower.
		{"endless body", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"Browser": "`))
			for r.Context().Err() == nil {
				if _, err := w.Write(bytes.Repeat([]byte("a"), 1<<16)); err != nil {
					return
				}
			}
		}, false, capture.ErrNotVM, "answers neither", capture.ErrUnreachable},
		{"slow handshake of a Dart VM", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, true, capture.ErrUnreachable, "handshake within", nil},
		{"escapes in the status", func(w http.ResponseWriter, r *http.Request) {
			conn, bw, _ := w.(http.Hijacker).Hijack()
			bw.WriteString("HTTP/1.1 404 Not\x1b[2J Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			bw.Flush()
			conn.Close()
		}, true, capture.ErrNotVM, `404 Not\x1b[2J Found`, nil},
		{"a bad handshake", func(w http.ResponseWriter, r *http.Request) {
			conn, bw, _ := w.(http.Hijacker).Hijack()
			bw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
			bw.Flush()
			conn.Close()
		}, true, capture.ErrNotVM, "handshake the protocol does not allow", nil},
		// A redirect on the same host (a Dart VM service sends WebSocket
		// clients to its DDS, on another port) is followed; to another
		// host, not.
		{"redirected on the host", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, vm.URL()+r.URL.Path, http.StatusFound)
		}, false, nil, "", nil},
		{"redirected to localhost", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(vm.URL(), "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
		}, false, nil, "", nil},
		{"redirected elsewhere", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://192.0.2.1:9229"+r.URL.Path, http.StatusFound)
		}, false, capture.ErrNotVM, "redirect to another host", nil},
		// The WebSocket on the same machine by another name (Node and
		// Chrome name it by the Host of the request) is connected to.
		{"a list naming localhost", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/json/list" {
				fmt.Fprintf(w, `[{"type":"node","webSocketDebuggerUrl":%q}]`, strings.Replace(vm.PageURL(0), "127.0.0.1", "localhost", 1))
				return
			}
			http.Redirect(w, r, vm.URL()+r.URL.Path, http.StatusFound)
		}, false, nil, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			target := srv.URL
			if c.ws {
				target = ws(srv.URL) + "/devtools/page/0"
			}
			if strings.Contains(c.name, "Dart VM") {
				target = ws(srv.URL) + "/ws"
			}
			got, _, err := hostileTake(t, target, nil)
			if c.want == nil {
				if err != nil || string(got) != "{}" {
					t.Errorf("got %q, %v", got, err)
				}
				return
			}
			right := errors.Is(err, c.want) && strings.Contains(err.Error(), c.words) || c.or != nil && errors.Is(err, c.or)
			if !right {
				t.Errorf("got %v, want %v with %q", err, c.want, c.words)
			}
		})
	}
}

// TestHostileText: what the VM names itself, its pages and isolates, and
// its errors reach a terminal with their control characters escaped
// (an escape sequence could retitle the window, clear the screen, set
// the clipboard), and cut.
func TestHostileText(t *testing.T) {
	const esc = "\x1b]52;c;cHduZWQ=\a\x1b[2J\u009b31m"
	long := strings.Repeat("x", 100000)
	check := func(t *testing.T, what string, s string) {
		t.Helper()
		for _, r := range s {
			if r < 0x20 || 0x7f <= r && r < 0xa0 {
				t.Errorf("%s holds the control character %U: %q", what, r, s)
				return
			}
		}
		if len(s) > 2000 {
			t.Errorf("%s: %d bytes", what, len(s))
		}
	}
	t.Run("inspector", func(t *testing.T) {
		vm := &fakevm.Inspector{Browser: "node.js/" + esc + long, Pages: []fakevm.Page{{Type: "node", Title: "app" + esc + long}},
			Script: respond(func(req fakevm.Request) []string {
				msg, _ := json.Marshal("no" + esc + long)
				return []string{`{"id":` + string(req.ID) + `,"error":{"code":-32000,"message":` + string(msg) + `}}`}
			})}
		vm.Start()
		defer vm.Close()
		_, p, err := hostileTake(t, vm.URL(), nil)
		check(t, "the VM", p.VM)
		check(t, "the target", p.Target)
		if err == nil {
			t.Fatal("no error")
		}
		check(t, "the error", err.Error())
	})
	t.Run("pages", func(t *testing.T) {
		var list strings.Builder
		list.WriteString("[")
		for i := range 1000 {
			fmt.Fprintf(&list, `{"type":"page","title":"t%d\u001b[2J","url":"http://x/%d\u001b[2J","webSocketDebuggerUrl":"ws://127.0.0.1:1/%d"},`, i, i, i)
		}
		list.WriteString(`{"type":"page"}]`)
		vm := &fakevm.Inspector{List: func(string) string { return list.String() }}
		vm.Start()
		defer vm.Close()
		_, _, err := hostileTake(t, vm.URL(), nil)
		if !errors.Is(err, capture.ErrNoTarget) || !strings.Contains(err.Error(), "and 981 more") {
			t.Fatalf("got %v", err)
		}
		check(t, "the error", strings.ReplaceAll(err.Error(), "\n", " "))
	})
	t.Run("Dart VM", func(t *testing.T) {
		var isolates []string
		for i := range 1000 {
			isolates = append(isolates, fmt.Sprintf("worker %d%s", i, esc))
		}
		vm := &fakevm.DartVM{Version: esc + "3" + esc, Isolates: isolates}
		vm.Start()
		defer vm.Close()
		_, _, err := hostileTake(t, vm.URI(), nil)
		if !errors.Is(err, capture.ErrNoTarget) || !strings.Contains(err.Error(), "and 980 more") {
			t.Fatalf("got %v", err)
		}
		check(t, "the error", err.Error())
		vm.Isolates, vm.Chunks = []string{"main" + esc + long}, [][]byte{[]byte("dartheap")}
		_, p, err := hostileTake(t, vm.URI(), nil)
		check(t, "the VM", p.VM)
		check(t, "the target", p.Target)
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Dart errors", func(t *testing.T) {
		vm := &fakevm.DartVM{Script: respond(func(req fakevm.Request) []string {
			if req.Method == "getVM" {
				return []string{fakevm.Reply(req, `{"type":"VM","version":"3","isolates":[{"id":"i/1","name":"main"}]}`)}
			}
			return []string{`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":1,"message":"\u001b[2J","data":{"details":"\u009b31m` + long + `"}}}`}
		})}
		vm.Start()
		defer vm.Close()
		_, _, err := hostileTake(t, vm.URI(), &capture.Options{GC: true})
		if err == nil {
			t.Fatal("no error")
		}
		check(t, "the error", err.Error())
	})
}

func hostileDartVM(t *testing.T) {
	getVM := func(req fakevm.Request) []string {
		return []string{fakevm.Reply(req, `{"type":"VM","version":"3.7.3 (stable)","isolates":[{"id":"isolates/1","name":"main"}]}`)}
	}
	// chunks answers requestHeapSnapshot with binary messages, then
	// (reply) its reply.
	chunks := func(reply bool, msgs ...[]byte) func(ctx context.Context, c *websocket.Conn) {
		return func(ctx context.Context, c *websocket.Conn) {
			for {
				req, err := fakevm.ReadRequest(ctx, c)
				if err != nil {
					return
				}
				switch req.Method {
				case "getVM":
					fakevm.Send(ctx, c, getVM(req)[0])
				case "requestHeapSnapshot":
					for _, m := range msgs {
						c.Write(ctx, websocket.MessageBinary, m)
					}
					if reply {
						fakevm.Send(ctx, c, fakevm.Reply(req, `{"type":"Success"}`))
					}
				default:
					fakevm.Send(ctx, c, fakevm.Reply(req, `{"type":"Success"}`))
				}
			}
		}
	}
	offset := func(off uint32, rest string) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, off), rest...)
	}
	for _, c := range []struct {
		name   string
		script func(ctx context.Context, c *websocket.Conn)
		want   error
		words  string
	}{
		{"getVM never answered", func(ctx context.Context, c *websocket.Conn) { <-ctx.Done() }, capture.ErrNotVM, "did not answer getVM"},
		// Neither the last chunk nor the reply (which would come after it).
		{"last chunk never sent", chunks(false, fakevm.Chunk("isolates/1", []byte("dartheap"), false)), capture.ErrDropped, "sent nothing for 500ms (is the program stopped, or not a VM?) (after 8 bytes"},
		// A binary message that ends early is the VM's fault, not a
		// connection's end.
		{"shorter than its offset", chunks(true, []byte{1, 2}), capture.ErrProtocol, "shorter than its header"},
		{"offset past the end", chunks(true, offset(100, `{"params":{}}`)), capture.ErrProtocol, "shorter than its header"},
		{"offset in the offset", chunks(true, offset(2, `xx`)), capture.ErrProtocol, "begins at byte 2"},
		{"offset huge", chunks(true, offset(1<<31, `{}`)), capture.ErrProtocol, "begins at byte 2147483648"},
		{"event not JSON", chunks(true, offset(8, `{{{{data`)), capture.ErrProtocol, "event"},
		{"sentinel", respond(func(req fakevm.Request) []string {
			if req.Method == "getVM" {
				return getVM(req)
			}
			return []string{fakevm.Reply(req, `{"type":"Sentinel","kind":"Collected","valueAsString":"<collected>"}`)}
		}), capture.ErrNoTarget, "the isolate is gone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			vm := &fakevm.DartVM{Script: c.script}
			vm.Start()
			defer vm.Close()
			_, _, err := hostileTake(t, vm.URI(), nil)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) {
				t.Errorf("got %v, want %v with %q", err, c.want, c.words)
			}
		})
	}
}

// closeAfterFailure: closing a session whose snapshot failed does not
// wait for the VM to answer the closing handshake, which a broken VM may
// never do (the library waits 5 s).
func closeAfterFailure(t *testing.T) {
	vm := &fakevm.Inspector{Pages: []fakevm.Page{{Type: "node"}}, Script: func(ctx context.Context, c *websocket.Conn) {
		if _, err := fakevm.ReadRequest(ctx, c); err != nil {
			return
		}
		fakevm.Send(ctx, c, `{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"\x"}}`)
		<-ctx.Done() // reads nothing more: no answer to a close
	}}
	vm.Start()
	defer vm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := capture.Connect(ctx, vm.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(ctx, io.Discard); !errors.Is(err, capture.ErrProtocol) {
		t.Errorf("got %v, want ErrProtocol", err)
	}
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
}
