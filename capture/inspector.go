package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// inspector is a connection to one V8 inspector target (a Node process,
// a Chrome page), speaking the few methods of the Chrome DevTools
// Protocol a snapshot needs.
type inspector struct {
	ws     *wsConn
	lastID int64
	// unq carries a surrogate escape across chunks.
	unq unquoter
	out []byte
}

// inspectorTarget is an entry of an inspector's /json/list.
type inspectorTarget struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
	WS    string `json:"webSocketDebuggerUrl"`
}

// connectInspector connects to a V8 inspector target: the WebSocket given,
// or the one target an HTTP endpoint lists (Node's process, the page of a
// browser that opts.Page picks).
func connectInspector(ctx context.Context, t Target, opts *Options) (vm, Producer, error) {
	p := Producer{Format: v8ir.Format}
	httpBase := withScheme(*t.URL, false)
	httpBase.Path = ""
	var version struct {
		Browser string `json:"Browser"`
	}
	addr := t.URL.String()
	if t.URL.Scheme == "http" || t.URL.Scheme == "https" {
		if err := getJSON(ctx, httpBase.String()+"/json/version", &version); err != nil {
			return nil, p, err
		}
		var list []inspectorTarget
		if err := getJSON(ctx, httpBase.String()+"/json/list", &list); err != nil {
			return nil, p, err
		}
		chosen, err := choosePage(list, opts.Page, httpBase.String())
		if err != nil {
			return nil, p, err
		}
		if addr, err = debuggerURL(chosen.WS, httpBase.String()); err != nil {
			return nil, p, err
		}
		p.Target = printable(chosen.URL)
		if chosen.Type == "node" {
			p.Target = printable(chosen.Title)
		}
	} else {
		// A WebSocket named directly: its endpoint tells the VM's
		// version where it answers; the snapshot does not need it, so
		// a failure leaves the version unknown.
		_ = getJSON(ctx, httpBase.String()+"/json/version", &version)
	}
	p.VM = printable(version.Browser)
	if p.Target == "" {
		p.Target = addr
	}
	ws, err := dialWS(ctx, addr)
	if err != nil {
		return nil, p, err
	}
	return &inspector{ws: ws}, p, nil
}

// debuggerURL checks the WebSocket an endpoint's list gives for a target:
// a WebSocket on the endpoint's host (sameMachine). Node and Chrome name
// it with the host the request was sent to; another host would have the
// capture talk to a machine the user did not name (and take its snapshot
// for the one named). It returns the address in its escaped form, fit to
// print.
func debuggerURL(ws, endpoint string) (string, error) {
	u, err := url.Parse(ws)
	e, _ := url.Parse(endpoint)
	switch {
	case err != nil || u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "":
		return "", fmt.Errorf("%w: %s lists a target whose webSocketDebuggerUrl is no WebSocket address: %q", ErrNotVM, endpoint, cut(ws))
	case !sameMachine(u.Hostname(), e.Hostname()):
		return "", fmt.Errorf("%w: %s lists a target on another host, %s: only the endpoint's host is connected to", ErrNotVM, endpoint, u.Redacted())
	}
	return u.String(), nil
}

// choosePage picks the target to snapshot from an inspector's list: a
// Node process lists one ("node"); a browser lists its pages ("page")
// beside its own UI and workers, and page, when set, picks the one whose
// URL or title contains it.
func choosePage(list []inspectorTarget, page, endpoint string) (inspectorTarget, error) {
	var all, matching []inspectorTarget
	for _, t := range list {
		if t.Type != "node" && t.Type != "page" {
			continue
		}
		all = append(all, t)
		if page == "" || strings.Contains(t.URL, page) || strings.Contains(t.Title, page) {
			matching = append(matching, t)
		}
	}
	describe := func(ts []inspectorTarget) string {
		var b strings.Builder
		for i, t := range ts {
			if i == 20 { // a hostile endpoint may list millions
				fmt.Fprintf(&b, "\n  and %d more", len(ts)-i)
				break
			}
			fmt.Fprintf(&b, "\n  %s  %q", printable(t.URL), cut(t.Title))
		}
		return b.String()
	}
	switch {
	case len(all) == 0:
		return inspectorTarget{}, fmt.Errorf("%w: %s lists no page or Node process", ErrNoTarget, endpoint)
	case len(matching) == 0:
		return inspectorTarget{}, fmt.Errorf("%w: no page of %s has %q in its URL or title; it has:%s", ErrNoTarget, endpoint, page, describe(all))
	case len(matching) > 1 && page != "":
		return inspectorTarget{}, choiceError{fmt.Errorf("%w: %s has %d pages matching %q; choose one by a part of its URL or title:%s",
			ErrNoTarget, endpoint, len(matching), page, describe(matching)), ErrWhichPage}
	case len(matching) > 1:
		return inspectorTarget{}, choiceError{fmt.Errorf("%w: %s has %d pages; choose one by a part of its URL or title:%s",
			ErrNoTarget, endpoint, len(matching), describe(matching)), ErrWhichPage}
	case matching[0].WS == "":
		return inspectorTarget{}, fmt.Errorf("%w: %s: another debugger is attached to %s", ErrNoTarget, endpoint, printable(matching[0].URL))
	}
	return matching[0], nil
}

// cdpMessage is a message of the protocol: a reply (ID set) or an event
// (Method set).
type cdpMessage struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// chunkPrefix is how V8's inspector begins the message of a snapshot's
// chunk, which snapshot reads without a JSON decoder.
var chunkPrefix = []byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"`)

// call sends a method and reads messages up to its reply, ignoring the
// events in between.
func (in *inspector) call(ctx context.Context, method string) error {
	id := in.send(ctx, method, nil)
	for {
		msg, err := in.read(ctx)
		if err != nil {
			return err
		}
		if msg.ID == id {
			return msg.err(method)
		}
	}
}

func (in *inspector) send(ctx context.Context, method string, params any) int64 {
	in.lastID++
	m := map[string]any{"id": in.lastID, "method": method}
	if params != nil {
		m["params"] = params
	}
	if err := in.ws.send(ctx, m); err != nil {
		return -1 // the next read fails the same way
	}
	return in.lastID
}

// read reads a message other than a snapshot's chunk.
func (in *inspector) read(ctx context.Context) (cdpMessage, error) {
	var msg cdpMessage
	_, r, err := in.ws.next(ctx)
	if err != nil {
		return msg, err
	}
	data, err := in.ws.readText(ctx, r)
	if err != nil {
		return msg, err
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return msg, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	return msg, nil
}

// err returns a reply's error.
func (m *cdpMessage) err(method string) error {
	if m.Error == nil {
		return nil
	}
	if m.Error.Code == -32601 { // method not found
		return fmt.Errorf("%w: the target has no %s (%s); a browser's own target has no heap, its pages do", ErrNoHeapSnapshots, method, printable(m.Error.Message))
	}
	return fmt.Errorf("%s: %s (code %d)", method, printable(m.Error.Message), m.Error.Code)
}

func (in *inspector) snapshot(ctx context.Context, w io.Writer, opts *Options) (int64, error) {
	if opts.GC {
		if err := in.call(ctx, "HeapProfiler.collectGarbage"); err != nil {
			return 0, err
		}
	}
	id := in.send(ctx, "HeapProfiler.takeHeapSnapshot", map[string]any{"reportProgress": true})
	cw := &countingWriter{w: w, progress: opts.Progress}
	in.unq = unquoter{}
	for {
		_, r, err := in.ws.next(ctx)
		if err != nil {
			return cw.n, duringSnapshot(err, cw.n)
		}
		data, err := in.ws.readText(ctx, r)
		if err != nil {
			return cw.n, duringSnapshot(err, cw.n)
		}
		if rest, ok := bytes.CutPrefix(data, chunkPrefix); ok {
			if err := in.writeChunk(cw, rest); err != nil {
				return cw.n, err
			}
			continue
		}
		var msg cdpMessage
		if err := json.Unmarshal(data, &msg); err != nil {
			return cw.n, fmt.Errorf("%w: %v", ErrProtocol, err)
		}
		switch {
		case msg.ID == id:
			if err := msg.err("HeapProfiler.takeHeapSnapshot"); err != nil {
				return cw.n, err
			}
			if cw.n == 0 {
				return 0, fmt.Errorf("%w: the snapshot ended before it began: no chunk came", ErrProtocol)
			}
			in.out = in.unq.flush(in.out[:0])
			if _, err := cw.Write(in.out); err != nil {
				return cw.n, err
			}
			return cw.n, nil
		case msg.Method == "HeapProfiler.addHeapSnapshotChunk":
			// The same as the fast path, its fields in another order.
			var p struct {
				Chunk json.RawMessage `json:"chunk"`
			}
			if err := json.Unmarshal(msg.Params, &p); err != nil || len(p.Chunk) < 2 || p.Chunk[0] != '"' {
				return cw.n, fmt.Errorf("%w: a chunk without its string", ErrProtocol)
			}
			if err := in.writeChunk(cw, p.Chunk[1:]); err != nil {
				return cw.n, err
			}
		case msg.Method == "HeapProfiler.reportHeapSnapshotProgress" && opts.Progress != nil:
			var p struct{ Done, Total int64 }
			if json.Unmarshal(msg.Params, &p) == nil {
				opts.Progress(Progress{Done: p.Done, Total: p.Total})
			}
		case msg.Method == "Inspector.detached":
			return cw.n, fmt.Errorf("%w: the inspector detached (%s) after %d bytes", ErrDropped, printable(string(msg.Params)), cw.n)
		}
	}
}

// writeChunk writes the JSON string that begins s (after its opening
// quote), unescaped: the chunk's text.
func (in *inspector) writeChunk(w io.Writer, s []byte) error {
	out, rest, err := in.unq.unquote(in.out[:0], s)
	in.out = out
	if err != nil {
		return fmt.Errorf("%w: a snapshot chunk: %v", ErrProtocol, err)
	}
	if t := bytes.TrimSpace(rest); !bytes.Equal(t, []byte("}}")) && !bytes.HasPrefix(t, []byte("}")) {
		return fmt.Errorf("%w: a snapshot chunk's message goes on after its string", ErrProtocol)
	}
	_, err = w.Write(out)
	return err
}

func (in *inspector) close() error { return in.ws.close() }
func (in *inspector) abort() error { return in.ws.abort() }
