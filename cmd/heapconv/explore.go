package main

import (
	"fmt"
	"html"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/explore"
)

const exploreUsage = `Usage: heapconv explore [--addr HOST:PORT] [--open] [--from F] [--contents DIR]
                        [--scan-pointers] IN [IN ...]

Reads the heaps (a file's only snapshot, or every snapshot of a file of
several; IN#N for one; prog.mvmheap#0..#5 for a range; several INs),
analyzes them once (classes, retainers, dominator tree, retained sizes),
and serves a page to look around them in a browser: the classes with
their counts and sizes, each class's objects, an object's fields,
retainers, retainer path, dominators and what it keeps alive, and a
search by id, class or string. The page asks the server for what it
shows, a page at a time, so a heap of any size is explored in a tab of a
few MB. The page's JSON API (docs/api.md) serves scripts too.

The address to open, with its token, is printed on standard error; the
server runs until interrupted (Ctrl-C: exit status 130). It listens on
127.0.0.1 unless --addr says otherwise; every request needs the token
(another user of the machine, or a web page, cannot read the heap), and
only reads.

Flags:
  --addr HOST:PORT  where to listen (default 127.0.0.1:0, any free port;
                    another host than 127.0.0.1 or ::1 lets other machines
                    connect, with the token)
  --open            open the page in the default browser
  --from F          input format (ir, v8, dart, moarvm, fuchsia, fuchsia-fidl)
  --contents DIR    the block contents directory of a Fuchsia heapdump IN
  --scan-pointers   with --contents, or for a fuchsia-fidl IN: turn aligned
                    words that point into live blocks into edges

Examples:
  heapconv explore app.heapsnapshot
  heapconv explore --open before.heapsnapshot after.heapsnapshot
  heapconv explore --addr 127.0.0.1:8080 rakudo.mvmheap#3
`

func runExplore(e *env, args []string) error {
	fs := newFlags("explore")
	addr := fs.String("addr", "127.0.0.1:0", "")
	open := fs.Bool("open", false, "")
	from := inputFlag(fs, "from")
	contents := inputFlag(fs, "contents")
	scan := fs.Bool("scan-pointers", false, "")
	if err := parse(e, fs, exploreUsage, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("explore needs IN")
	}
	operands, err := heapArgs(fs.Args(), "")
	if err != nil {
		return err
	}
	// Listen first: a taken port fails before minutes of reading.
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return usagef("--addr %s: %v", *addr, err)
	}
	defer l.Close()
	heaps, names, err := readAllHeaps(e, operands, heapconv.ReadOptions{Format: *from, ContentsDir: *contents, ScanPointers: *scan}, true)
	if err != nil {
		return inputError(err)
	}
	srv, err := explore.New(heaps, explore.Options{Names: names})
	if err != nil {
		return err
	}
	url := srv.URL(l.Addr())
	if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintf(e.stderr, "heapconv explore: warning: listening on %s, which other machines can reach (with the token)\n", l.Addr())
	}
	fmt.Fprintf(e.stderr, "heapconv explore: %d heap(s) at %s\n(Ctrl-C to stop)\n", len(heaps), url)
	if *open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "heapconv explore: could not open a browser (%v): open the address above\n", err)
		}
	}
	return srv.Serve(l)
}

// openBrowser opens url in the desktop's browser, without waiting for it.
// The browser is given a file of the user's own that leads to url, not url
// itself: a command line is public to every user of the machine (ps), and
// url carries the token. The file is removed once the browser has had time
// to read it.
func openBrowser(url string) error {
	f, err := os.CreateTemp("", "heapconv-explore-*.html") // mode 0600
	if err != nil {
		return err
	}
	page := `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=` + html.EscapeString(url) +
		`"><title>heapconv explore</title><a href="` + html.EscapeString(url) + `">heapconv explore</a>`
	if _, err := f.WriteString(page); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	f.Close()
	remove := func() { os.Remove(f.Name()) }
	onSignal(remove)
	time.AfterFunc(time.Minute, remove)
	path := filepath.ToSlash(f.Name())
	if !strings.HasPrefix(path, "/") {
		path = "/" + path // C:/… on Windows
	}
	return startBrowser((&neturl.URL{Scheme: "file", Path: path}).String())
}

// startBrowser has the desktop open target, without waiting for it.
func startBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
