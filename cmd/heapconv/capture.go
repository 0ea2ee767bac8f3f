package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/bytesize"
)

const captureUsage = `Usage: heapconv capture [--to F|parquet] [--force] [-q] [--gc]
                        [--count N] [--interval D] [--isolate NAME]
                        [--target TEXT] [--port N] [--loss-report FILE.json]
                        [--level L] [--redact] TARGET OUT

Takes a heap snapshot of a running program and writes it to OUT in any
format, as convert writes it. TARGET is the program's address as it
prints it:
  http://127.0.0.1:8181/AbCd1234=/   a Dart VM service (flutter run, dart
                                     --observe; its ws://…/ws form too)
  ws://127.0.0.1:9229/<uuid>         a Node process's inspector ("Debugger
                                     listening on …": node --inspect)
  http://127.0.0.1:9229              a V8 inspector's endpoint: Node's, or
                                     Chrome's --remote-debugging-port, whose
                                     page --target chooses
  pid:12345                          a local Node process started without
                                     --inspect: SIGUSR1 opens its inspector
                                     (on 127.0.0.1:9229, or its
                                     --inspect-port), which stays open
In the producer's own format (.heapsnapshot from V8, .dartheap from Dart,
either compressed: .heapsnapshot.zst) the snapshot goes to OUT as it
arrives, in a few megabytes of memory however large it is; another
format is read as it arrives, in the memory of the heap's IR. OUT is
written to a temporary file and renamed when whole: an interrupted or
failed capture leaves none. An existing OUT needs --force.

Flags:
  --to F          output format (ir, v8, dart, moarvm, fuchsia, fuchsia-fidl),
                  or parquet for a directory of tables; default: OUT's
                  extension, as for convert
  --force         replace an existing OUT
  -q, --quiet     print nothing on standard error but errors
  --gc            collect garbage first (V8 collects for a snapshot anyway;
                  a Dart VM does not)
  --count N       take N snapshots, --interval apart, into OUT with a %d
                  (numbered from 0; %03d pads): a series for diff
  --interval D    the wait between snapshots (10s, 1m; default 0)
  --isolate NAME  the Dart isolate (default: "main", or the only one)
  --target TEXT   the browser page whose URL or title contains TEXT
                  (default: the only page)
  --port N        the inspector port of a pid: TARGET that listens on
                  several (default: the one it opens on SIGUSR1: 9229, or
                  the --inspect-port it was started with)
  --loss-report FILE.json
                  write what OUT's format could not hold, as JSON
  --level L       how hard to compress an OUT ending in .zst or .gz:
                  fast, default or best
  --redact        replace what the program stored (string contents, numbers,
                  memory contents) by placeholders of the same length, as
                  convert --redact does, so that OUT can be shared; the
                  snapshot is then read into the IR whatever OUT's format

Examples:
  heapconv capture http://127.0.0.1:8181/AbCd1234=/ app.heapsnapshot
  heapconv capture ws://127.0.0.1:9229/0f2c9d1e-5a8b-4c3d-9e7f-1a2b3c4d5e6f \
      app.heapir.zst
  heapconv capture --gc pid:12345 server.heapsnapshot.zst
  heapconv capture --count 3 --interval 30s pid:12345 'server-%d.heapsnapshot'
  heapconv capture --target localhost:3000 http://127.0.0.1:9222 \
      page.heapsnapshot
  heapconv capture --to parquet http://127.0.0.1:8181/AbCd1234=/ tables/app
  heapconv capture --redact pid:12345 shareable.heapsnapshot
`

func runCapture(e *env, args []string) error {
	fs := newFlags("capture")
	to := fs.String("to", "", "")
	force := fs.Bool("force", false, "")
	quiet := fs.BoolP("quiet", "q", false, "")
	gc := fs.Bool("gc", false, "")
	count := fs.Int("count", 1, "")
	interval := fs.Duration("interval", 0, "")
	isolate := fs.String("isolate", "", "")
	page := fs.String("target", "", "")
	port := fs.Int("port", 0, "")
	lossFile := fs.String("loss-report", "", "")
	levelName := fs.String("level", "", "")
	redact := fs.Bool("redact", false, "")
	if err := parse(e, fs, captureUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("capture needs TARGET and OUT")
	}
	target, outName := fs.Arg(0), fs.Arg(1)
	if _, err := capture.ParseTarget(target); err != nil {
		return usagef("%v", err)
	}
	switch {
	case *count < 1:
		return usagef("--count must be at least 1")
	case *interval < 0:
		return usagef("--interval cannot be negative")
	case *count == 1 && fs.Changed("interval"):
		return usagef("--interval is the wait between the snapshots of --count N")
	case *port < 0 || *port > 65535:
		return usagef("--port must be a TCP port")
	case fs.Changed("port") && !strings.HasPrefix(target, "pid:"):
		return usagef("--port is for a pid: TARGET; other targets name their port")
	case *to == "" && outName == "-":
		return usagef("writing to standard output needs --to")
	case *to != "" && *to != heapconv.FormatParquet && heapconv.FormatByName(*to) == nil:
		return usagef("--to: unknown format %q", *to)
	case *to == "" && outName != "-" && heapconv.OutputFormat(outName) == nil && !strings.HasSuffix(strings.ToLower(outName), ".parquet"):
		return usagef("cannot tell the output format from %q; give --to", outName)
	}
	level, err := parseLevel(fs, *levelName)
	if err != nil {
		return err
	}
	parquet := *to == heapconv.FormatParquet || *to == "" && strings.HasSuffix(strings.ToLower(outName), ".parquet")
	if parquet && (*count > 1 || fs.Changed("level") || *lossFile == "-") {
		return usagef("--count, --level and --loss-report - are not for Parquet tables")
	}
	// SIGINT and SIGTERM end the process (onSignals), taking back the
	// output being written.
	ctx := context.Background()
	shown := newCaptureProgress(e, *quiet)
	opts := &heapconv.CaptureOptions{
		Capture: capture.Options{GC: *gc, Isolate: *isolate, Page: *page, Port: *port, Progress: shown.update},
		Count:   *count, Interval: *interval,
		Convert: heapconv.ConvertOptions{
			To: *to, Overwrite: *force, LossReportFile: *lossFile, Redact: *redact,
			Write:  heapconv.WriteOptions{Level: level},
			Stdout: e.stdout,
		},
		Connected: func(p capture.Producer) {
			if !*quiet {
				fmt.Fprintf(e.stderr, "capturing %s\n", describeProducer(p))
			}
		},
		Written: func(i int, name string, n int64) {
			shown.clear()
			if !*quiet {
				fmt.Fprintf(e.stderr, "%s: written (%s received)\n", name, bytesize.String(uint64(n)))
			}
		},
	}
	if parquet {
		return captureTables(ctx, e, target, outName, *force, *quiet, *redact, *lossFile, opts)
	}
	r, err := heapconv.CaptureFile(ctx, target, outName, opts)
	shown.clear()
	if err != nil {
		return captureError(err)
	}
	printLoss(e, r.LossReport, *quiet, *redact)
	return nil
}

// describeProducer names what is captured: "node.js/v20.20.2, process
// 4242 (server.js)".
func describeProducer(p capture.Producer) string {
	if p.VM == "" {
		return p.Target
	}
	return p.VM + ", " + p.Target
}

// captureTables captures into a temporary file in the producer's format
// and exports it as Parquet tables, whose file id is OUT's name.
func captureTables(ctx context.Context, e *env, target, out string, force, quiet, redact bool, lossFile string, opts *heapconv.CaptureOptions) error {
	if _, err := os.Stat(out); err == nil && !force {
		// Refused before the capture, as ExportTables would after it.
		return fmt.Errorf("%s: %w (use --force to replace it)", out, heapconv.ErrExists)
	}
	sess, err := capture.Connect(ctx, target, &opts.Capture)
	if err != nil {
		return captureError(err)
	}
	defer sess.Close()
	p := sess.Producer()
	opts.Connected(p)
	dir, err := os.MkdirTemp("", "heapconv-capture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "snapshot"+heapconv.FormatByName(p.Format).Extensions[0])
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	n, err := sess.Snapshot(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	clearProgress(e) // the progress line, before what follows is printed
	if err != nil {
		return captureError(err)
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "received a snapshot of %s\n", bytesize.String(uint64(n)))
	}
	id := strings.TrimSuffix(filepath.Base(out), ".parquet")
	return exportTables(e, tmp, out, "", force, quiet, redact, lossFile, id, heapconv.ReadOptions{Name: target})
}

// captureError puts an error of CaptureFile in the command line's terms.
func captureError(err error) error {
	switch {
	case errors.Is(err, capture.ErrWhichPage):
		return fmt.Errorf("%w\n(give --target TEXT)", err)
	case errors.Is(err, capture.ErrWhichIsolate):
		return fmt.Errorf("%w\n(give --isolate NAME)", err)
	}
	return convertError(err)
}

// captureProgress shows, on a terminal, V8's progress in building a
// snapshot, then the bytes received.
type captureProgress struct {
	e     *env
	on    bool
	mu    sync.Mutex
	drawn time.Time
}

func newCaptureProgress(e *env, quiet bool) *captureProgress {
	return &captureProgress{e: e, on: e.stderrTerminal && !quiet}
}

// update draws p at most ten times a second.
func (c *captureProgress) update(p capture.Progress) {
	if !c.on {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.drawn) < 100*time.Millisecond {
		return
	} else {
		c.drawn = now
	}
	if p.Received == 0 && p.Total > 0 {
		// The VM's numbers, unchecked: kept to 0–100% (Done*100 could
		// overflow, Done could be negative or past Total).
		pct := int(min(max(float64(p.Done)/float64(p.Total)*100, 0), 100))
		fmt.Fprintf(c.e.stderr, "\r\033[Kthe VM builds the snapshot: %3d%% of %d objects", pct, p.Total)
	} else {
		fmt.Fprintf(c.e.stderr, "\r\033[Kreceiving the snapshot: %s", bytesize.String(uint64(p.Received)))
	}
	c.e.progressShown = true
}

func (c *captureProgress) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clearProgress(c.e)
}
