package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Kind is what a target names.
type Kind int

// Kinds of target.
const (
	// Endpoint is an HTTP address without a path (http://127.0.0.1:9229):
	// a V8 inspector's or a Dart VM service's, which Connect asks.
	Endpoint Kind = iota + 1
	// DartVM is a Dart VM service.
	DartVM
	// Inspector is a V8 inspector: a WebSocket of one target, or the HTTP
	// endpoint that lists them.
	Inspector
	// NodeProcess is a local Node process by pid, without an inspector
	// until SIGUSR1 opens one.
	NodeProcess
)

// Target is a parsed target.
type Target struct {
	Kind Kind
	// URL is the address: ws:// (or wss://) for a WebSocket, http:// (or
	// https://) for an HTTP endpoint; nil for a NodeProcess.
	URL *url.URL
	// PID is a NodeProcess's process id.
	PID int
}

// ParseTarget parses a target as programs print them:
//
//	http://127.0.0.1:8181/AbCd1234=/   a Dart VM service (flutter run, dart --observe)
//	ws://127.0.0.1:8181/AbCd1234=/ws   the same, its WebSocket
//	http://127.0.0.1:9100/?uri=…       a DevTools URL naming a Dart VM service
//	ws://127.0.0.1:9229/<uuid>         a V8 inspector target (node --inspect)
//	http://127.0.0.1:9229              a V8 inspector's or a Dart VM service's endpoint
//	127.0.0.1:9229                     the same
//	pid:12345                          a local Node process (SIGUSR1 opens its inspector)
//
// The kind of an address is told by its form where it can be (a Dart VM
// service's path ends in /ws or holds its auth code, which ends in "=");
// an endpoint without a path is asked by Connect.
func ParseTarget(s string) (Target, error) {
	if rest, ok := strings.CutPrefix(s, "pid:"); ok {
		pid, err := strconv.Atoi(rest)
		if err != nil || pid <= 0 {
			return Target{}, fmt.Errorf("%w: %q: pid:N needs a process id", ErrNoTarget, s)
		}
		return Target{Kind: NodeProcess, PID: pid}, nil
	}
	raw := s
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Target{}, fmt.Errorf("%w: %q is no URL, host:port or pid:N", ErrNoTarget, s)
	}
	if inner := u.Query().Get("uri"); inner != "" && (u.Scheme == "http" || u.Scheme == "https") {
		// A DevTools URL: the VM service is its uri parameter.
		t, err := ParseTarget(inner)
		if err == nil && t.Kind == Endpoint {
			t.Kind = DartVM
		}
		return t, err
	}
	u.RawQuery, u.Fragment = "", ""
	switch u.Scheme {
	case "ws", "wss":
		if strings.HasSuffix(u.Path, "/ws") {
			return Target{Kind: DartVM, URL: u}, nil
		}
		return Target{Kind: Inspector, URL: u}, nil
	case "http", "https":
		if authCode(u.Path) != "" {
			return Target{Kind: DartVM, URL: u}, nil
		}
		if strings.Trim(u.Path, "/") == "" {
			u.Path = ""
			return Target{Kind: Endpoint, URL: u}, nil
		}
		return Target{}, fmt.Errorf("%w: %q: an HTTP target is an endpoint (http://host:port) or a Dart VM service's URI", ErrNoTarget, s)
	}
	return Target{}, fmt.Errorf("%w: %q: the scheme is not ws, wss, http or https", ErrNoTarget, s)
}

// withScheme returns u with the scheme of its kind, WebSocket (ws) or
// HTTP, and its security (wss, https) kept: a VM's HTTP endpoint and
// WebSocket are the same address under two schemes.
func withScheme(u url.URL, ws bool) url.URL {
	secure := u.Scheme == "https" || u.Scheme == "wss"
	switch {
	case ws && secure:
		u.Scheme = "wss"
	case ws:
		u.Scheme = "ws"
	case secure:
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	return u
}

// authCode returns the Dart VM service's auth code in a path
// ("/AbCd1234=/" gives "AbCd1234="), "" when there is none. The VM makes
// codes of URL-safe base64, which end in "=".
func authCode(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if strings.HasSuffix(first, "=") {
		return first
	}
	return ""
}

func (t Target) String() string {
	if t.Kind == NodeProcess {
		return "pid:" + strconv.Itoa(t.PID)
	}
	return t.URL.String()
}

// httpTransport carries the requests to targets' endpoints: one or two
// each, so that no connection is kept open after them (a pid: target's
// ports are probed one after another).
var httpTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}()

// httpClient talks to targets' HTTP endpoints: local, answering at once
// (getJSON bounds each request by connectTimeout).
var httpClient = &http.Client{Transport: httpTransport, CheckRedirect: sameHost}

// errElsewhere is a redirect to another host than the target's.
var errElsewhere = errors.New("a redirect to another host is not followed")

// sameHost follows a redirect that stays on the target's host (a Dart VM
// service sends WebSocket clients to its DDS, on another port) and no
// other: the user named the machine of the program to capture, and an
// endpoint is not to send heapconv elsewhere.
func sameHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !sameMachine(req.URL.Hostname(), via[0].URL.Hostname()) {
		return fmt.Errorf("%w (%s)", errElsewhere, req.URL.Redacted())
	}
	return nil
}

// sameMachine reports whether two hosts of URLs are one: the same name,
// or both loopback (localhost, 127.0.0.1 and ::1 are the same machine).
func sameMachine(a, b string) bool {
	loopback := func(h string) bool {
		ip := net.ParseIP(h)
		return strings.EqualFold(h, "localhost") || ip != nil && ip.IsLoopback()
	}
	return strings.EqualFold(a, b) || loopback(a) && loopback(b)
}

// maxJSON bounds the answers of HTTP endpoints (a browser's list of
// targets is a few kilobytes).
const maxJSON = 16 << 20

// getJSON fetches a JSON document from an HTTP endpoint into v. A status
// other than 200 is an error that wraps ErrNotVM.
func getJSON(ctx context.Context, u string, v any) error {
	// The whole request, body included, is bounded: a server may answer
	// its headers and then a byte a minute.
	rctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	timedOut := func(err error) error {
		if ctx.Err() == nil && rctx.Err() != nil {
			return fmt.Errorf("%w: GET %s: no answer within %v", ErrUnreachable, u, connectTimeout)
		}
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return timedOut(unreachable(u, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{"GET " + u, resp.StatusCode, printable(resp.Status)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
	if err != nil {
		return timedOut(fmt.Errorf("GET %s: %w", u, err))
	}
	if len(data) > maxJSON {
		return fmt.Errorf("%w: GET %s: more than %d bytes", ErrNotVM, u, maxJSON)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrNotVM, u, err)
	}
	return nil
}

// unreachable words a failure to connect.
func unreachable(addr string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Errorf("%w: nothing listens at %s (%v)", ErrUnreachable, addr, op.Err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, errElsewhere) {
		return fmt.Errorf("%w: %s: %w", ErrNotVM, addr, err)
	}
	return fmt.Errorf("%w: %s: %s", ErrUnreachable, addr, printable(err.Error()))
}

// resolveEndpoint asks an HTTP endpoint what it is: a V8 inspector lists
// its targets at /json/version, a Dart VM service (without auth codes)
// answers getVersion.
func resolveEndpoint(ctx context.Context, t Target) (Target, error) {
	// A Dart VM service answers any path, /json/version too, with a
	// JSON-RPC error: an inspector is told by its fields.
	var version struct {
		Browser  string `json:"Browser"`
		Protocol string `json:"Protocol-Version"`
	}
	err := getJSON(ctx, t.URL.String()+"/json/version", &version)
	if err == nil && (version.Browser != "" || version.Protocol != "") {
		t.Kind = Inspector
		return t, nil
	}
	if errors.Is(err, ErrUnreachable) || errors.Is(err, errElsewhere) || ctx.Err() != nil {
		return t, err
	}
	var rpc struct {
		Result struct {
			Type string `json:"type"`
		} `json:"result"`
	}
	err = getJSON(ctx, t.URL.String()+"/getVersion", &rpc)
	if err == nil && rpc.Result.Type == "Version" {
		t.Kind = DartVM
		return t, nil
	}
	if forbidden(err) {
		// A Dart VM service refuses requests without its auth code.
		return t, fmt.Errorf("%w: %s refuses requests without an auth code: give the whole URI the Dart VM printed (http://host:port/CODE=/)", ErrNotVM, t.URL)
	}
	return t, fmt.Errorf("%w: %s answers neither /json/version (a V8 inspector) nor getVersion (a Dart VM service)", ErrNotVM, t.URL)
}

// statusError is an HTTP answer other than the one asked for: the
// endpoint is no VM's, or refuses (a Dart VM service answers 403 to a
// request without its auth code).
type statusError struct {
	what   string // the request: "GET http://…", "ws://…: the WebSocket"
	code   int
	status string // as the server put it, fit to print
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrNotVM, e.what, e.status)
}

func (e *statusError) Is(target error) bool { return target == ErrNotVM }

// forbidden reports whether err is an HTTP 403 answer.
func forbidden(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.code == http.StatusForbidden
}
