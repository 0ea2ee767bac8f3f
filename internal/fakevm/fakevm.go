// Package fakevm serves the two protocols package capture speaks, the V8
// inspector's and the Dart VM service's, from scripted VMs, for tests of
// what real VMs do rarely or cannot be made to do: drop the connection
// in the middle of a snapshot, refuse snapshots as a product-mode Dart VM
// does, send a surrogate pair's halves in two chunks, list several pages.
// Real VMs are the conformance suite's.
package fakevm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/coder/websocket"
)

// Inspector is a scripted V8 inspector: an HTTP endpoint that lists
// Pages, each a WebSocket that answers HeapProfiler.takeHeapSnapshot with
// Chunks.
type Inspector struct {
	// Browser is /json/version's "Browser".
	Browser string
	// Pages are /json/list's targets; the first is served at
	// /devtools/page/0, and so on. Type "node" for a Node process.
	Pages []Page
	// Chunks are the snapshot's text, sent in this order, each as the
	// JSON string of an addHeapSnapshotChunk event (Escape, when set,
	// writes the string instead of encoding/json).
	Chunks []string
	Escape func(chunk string) string
	// DropAfter closes the connection after that many chunks (0: never).
	DropAfter int
	// NoProfiler answers every HeapProfiler method as unknown, as a
	// browser's own target does.
	NoProfiler bool
	// List, when set, writes /json/list's answer instead of Pages, given
	// page 0's WebSocket address: a broken or hostile endpoint's.
	List func(ws string) string
	// Script, when set, runs each WebSocket session instead of the
	// scripted snapshot: a broken or hostile VM (ReadRequest, Send).
	Script func(ctx context.Context, c *websocket.Conn)
	// Connections counts the WebSockets accepted.
	Connections atomic.Int32
	// GCs counts HeapProfiler.collectGarbage calls.
	GCs atomic.Int32

	srv *httptest.Server
}

// Page is a target an inspector lists.
type Page struct {
	Type, Title, URL string
}

// Start serves the inspector on a loopback port until Close.
func (in *Inspector) Start() {
	in.srv = httptest.NewServer(http.HandlerFunc(in.serve))
}

// URL is the HTTP endpoint (http://127.0.0.1:PORT).
func (in *Inspector) URL() string { return in.srv.URL }

// PageURL is page i's WebSocket.
func (in *Inspector) PageURL(i int) string {
	return "ws" + strings.TrimPrefix(in.srv.URL, "http") + fmt.Sprintf("/devtools/page/%d", i)
}

// Close stops the server.
func (in *Inspector) Close() { in.srv.Close() }

func (in *Inspector) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/json/version":
		json.NewEncoder(w).Encode(map[string]string{"Browser": in.Browser, "Protocol-Version": "1.3"})
	case (r.URL.Path == "/json/list" || r.URL.Path == "/json") && in.List != nil:
		fmt.Fprint(w, in.List(in.PageURL(0)))
	case r.URL.Path == "/json/list" || r.URL.Path == "/json":
		var list []map[string]string
		for i, p := range in.Pages {
			list = append(list, map[string]string{"type": p.Type, "title": p.Title, "url": p.URL, "webSocketDebuggerUrl": in.PageURL(i)})
		}
		json.NewEncoder(w).Encode(list)
	case strings.HasPrefix(r.URL.Path, "/devtools/page/"):
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		in.Connections.Add(1)
		defer c.CloseNow()
		if in.Script != nil {
			c.SetReadLimit(-1)
			in.Script(r.Context(), c)
			return
		}
		in.session(r.Context(), c)
	default:
		http.NotFound(w, r)
	}
}

func (in *Inspector) session(ctx context.Context, c *websocket.Conn) {
	send := func(v any) error {
		data, _ := json.Marshal(v)
		return c.Write(ctx, websocket.MessageText, data)
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(data, &req) != nil {
			return
		}
		if in.NoProfiler && strings.HasPrefix(req.Method, "HeapProfiler.") {
			send(map[string]any{"id": req.ID, "error": map[string]any{"code": -32601, "message": fmt.Sprintf("'%s' wasn't found", req.Method)}})
			continue
		}
		switch req.Method {
		case "HeapProfiler.collectGarbage":
			in.GCs.Add(1)
			send(map[string]any{"id": req.ID, "result": map[string]any{}})
		case "HeapProfiler.takeHeapSnapshot":
			send(map[string]any{"method": "HeapProfiler.reportHeapSnapshotProgress", "params": map[string]any{"done": 0, "total": 100}})
			send(map[string]any{"method": "HeapProfiler.reportHeapSnapshotProgress", "params": map[string]any{"done": 100, "total": 100, "finished": true}})
			for i, chunk := range in.Chunks {
				if in.DropAfter > 0 && i == in.DropAfter {
					c.CloseNow()
					return
				}
				var s string
				if in.Escape != nil {
					s = in.Escape(chunk)
				} else {
					b, _ := json.Marshal(chunk)
					s = string(b)
				}
				msg := `{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":` + s + `}}`
				if c.Write(ctx, websocket.MessageText, []byte(msg)) != nil {
					return
				}
			}
			send(map[string]any{"id": req.ID, "result": map[string]any{}})
		default:
			send(map[string]any{"id": req.ID, "result": map[string]any{}})
		}
	}
}

// DartVM is a scripted Dart VM service: getVM lists Isolates, and
// requestHeapSnapshot streams Chunks as the HeapSnapshot stream's binary
// events.
type DartVM struct {
	// AuthCode is the path's first segment ("AbCd="); "" serves at /ws.
	AuthCode string
	Version  string
	// Isolates are getVM's isolates: names; ids are "isolates/<i>".
	Isolates []string
	Chunks   [][]byte
	// ReplyFirst sends requestHeapSnapshot's reply before the chunks
	// (a VM sends it after).
	ReplyFirst bool
	// OtherIsolate sends a chunk of another isolate's snapshot first.
	OtherIsolate bool
	// Disabled answers requestHeapSnapshot with "Feature is disabled",
	// as a VM in product mode does.
	Disabled bool
	// DropAfter closes the connection after that many chunks (0: never).
	DropAfter int
	// NotRunnable answers the first that many requestHeapSnapshot calls
	// with "Isolate must be runnable", as a VM whose main isolate is
	// still loading does.
	NotRunnable int
	// GCs counts getAllocationProfile calls with gc.
	GCs atomic.Int32
	// Script, when set, runs each WebSocket session instead of the
	// scripted VM: a broken or hostile one (ReadRequest, Send).
	Script func(ctx context.Context, c *websocket.Conn)

	srv *httptest.Server
}

// Start serves the VM service on a loopback port until Close.
func (d *DartVM) Start() { d.srv = httptest.NewServer(http.HandlerFunc(d.serve)) }

// URI is the service's address as a VM prints it
// (http://127.0.0.1:PORT/CODE=/).
func (d *DartVM) URI() string {
	if d.AuthCode == "" {
		return d.srv.URL + "/"
	}
	return d.srv.URL + "/" + d.AuthCode + "/"
}

// Close stops the server.
func (d *DartVM) Close() { d.srv.Close() }

func (d *DartVM) serve(w http.ResponseWriter, r *http.Request) {
	prefix := "/"
	if d.AuthCode != "" {
		prefix += d.AuthCode + "/"
	}
	switch r.URL.Path {
	case prefix + "ws":
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(-1)
		if d.Script != nil {
			d.Script(r.Context(), c)
			return
		}
		d.session(r.Context(), c)
	case prefix + "getVersion":
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "result": map[string]any{"type": "Version", "major": 4, "minor": 0}})
	default:
		if d.AuthCode == "" {
			// A VM without auth codes answers every path, as JSON-RPC.
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": "", "error": map[string]any{"code": -32601, "message": "Method not found"}})
			return
		}
		http.Error(w, "forbidden", http.StatusForbidden)
	}
}

func (d *DartVM) session(ctx context.Context, c *websocket.Conn) {
	send := func(v any) error {
		data, _ := json.Marshal(v)
		return c.Write(ctx, websocket.MessageText, data)
	}
	reply := func(id json.RawMessage, result any) error {
		return send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				IsolateID string `json:"isolateId"`
				GC        bool   `json:"gc"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &req) != nil {
			return
		}
		switch req.Method {
		case "getVM":
			var isolates []map[string]any
			for i, name := range d.Isolates {
				isolates = append(isolates, map[string]any{"type": "@Isolate", "id": fmt.Sprintf("isolates/%d", i), "name": name, "isSystemIsolate": false})
			}
			reply(req.ID, map[string]any{"type": "VM", "version": d.Version + ` (stable) (Tue Jan 1 00:00:00 2025 +0000) on "linux_x64"`, "isolates": isolates})
		case "getAllocationProfile":
			if req.Params.GC {
				d.GCs.Add(1)
			}
			reply(req.ID, map[string]any{"type": "AllocationProfile", "members": []any{}})
		case "streamListen":
			reply(req.ID, map[string]any{"type": "Success"})
		case "requestHeapSnapshot":
			if d.NotRunnable > 0 {
				d.NotRunnable--
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": 105, "message": "Isolate must be runnable"}})
				continue
			}
			if d.Disabled {
				send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": 100, "message": "Feature is disabled",
					"data": map[string]any{"details": "The requested feature is disabled in product mode."}}})
				continue
			}
			if !d.snapshot(ctx, c, req.Params.IsolateID, func() error { return reply(req.ID, map[string]any{"type": "Success"}) }) {
				return
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

// snapshot sends the chunks and the reply; false when the connection is
// to be dropped.
func (d *DartVM) snapshot(ctx context.Context, c *websocket.Conn, isolate string, reply func() error) bool {
	if d.ReplyFirst && reply() != nil {
		return false
	}
	if d.OtherIsolate && c.Write(ctx, websocket.MessageBinary, Chunk("isolates/99", []byte("not ours"), false)) != nil {
		return false
	}
	for i, data := range d.Chunks {
		if d.DropAfter > 0 && i == d.DropAfter {
			c.CloseNow()
			return false
		}
		if c.Write(ctx, websocket.MessageBinary, Chunk(isolate, data, i == len(d.Chunks)-1)) != nil {
			return false
		}
	}
	return d.ReplyFirst || reply() == nil
}

// Chunk frames data as the VM service sends a HeapSnapshot event: a
// little-endian uint32 of the data's offset, the event as JSON padded
// with spaces, the data.
func Chunk(isolate string, data []byte, last bool) []byte {
	event := map[string]any{"type": "Event", "kind": "HeapSnapshot", "isolate": map[string]any{"type": "@Isolate", "id": isolate}, "timestamp": 1}
	if last {
		event["last"] = true
	}
	meta, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "streamNotify", "params": map[string]any{"streamId": "HeapSnapshot", "event": event}})
	for (4+len(meta))%8 != 0 {
		meta = append(meta, ' ')
	}
	msg := binary.LittleEndian.AppendUint32(nil, uint32(4+len(meta)))
	msg = append(msg, meta...)
	return append(msg, data...)
}

// Request is a request as a Script reads it: a V8 inspector's (a number
// id) or a Dart VM service's (a string id).
type Request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ReadRequest reads the client's next request.
func ReadRequest(ctx context.Context, c *websocket.Conn) (Request, error) {
	var req Request
	_, data, err := c.Read(ctx)
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	return req, err
}

// Send writes msg as a text message.
func Send(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// ChunkMessage is the inspector's message of a snapshot's chunk.
func ChunkMessage(chunk string) string {
	s, _ := json.Marshal(chunk)
	return `{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":` + string(s) + `}}`
}

// Reply is the reply to req with result, a JSON value.
func Reply(req Request, result string) string {
	return `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`
}

// StartAmbiguous starts the two VMs that ask which target to take: an
// inspector listing two pages (the second's URL holds "isolates", so that
// a hint told by the error's text would be the wrong one) and a Dart VM
// whose isolates are none named "main". The caller closes both.
func StartAmbiguous() (*Inspector, *DartVM) {
	pages := &Inspector{Pages: []Page{{Type: "page", URL: "http://a/"}, {Type: "page", URL: "http://b/isolates"}}}
	pages.Start()
	dart := &DartVM{AuthCode: "x=", Version: "3.7.3", Isolates: []string{"a", "b"}}
	dart.Start()
	return pages, dart
}
