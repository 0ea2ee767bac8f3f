package explore

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// Options configure a Server.
type Options struct {
	// Names names each heap as the page shows it (a file name,
	// "prog.mvmheap#3"); a heap without one is "heap N".
	Names []string
	// Token is the secret every request must carry (as the token query
	// parameter or an "Authorization: Bearer" header); New makes a random
	// one when it is empty.
	Token string
}

// Server holds the analysis of one or more heaps and answers the page's
// and the API's requests from it. It is safe for concurrent use.
type Server struct {
	heaps    []*heapView
	token    string
	handler  http.Handler
	compared comparisons
}

// New analyzes the heaps (two at a time) and returns a Server for them
// as soon as their classes and dominator trees are made, which is when
// the Summary can be served; the retainer lists and distances the other
// views need are made on goroutines meanwhile, and requests that need
// them wait. It fails when a heap cannot be analyzed.
func New(heaps []analysis.Heap, opts Options) (*Server, error) {
	if len(heaps) == 0 {
		return nil, errors.New("explore: no heap")
	}
	token := opts.Token
	if token == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		token = hex.EncodeToString(b[:])
	}
	s := &Server{token: token, heaps: make([]*heapView, len(heaps))}
	errs := make([]error, len(heaps))
	jobs := make(chan int, len(heaps))
	for k := range heaps {
		jobs <- k
	}
	close(jobs)
	var wg sync.WaitGroup
	for range min(2, len(heaps)) {
		wg.Go(func() {
			for k := range jobs {
				name := fmt.Sprintf("heap %d", k)
				if k < len(opts.Names) && opts.Names[k] != "" {
					name = opts.Names[k]
				}
				s.heaps[k], errs[k] = newHeapView(k, name, heaps[k])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// Token returns the secret every request must carry.
func (s *Server) Token() string { return s.token }

// URL returns the address of the page for a server listening on addr,
// with the token.
func (s *Server) URL(addr net.Addr) string {
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
	}
	return "http://" + host + "/?token=" + url.QueryEscape(s.token)
}

// Handler returns the server's HTTP handler: the page, its static files
// and the API, behind the checks of the package comment.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers requests on l until it is closed.
func (s *Server) Serve(l net.Listener) error {
	srv := &http.Server{Handler: s.handler}
	err := srv.Serve(l)
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

//go:embed static
var static embed.FS

// routes builds the handler: the checks first, then the page and the API.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /{$}", s.page)
	s.api(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		if !hostAllowed(r.Host) {
			httpError(w, r, http.StatusForbidden, "the Host header %q is not this machine's address: open the page by the address heapconv printed", r.Host)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			httpError(w, r, http.StatusMethodNotAllowed, "%s: the explorer only reads", r.Method)
			return
		}
		// The static files are the page's code, no heap's data: a
		// script tag cannot send the token.
		if !strings.HasPrefix(r.URL.Path, "/static/") && !s.authorized(r) {
			httpError(w, r, http.StatusUnauthorized, "a token is needed: open the address heapconv printed, with its ?token=")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the token.
func (s *Server) authorized(r *http.Request) bool {
	given := r.URL.Query().Get("token")
	if given == "" {
		// The scheme's name is case-insensitive (RFC 9110, 11.1).
		if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			given = strings.TrimSpace(token)
		}
	}
	return subtle.ConstantTimeCompare([]byte(given), []byte(s.token)) == 1
}

// hostAllowed reports whether a request's Host names this machine by an
// address, not by a name a DNS server answers for: "localhost" or an IP
// literal, with a port or without. A page of another site that rebinds
// its own name to 127.0.0.1 sends that name, and is refused.
func hostAllowed(host string) bool {
	h := host
	if hp, _, err := net.SplitHostPort(host); err == nil {
		h = hp
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.EqualFold(h, "localhost") || net.ParseIP(h) != nil
}

// page serves the page itself.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	b, err := static.ReadFile("static/index.html")
	if err != nil {
		httpError(w, r, http.StatusInternalServerError, "%v", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// heapView is one heap with its analysis and the indexes the views build
// on demand.
type heapView struct {
	index int
	name  string
	heap  analysis.Heap
	nv    *analysis.Navigator
	// ready is closed once nv has its retainer lists and distances: until
	// then only the Summary's questions may be asked of it (withHeap).
	ready <-chan struct{}
	// classes are the class table's rows (Navigator.Classes).
	classes []analysis.ClassStat
	// classNodes lists each class's counted nodes (those of class c are
	// classNodes[classFirst[c]:classFirst[c+1]]), made the first time a
	// class is opened; the first classOrdered[c] of a class's are in
	// order, largest retained size first (classInstances).
	classOnce    sync.Once
	classFirst   []uint32
	classNodes   []uint32
	mu           sync.Mutex
	classOrdered []int
	// manyRetainers keeps the ordered retainers of a few nodes that have
	// thousands, while their pages are asked for (retainersOf).
	manyRetainers map[int][]edgeFrom
	// kindRows are the statistics by kind, counted once.
	kindsOnce sync.Once
	kindRows  []Kind
	// children are the dominator tree's children of each node, largest
	// retained size first (childFirst, childNode: CSR), made once.
	childOnce  sync.Once
	childFirst []uint32
	childNode  []uint32
	// tops are the nodes at the top of the dominator tree: the root, or
	// the GC roots under a virtual one (made with the children).
	tops []uint32
	// stacks gives a node's allocation stack (nil: none); it may cache,
	// so stackMu guards it.
	stackMu sync.Mutex
	stacks  func(i int) []ir.Frame
}

func newHeapView(index int, name string, h analysis.Heap) (*heapView, error) {
	// The Summary needs the classes and the dominator tree; the retainer
	// lists and distances the other views need are made meanwhile.
	nv, ready, err := analysis.NewNavigatorStaged(h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	classes, err := nv.Classes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &heapView{
		index: index, name: name, heap: h, nv: nv, ready: ready, classes: classes,
		manyRetainers: map[int][]edgeFrom{},
		stacks:        ir.AllocationStacks(h.File, h.Snapshot),
	}, nil
}
