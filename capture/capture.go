// Package capture takes heap snapshots from running programs, streaming
// each in the producer's own format as it arrives: from Node and Chrome
// over the V8 inspector protocol (the Chrome DevTools Protocol, CDP), and
// from Dart VMs (a Flutter app, a `dart run`) over the Dart VM service
// protocol. Neither side holds the whole snapshot: the chunks go to an
// io.Writer as they come, so a snapshot of several gigabytes costs the
// capturing process a few megabytes.
//
// A target is named as its program prints it (ParseTarget): the Dart VM
// service's URI (http://127.0.0.1:8181/AbCd=/ or its ws://…/ws form), a
// V8 inspector's WebSocket (ws://127.0.0.1:9229/<id>, as Node prints
// "Debugger listening on …") or HTTP endpoint (http://127.0.0.1:9229 for
// Node, Chrome's --remote-debugging-port), or pid:N for a local Node
// process started without --inspect, which SIGUSR1 makes open its
// inspector. Connect opens a Session, which takes one snapshot after
// another (a series for comparison) until closed.
//
// docs/capture.md describes the protocols as heapconv speaks them.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors callers branch on; they come wrapped, with what happened
// (errors.Is).
var (
	// ErrUnreachable: nothing answers at the target's address.
	ErrUnreachable = errors.New("cannot reach the target")
	// ErrNotVM: something answers, but neither a V8 inspector nor a Dart
	// VM service.
	ErrNotVM = errors.New("not a V8 inspector or Dart VM service")
	// ErrNoTarget: the VM answers, but the page, isolate or process asked
	// for is not there, or several match and none was chosen.
	ErrNoTarget = errors.New("no such target")
	// ErrNoHeapSnapshots: the VM cannot write heap snapshots (a Dart VM in
	// product mode, an inspector target without a heap profiler).
	ErrNoHeapSnapshots = errors.New("the VM does not take heap snapshots")
	// ErrDropped: the connection ended before the snapshot did.
	ErrDropped = errors.New("the connection ended before the snapshot did")
	// ErrProtocol: the VM answered something the protocol does not allow.
	ErrProtocol = errors.New("protocol error")
	// ErrWhichPage and ErrWhichIsolate: the VM has several pages, or
	// several isolates and none named "main", and none was chosen
	// (Options.Page, Options.Isolate); the error, an ErrNoTarget too,
	// lists them.
	ErrWhichPage    = errors.New("several pages, none chosen")
	ErrWhichIsolate = errors.New("several isolates, none chosen")
)

// choiceError is an ErrNoTarget that choosing mends: errors.Is tells it
// by which (ErrWhichPage, ErrWhichIsolate); its text is the error's.
type choiceError struct {
	error
	which error
}

func (c choiceError) Is(target error) bool { return target == c.which }
func (c choiceError) Unwrap() error        { return c.error }

// Options adjust Connect and Session.Snapshot. A nil *Options means the
// zero value.
type Options struct {
	// GC collects garbage before each snapshot, so that it holds what is
	// alive (V8: HeapProfiler.collectGarbage; Dart: a GC through
	// getAllocationProfile, as DevTools' GC button does). V8 collects
	// garbage for a snapshot anyway; Dart does not.
	GC bool
	// Isolate names the Dart isolate to snapshot; "" takes the one named
	// "main", or the only one.
	Isolate string
	// Page chooses among a browser's pages: the one whose URL or title
	// contains it. "" takes the only page.
	Page string
	// Port is the inspector port of a pid:N target, for a process that
	// listens on several; 0 finds it among the ports the process opens
	// (Node's default is 9229, or the --inspect-port it was started with).
	Port int
	// Progress, when set, is called as the snapshot comes in, from the
	// goroutine that reads it. Done and Total are the VM's own numbers,
	// unchecked: a display should not trust them to be in range.
	Progress func(Progress)
}

// Progress is how far a snapshot has come.
type Progress struct {
	// Received is the bytes of the snapshot received so far.
	Received int64
	// Done and Total count the objects V8 has gone through while
	// building the snapshot (its own progress events), before it sends
	// any; 0 when the VM does not tell.
	Done, Total int64
}

// A Session is a connection to one VM, which takes snapshots until
// closed. It is not safe for concurrent use.
type Session struct {
	producer Producer
	vm       vm
	opts     Options
	// failed: a snapshot failed, and Close does not wait for the VM to
	// answer a closing handshake (a broken or hostile one may never).
	failed bool
}

// Producer describes the program a Session is connected to.
type Producer struct {
	// Format is the format of its snapshots: "v8" or "dart" (the names
	// of ir/v8 and ir/dart).
	Format string
	// VM names the VM and its version as it reports them ("node.js/v20.20.2",
	// "Chrome/131.0.6778.85", "Dart 3.7.3 (stable)").
	VM string
	// Target names what is snapshotted: a page's URL, a Dart isolate, a
	// Node process.
	Target string
}

// vm is one protocol's side of a Session.
type vm interface {
	snapshot(ctx context.Context, w io.Writer, opts *Options) (int64, error)
	close() error
	abort() error
}

// Connect connects to target (ParseTarget's forms) and returns a Session
// ready to take snapshots. A pid:N target is sent SIGUSR1 first, which
// makes a Node process open its inspector. Nothing is taken yet.
func Connect(ctx context.Context, target string, opts *Options) (*Session, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	if t.Kind == Endpoint {
		if t, err = resolveEndpoint(ctx, t); err != nil {
			return nil, err
		}
	}
	s := &Session{opts: o}
	switch t.Kind {
	case DartVM:
		s.vm, s.producer, err = connectDart(ctx, t, &o)
	case Inspector:
		s.vm, s.producer, err = connectInspector(ctx, t, &o)
	case NodeProcess:
		s.vm, s.producer, err = connectPID(ctx, t, &o)
	default:
		err = fmt.Errorf("%w: %s", ErrNotVM, target)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Producer describes the program the session is connected to.
func (s *Session) Producer() Producer { return s.producer }

// Snapshot takes a heap snapshot and writes it to w in the producer's
// format (Producer().Format) as it arrives, and returns how many bytes it
// wrote. When ctx ends or the connection drops, it returns an error and
// what was written is a part of a snapshot, to be thrown away; the
// session is of no further use after an error.
func (s *Session) Snapshot(ctx context.Context, w io.Writer) (int64, error) {
	n, err := s.vm.snapshot(ctx, w, &s.opts)
	if err != nil {
		s.failed = true
	}
	return n, err
}

// Close closes the connection. The VM goes on running.
func (s *Session) Close() error {
	if s.failed {
		return s.vm.abort()
	}
	return s.vm.close()
}

// countingWriter counts what it passes on and reports it as progress.
type countingWriter struct {
	w        io.Writer
	n        int64
	progress func(Progress)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if c.progress != nil {
		c.progress(Progress{Received: c.n})
	}
	return n, err
}

// duringSnapshot adds to a lost connection how much of the snapshot came.
func duringSnapshot(err error, n int64) error {
	if !errors.Is(err, ErrDropped) {
		return err // ctx's end, a write's failure, a message too long
	}
	return fmt.Errorf("%w (after %d bytes of the snapshot)", err, n)
}

// reading keeps a reader's error apart from its consumer's, so that a
// lost connection is not taken for a full disk.
type reading struct {
	r   io.Reader
	err error
}

func (r *reading) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// maxShown bounds how much of a string the VM sent goes into a Producer
// or an error.
const maxShown = 200

// cut shortens a string the VM sent to maxShown characters, for an error
// that quotes it (%q escapes it).
func cut(s string) string {
	n := 0
	for i := range s {
		if n == maxShown {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// printable makes a string the VM sent fit to print: cut, and its
// control characters and bytes that are not UTF-8 escaped as Go writes
// them. A page's title, an isolate's name or an error message is the
// remote program's text, and a terminal obeys the escape sequences in
// what it prints (retitling the window, rewriting the screen, setting the
// clipboard).
func printable(s string) string {
	s = cut(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// listed joins quoted names for an error, the first few of them: a VM
// may list thousands.
func listed(names []string) string {
	const most = 20
	quoted := make([]string, 0, min(len(names), most))
	for _, n := range names[:min(len(names), most)] {
		quoted = append(quoted, strconv.Quote(cut(n)))
	}
	if len(names) > most {
		quoted = append(quoted, fmt.Sprintf("and %d more", len(names)-most))
	}
	return strings.Join(quoted, ", ")
}
