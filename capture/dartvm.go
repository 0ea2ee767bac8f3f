package capture

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	dartir "github.com/heapconv/heapconv/ir/dart"
)

// dartVM is a connection to a Dart VM service (JSON-RPC 2.0 over a
// WebSocket), snapshotting one isolate.
type dartVM struct {
	ws        *wsConn
	isolateID string
	lastID    int
	listening bool
}

// rpcError is a JSON-RPC error as the VM service sends it.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Details string `json:"details"`
	} `json:"data"`
}

func (e *rpcError) Error() string {
	msg := printable(e.Message)
	if e.Data.Details != "" {
		msg += ": " + printable(e.Data.Details)
	}
	return fmt.Sprintf("%s (code %d)", msg, e.Code)
}

// rpcMessage is a reply (ID set) or a notification (Method set).
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	Params struct {
		StreamID string `json:"streamId"`
		Event    struct {
			Kind    string `json:"kind"`
			Last    bool   `json:"last"`
			Isolate struct {
				ID string `json:"id"`
			} `json:"isolate"`
		} `json:"event"`
	} `json:"params"`
}

// VM service error codes heapconv words (the protocol's list).
const (
	rpcFeatureDisabled  = 100
	rpcStreamSubscribed = 103
	rpcNotRunnable      = 105
)

// runnableWait is how long a snapshot waits for an isolate that is not
// runnable yet: a VM prints its service's address before its main
// isolate has loaded, and refuses snapshots until it has.
const runnableWait = 30 * time.Second

// dartIsolate is an isolate as getVM lists it.
type dartIsolate struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	System bool   `json:"isSystemIsolate"`
}

// connectDart connects to a Dart VM service and picks the isolate to
// snapshot.
func connectDart(ctx context.Context, t Target, opts *Options) (vm, Producer, error) {
	p := Producer{Format: dartir.Format}
	u := withScheme(*t.URL, true)
	if !strings.HasSuffix(u.Path, "/ws") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/ws"
	}
	ws, err := dialWS(ctx, u.String())
	if err != nil {
		if authCode(u.Path) == "" && forbidden(err) {
			err = fmt.Errorf("%w (the VM service needs the auth code in the URI it printed: http://host:port/CODE=/)", err)
		}
		return nil, p, err
	}
	d := &dartVM{ws: ws}
	var vmInfo struct {
		Type     string        `json:"type"`
		Version  string        `json:"version"`
		Isolates []dartIsolate `json:"isolates"`
	}
	// A VM answers getVM at once: a server that does not is no VM.
	vmctx, cancel := context.WithTimeout(ctx, connectTimeout)
	err = d.call(vmctx, "getVM", nil, &vmInfo)
	timedOut := ctx.Err() == nil && vmctx.Err() != nil
	cancel()
	if err != nil {
		ws.abort()
		if timedOut {
			err = fmt.Errorf("%w: %s did not answer getVM within %v", ErrNotVM, u.Redacted(), connectTimeout)
		}
		return nil, p, err
	}
	if vmInfo.Type != "VM" {
		ws.abort()
		return nil, p, fmt.Errorf("%w: getVM answered a %q", ErrNotVM, cut(vmInfo.Type))
	}
	p.VM = "Dart " + printable(dartVersion(vmInfo.Version))
	iso, err := chooseIsolate(vmInfo.Isolates, opts.Isolate)
	if err != nil {
		ws.abort()
		return nil, p, err
	}
	d.isolateID, p.Target = iso.ID, "isolate "+printable(iso.Name)
	return d, p, nil
}

// dartVersion shortens the VM's version ("3.7.3 (stable) (Wed Apr 9 …)
// on \"linux_ia32\"") to its number and channel.
func dartVersion(v string) string {
	fields := strings.Fields(v)
	if len(fields) >= 2 && strings.HasPrefix(fields[1], "(") {
		return fields[0] + " " + fields[1]
	}
	if len(fields) > 0 {
		return fields[0]
	}
	return "(unknown version)"
}

// chooseIsolate picks the isolate named name; without a name, "main" or
// the only one that is not the VM's own.
func chooseIsolate(isolates []dartIsolate, name string) (dartIsolate, error) {
	var names []string
	var user []dartIsolate
	for _, iso := range isolates {
		if iso.System {
			continue
		}
		user = append(user, iso)
		names = append(names, iso.Name)
		if name != "" && iso.Name == name || name == "" && iso.Name == "main" {
			return iso, nil
		}
	}
	switch {
	case name == "" && len(user) == 1:
		return user[0], nil
	case len(user) == 0:
		return dartIsolate{}, fmt.Errorf("%w: the VM runs no isolate", ErrNoTarget)
	case name == "":
		return dartIsolate{}, choiceError{fmt.Errorf("%w: the VM runs %d isolates and none is named \"main\"; choose one: %s", ErrNoTarget, len(user), listed(names)), ErrWhichIsolate}
	}
	return dartIsolate{}, fmt.Errorf("%w: no isolate is named %q; the VM runs %s", ErrNoTarget, name, listed(names))
}

// send sends a request and returns its id.
func (d *dartVM) send(ctx context.Context, method string, params map[string]any) (string, error) {
	d.lastID++
	id := strconv.Itoa(d.lastID)
	if params == nil {
		params = map[string]any{}
	}
	return id, d.ws.send(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// call sends a request and reads up to its reply, into result, passing
// over notifications (and the chunks of a snapshot no longer wanted).
func (d *dartVM) call(ctx context.Context, method string, params map[string]any, result any) error {
	id, err := d.send(ctx, method, params)
	if err != nil {
		return err
	}
	for {
		typ, r, err := d.ws.next(ctx)
		if err != nil {
			return err
		}
		if typ == websocket.MessageBinary {
			if _, err := io.Copy(io.Discard, r); err != nil {
				return d.ws.broken(ctx, err)
			}
			continue
		}
		msg, err := d.readMessage(ctx, r)
		if err != nil {
			return err
		}
		if !msg.is(id) {
			continue
		}
		if msg.Error != nil {
			return rpcFailure(method, msg.Error)
		}
		if err := sentinel(msg.Result); err != nil {
			return err
		}
		if result != nil {
			if err := json.Unmarshal(msg.Result, result); err != nil {
				return fmt.Errorf("%w: %s's result: %v", ErrProtocol, method, err)
			}
		}
		return nil
	}
}

func (d *dartVM) readMessage(ctx context.Context, r io.Reader) (*rpcMessage, error) {
	data, err := d.ws.readText(ctx, r)
	if err != nil {
		return nil, err
	}
	var msg rpcMessage
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	return &msg, nil
}

// is reports whether the message is the reply to request id.
func (m *rpcMessage) is(id string) bool {
	var got string
	return len(m.ID) > 0 && json.Unmarshal(m.ID, &got) == nil && got == id
}

// sentinel turns a Sentinel result (the isolate is gone) into an error.
func sentinel(result json.RawMessage) error {
	var s struct {
		Type, Kind, ValueAsString string
	}
	if json.Unmarshal(result, &s) == nil && s.Type == "Sentinel" {
		return fmt.Errorf("%w: the isolate is gone (%s: %s)", ErrNoTarget, printable(s.Kind), printable(s.ValueAsString))
	}
	return nil
}

// rpcFailure words an error reply; the *rpcError stays reachable with
// errors.As.
func rpcFailure(method string, e *rpcError) error {
	if e.Code == rpcFeatureDisabled {
		return fmt.Errorf("%w: %s: %w. A Dart VM in product mode (a release build, an AOT runtime) has no heap snapshots; run a debug or profile build (flutter run --profile)",
			ErrNoHeapSnapshots, method, e)
	}
	return fmt.Errorf("%s: %w", method, e)
}

func (d *dartVM) snapshot(ctx context.Context, w io.Writer, opts *Options) (int64, error) {
	if opts.GC {
		if err := d.call(ctx, "getAllocationProfile", map[string]any{"isolateId": d.isolateID, "gc": true}, nil); err != nil {
			return 0, err
		}
	}
	if !d.listening {
		err := d.call(ctx, "streamListen", map[string]any{"streamId": "HeapSnapshot"}, nil)
		var re *rpcError
		if err != nil && !(errors.As(err, &re) && re.Code == rpcStreamSubscribed) {
			return 0, err
		}
		d.listening = true
	}
	deadline := time.Now().Add(runnableWait)
	for {
		n, err := d.take(ctx, w, opts)
		var re *rpcError
		if n > 0 || !errors.As(err, &re) || re.Code != rpcNotRunnable || time.Now().After(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// take requests one snapshot and copies its chunks to w.
func (d *dartVM) take(ctx context.Context, w io.Writer, opts *Options) (int64, error) {
	id, err := d.send(ctx, "requestHeapSnapshot", map[string]any{"isolateId": d.isolateID})
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w, progress: opts.Progress}
	// The chunks come as binary messages, before or after the reply; the
	// snapshot is whole when both the reply and the chunk marked last
	// have come.
	replied, last := false, false
	for !replied || !last {
		typ, r, err := d.ws.next(ctx)
		if err != nil {
			return cw.n, duringSnapshot(err, cw.n)
		}
		if typ == websocket.MessageBinary {
			isLast, err := d.chunk(ctx, r, cw)
			if err != nil {
				return cw.n, duringSnapshot(err, cw.n)
			}
			last = last || isLast
			continue
		}
		msg, err := d.readMessage(ctx, r)
		if err != nil {
			return cw.n, duringSnapshot(err, cw.n)
		}
		if !msg.is(id) {
			continue
		}
		if msg.Error != nil {
			return cw.n, rpcFailure("requestHeapSnapshot", msg.Error)
		}
		if err := sentinel(msg.Result); err != nil {
			return cw.n, err
		}
		replied = true
	}
	return cw.n, nil
}

// maxChunkHeader bounds the JSON before a chunk's data (the VM pads it
// to a few hundred bytes).
const maxChunkHeader = 1 << 20

// chunk copies the data of a binary message (a little-endian uint32 of
// where the data begins, the event as JSON, the data) to w, and tells
// whether it was the snapshot's last.
func (d *dartVM) chunk(ctx context.Context, r io.Reader, w io.Writer) (bool, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return false, d.shortChunk(ctx, err)
	}
	off := binary.LittleEndian.Uint32(head[:])
	if off < 4 || off > maxChunkHeader {
		return false, fmt.Errorf("%w: a binary message whose data begins at byte %d", ErrProtocol, off)
	}
	meta := make([]byte, off-4)
	if _, err := io.ReadFull(r, meta); err != nil {
		return false, d.shortChunk(ctx, err)
	}
	var msg rpcMessage
	if err := json.Unmarshal(meta, &msg); err != nil {
		return false, fmt.Errorf("%w: a binary message's event: %v", ErrProtocol, err)
	}
	ev := &msg.Params.Event
	if msg.Params.StreamID != "HeapSnapshot" || ev.Isolate.ID != "" && ev.Isolate.ID != d.isolateID {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return false, d.ws.broken(ctx, err)
		}
		return false, nil
	}
	src := &reading{r: r}
	if _, err := io.Copy(w, src); err != nil {
		if src.err != nil {
			return false, d.ws.broken(ctx, src.err)
		}
		return false, err
	}
	return ev.Last, nil
}

// shortChunk words a binary message that ended before the header it
// begins with: the message reader ends a whole message with a bare EOF
// (io.ReadFull's ErrUnexpectedEOF after a part), and a lost connection
// with an error of its own.
func (d *dartVM) shortChunk(ctx context.Context, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: a binary message shorter than its header", ErrProtocol)
	}
	return d.ws.broken(ctx, err)
}

func (d *dartVM) close() error { return d.ws.close() }
func (d *dartVM) abort() error { return d.ws.abort() }
