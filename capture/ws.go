package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// maxText bounds a text message. The largest a VM sends is a chunk of a
// V8 snapshot (a megabyte of JSON in Chrome, escaped a second time as a
// JSON string); a Dart VM's allocation profile lists every class. Binary
// messages (a Dart snapshot's chunks) are streamed and not bounded.
const maxText = 64 << 20

// idleTimeout bounds how long a read waits while the VM sends nothing at
// all. A VM at work on a snapshot sends all the time (V8 its progress,
// then chunks; a Dart VM chunks); its longest silence is a full garbage
// collection of a large heap, seconds. Without a bound, a VM that stopped
// answering (or a server that only looks like one) would keep the
// capture waiting for ever. A variable for the tests.
var idleTimeout = 5 * time.Minute

// connectTimeout bounds an HTTP request to a VM's endpoint and a
// WebSocket's handshake, which a VM answers at once. A variable for the
// tests.
var connectTimeout = 10 * time.Second

// wsConn is a WebSocket to a VM with the buffer its text messages are
// read into.
type wsConn struct {
	c    *websocket.Conn
	addr string
	text bytes.Buffer
	// idle runs while a read waits on the VM, and closes the connection
	// when it fires; timedOut then tells broken why the read failed.
	idle     *time.Timer
	timedOut atomic.Bool
	msg      idleReader
}

// dialWS opens a WebSocket to addr. A refusal over HTTP (a wrong Dart
// auth code answers 403) is an error that says so.
func dialWS(ctx context.Context, addr string) (*wsConn, error) {
	// The client's Timeout bounds the handshake only (the library makes it
	// a context of the handshake's); redirects stay on the host (a Dart VM
	// service sends WebSocket clients to its DDS, on another port).
	hc := &http.Client{Timeout: connectTimeout, Transport: httpTransport, CheckRedirect: sameHost}
	c, resp, err := websocket.Dial(ctx, addr, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		switch {
		case resp != nil && resp.StatusCode == http.StatusSwitchingProtocols:
			return nil, fmt.Errorf("%w: %s: a WebSocket handshake the protocol does not allow: %s", ErrNotVM, addr, printable(err.Error()))
		case resp != nil:
			return nil, &statusError{addr + " refused the WebSocket", resp.StatusCode, printable(resp.Status)}
		case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("%w: %s did not complete the WebSocket's handshake within %v", ErrUnreachable, addr, connectTimeout)
		}
		return nil, unreachable(addr, err)
	}
	// Binary messages are streamed; text messages are bounded by readText.
	c.SetReadLimit(-1)
	w := &wsConn{c: c, addr: addr}
	w.idle = time.AfterFunc(time.Hour, func() {
		w.timedOut.Store(true)
		c.CloseNow()
	})
	w.idle.Stop()
	w.msg.w = w
	return w, nil
}

// send writes v as a JSON text message.
func (w *wsConn) send(ctx context.Context, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := w.c.Write(ctx, websocket.MessageText, data); err != nil {
		return w.broken(ctx, err)
	}
	return nil
}

// next returns the next message: its type and a reader of it, which must
// be read to its end (or the connection dropped) before the next call.
func (w *wsConn) next(ctx context.Context) (websocket.MessageType, io.Reader, error) {
	w.idle.Reset(idleTimeout)
	typ, r, err := w.c.Reader(ctx)
	w.idle.Stop()
	if err != nil {
		return 0, nil, w.broken(ctx, err)
	}
	w.msg.r = r
	return typ, &w.msg, nil
}

// idleReader reads a message with the idle timer running during each
// read only: the time the consumer takes (a disk, a conversion) is not
// the VM's silence.
type idleReader struct {
	w *wsConn
	r io.Reader
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.w.idle.Reset(idleTimeout)
	n, err := r.r.Read(p)
	r.w.idle.Stop()
	return n, err
}

// readText reads a text message into the connection's buffer, which the
// result aliases until the next call.
func (w *wsConn) readText(ctx context.Context, r io.Reader) ([]byte, error) {
	w.text.Reset()
	n, err := w.text.ReadFrom(io.LimitReader(r, maxText+1))
	if err != nil {
		return nil, w.broken(ctx, err)
	}
	if n > maxText {
		return nil, fmt.Errorf("%w: a message of more than %d bytes", ErrProtocol, maxText)
	}
	return w.text.Bytes(), nil
}

// broken words a failed read or write: ctx's error when ctx ended, else
// the connection's end.
func (w *wsConn) broken(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if w.timedOut.Load() {
		return fmt.Errorf("%w: %s sent nothing for %v (is the program stopped, or not a VM?)", ErrDropped, w.addr, idleTimeout)
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %s closed the connection (%v)", ErrDropped, w.addr, ce)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s closed the connection without a word (did the program end?)", ErrDropped, w.addr)
	}
	return fmt.Errorf("%w: %s: %s", ErrDropped, w.addr, printable(err.Error()))
}

// close closes the connection with the closing handshake, which waits
// (up to 5 s) for the VM's answer.
func (w *wsConn) close() error {
	w.idle.Stop()
	return w.c.Close(websocket.StatusNormalClosure, "")
}

// abort closes the connection at once, without a closing handshake: after
// a failure, the VM may not answer one.
func (w *wsConn) abort() error {
	w.idle.Stop()
	return w.c.CloseNow()
}
