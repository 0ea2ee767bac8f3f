package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/coder/websocket"
)

// maxText bounds a text message. The largest a VM sends is a chunk of a
// V8 snapshot (a megabyte of JSON in Chrome, escaped a second time as a
// JSON string); a Dart VM's allocation profile lists every class. Binary
// messages (a Dart snapshot's chunks) are streamed and not bounded.
const maxText = 64 << 20

// wsConn is a WebSocket to a VM with the buffer its text messages are
// read into.
type wsConn struct {
	c    *websocket.Conn
	addr string
	text bytes.Buffer
}

// dialWS opens a WebSocket to addr. A refusal over HTTP (a wrong Dart
// auth code answers 403) is an error that says so.
func dialWS(ctx context.Context, addr string) (*wsConn, error) {
	c, resp, err := websocket.Dial(ctx, addr, &websocket.DialOptions{HTTPClient: &http.Client{}})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("%w: %s refused the WebSocket: %s", ErrNotVM, addr, resp.Status)
		}
		return nil, unreachable(addr, err)
	}
	// Binary messages are streamed; text messages are bounded by readText.
	c.SetReadLimit(-1)
	return &wsConn{c: c, addr: addr}, nil
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
	typ, r, err := w.c.Reader(ctx)
	if err != nil {
		return 0, nil, w.broken(ctx, err)
	}
	return typ, r, nil
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
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %s closed the connection (%v)", ErrDropped, w.addr, ce)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s closed the connection without a word (did the program end?)", ErrDropped, w.addr)
	}
	return fmt.Errorf("%w: %s: %v", ErrDropped, w.addr, err)
}

func (w *wsConn) close() error {
	return w.c.Close(websocket.StatusNormalClosure, "")
}
