package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// TestCapture takes heap snapshots of real programs with heapconv.CaptureFile:
// Node processes (through the inspector's WebSocket, its HTTP endpoint,
// and pid: with SIGUSR1), a page in headless Chromium, and Dart VMs of
// several SDK versions; and compares each with the snapshot the program
// writes itself at the same moment, class by class.
func TestCapture(t *testing.T) {
	t.Run("node", func(t *testing.T) {
		eachNode(t, captureNode)
	})
	t.Run("chromium", func(t *testing.T) {
		t.Parallel()
		captureChromium(t)
	})
	t.Run("dart", func(t *testing.T) {
		eachDartVM(t, captureDartVM)
	})
}

// take captures target into out with the Go API.
func take(t *testing.T, target, out string, opts *heapconv.CaptureOptions) heapconv.CaptureReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := heapconv.CaptureFile(ctx, target, out, opts)
	if err != nil {
		t.Fatalf("capture %s %s: %v", target, filepath.Base(out), err)
	}
	return r
}

// captureNode captures objects.js under node in every way there is to
// name a Node process, and (all) into every format, redacted too.
func captureNode(t *testing.T, node string, all bool) {
	dir := t.TempDir()
	p := startNode(t, node, captureJS, nodeInspect)
	own := filepath.Join(dir, "own.heapsnapshot")
	for _, target := range []string{p.WS, p.HTTP} {
		out := filepath.Join(dir, "captured.heapsnapshot")
		r := take(t, target, out, &heapconv.CaptureOptions{Convert: heapconv.ConvertOptions{Overwrite: true}})
		if r.Producer.Format != "v8" || !strings.HasPrefix(r.Producer.VM, "node.js/"+p.Version) {
			t.Errorf("%s: producer %+v, want node.js/%s", target, r.Producer, p.Version)
		}
		p.WriteSnapshot(t, own)
		compareCaptured(t, out, own)
	}
	// pid: on a process without an inspector, on a port of its own
	// (--inspect-port) and on Node's default one.
	for _, mode := range []nodeMode{nodeSignal, nodeSignalDefaultPort} {
		if mode == nodeSignalDefaultPort && !defaultPortFree() {
			t.Logf("another program holds 127.0.0.1:9229, Node's default inspector port: pid: on it is not tried")
			continue
		}
		q := startNode(t, node, captureJS, mode)
		out := filepath.Join(dir, "pid-"+mode.String()+".heapsnapshot")
		r := take(t, "pid:"+strconv.Itoa(q.Pid), out, &heapconv.CaptureOptions{Capture: capture.Options{GC: true}})
		if want := fmt.Sprintf("process %d", q.Pid); !strings.HasPrefix(r.Producer.Target, want) {
			t.Errorf("pid: producer %+v, want %s", r.Producer, want)
		}
		ws, _ := q.Inspector(t) // what Node printed on SIGUSR1
		if mode == nodeSignalDefaultPort && !strings.HasPrefix(ws, "ws://127.0.0.1:9229/") {
			t.Errorf("SIGUSR1 opened %s, not Node's default port", ws)
		}
		q.WriteSnapshot(t, own)
		compareCaptured(t, out, own)
		if all && mode == nodeSignal {
			readmeCapture(t, "pid:", "pid:"+strconv.Itoa(q.Pid))
		}
	}
	if all {
		captureEveryFormat(t, p.WS, nodeSecret)
		captureSeries(t, p.HTTP)
	}
}

// defaultPortFree reports whether Node's default inspector port is free
// for a test's process (the tests' own wait for each other).
func defaultPortFree() bool {
	defaultPort.Lock()
	defer defaultPort.Unlock()
	l, err := net.Listen("tcp", "127.0.0.1:9229")
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// captureChromium captures the page of dom.html: its DOM nodes, detached
// ones too, and its secret string.
func captureChromium(t *testing.T) {
	c := startChromium(t, captureHTML)
	dir := t.TempDir()
	for _, target := range []struct {
		addr string
		page string
	}{{c.HTTP, "capture page"}, {c.PageWS, ""}} {
		out := filepath.Join(dir, "page.heapsnapshot")
		r := take(t, target.addr, out, &heapconv.CaptureOptions{Capture: capture.Options{Page: target.page}, Convert: heapconv.ConvertOptions{Overwrite: true}})
		if !strings.HasPrefix(r.Producer.VM, "Chrome/") && target.page != "" {
			t.Errorf("producer %+v, want Chrome", r.Producer)
		}
		f, err := heapconv.ReadFile(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Chrome names DOM nodes by their tag ("<div>", "Detached <div>").
		divs, detached, holders := 0, 0, 0
		for _, cs := range analysis.ClassStats(f, f.Snapshots[0]) {
			switch cs.Name {
			case "<div>":
				divs += int(cs.Count)
			case "Detached <div>":
				detached += int(cs.Count)
			case "CaptureNode":
				holders += int(cs.Count)
			}
		}
		if divs < 400 || detached != 100 || holders != 500 {
			t.Errorf("%s: %d <div>, %d detached, %d CaptureNode; want the page's 400 (and its holder), 100 and 500", target.addr, divs, detached, holders)
		}
		if !slices.Contains(f.Strings, pageSecret) {
			t.Errorf("%s: the page's secret string is not in the snapshot", target.addr)
		}
		t.Logf("%s: %d nodes, %d divs (%d detached)", target.addr, f.Snapshots[0].Nodes.Len(), divs+detached, detached)
	}
	// The browser's own target has no heap: the endpoint's page is the
	// one to choose, and the browser's WebSocket is refused as such.
	if _, err := capture.Connect(context.Background(), c.HTTP, &capture.Options{Page: "no such page"}); err == nil || !strings.Contains(err.Error(), "capture page") {
		t.Errorf("a page no tab shows: %v, want the list of pages", err)
	}
}

// captureDartVM captures objects.dart on a Dart VM through its service:
// the file is the VM's own (byte-exact through the IR), as the VM writes
// it itself; two captures of the one process match object for object by
// identity hash; the conversion to V8 loads in DevTools' loader with the
// figures heapconv predicts.
func captureDartVM(t *testing.T, sass, version string, authCodes, all bool) {
	dart := requireDart(t, sass)
	vm := startDart(t, dart, captureDart, authCodes)
	if vm.CanWriteSnapshot {
		// The program compiles the code that writes its own snapshot the
		// first time it runs: once before the captures, so that they do
		// not differ from its own snapshot, nor from each other, by that
		// code.
		vm.WriteSnapshot(t, os.DevNull)
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.dartheap")
	r := take(t, vm.URI, first, nil)
	if r.Producer.Format != "dart" || r.Producer.VM != "Dart "+version+" (stable)" || r.Producer.Target != "isolate main" {
		t.Errorf("producer %+v", r.Producer)
	}
	checkProducerSnapshot(t, first, dartSecret)
	verdicts, err := heapconv.RoundTrip(first, nil)
	if err != nil || len(verdicts) == 0 || !strings.Contains(verdicts[0].Text, "byte-exact") {
		t.Errorf("the capture's round trip: %+v, %v", verdicts, err)
	}
	for _, v := range verdicts {
		if !v.Same {
			t.Errorf("the capture's round trip: %s", v.Text)
		}
	}
	second := filepath.Join(dir, "second.dartheap")
	take(t, vm.WS, second, &heapconv.CaptureOptions{Capture: capture.Options{GC: true}})
	if vm.CanWriteSnapshot {
		own := filepath.Join(dir, "own.dartheap")
		vm.WriteSnapshot(t, own)
		compareCaptured(t, second, own)
	}
	// The two captures of one idle process: the same objects, matched by
	// their identity hash codes.
	sameObjects(t, first, second)
	// Into V8 (as captures into V8 write it: the conversion of the
	// stream), judged by DevTools' own loader.
	v8out := filepath.Join(dir, "dart.heapsnapshot")
	if _, err := heapconv.ConvertFile(first, v8out, nil); err != nil {
		t.Fatal(err)
	}
	conv, err := heapconv.ReadFile(v8out, nil)
	if err != nil {
		t.Fatal(err)
	}
	devtoolsProject.require(t)
	sums, err := summarize([]string{v8out}, map[string]int64{v8out: fileSize(t, v8out)})
	if err != nil {
		t.Fatal(err)
	}
	if s := sums[v8out]; loaded(t, s) {
		compareSummary(t, s, conv)
	}
	if all {
		// The README's line captures into V8; a capture into each other
		// format takes the path of Node's (the stream read as it comes),
		// which captureNode runs, and the real Dart heaps of testdata
		// go through every format in the conversion matrix: every format
		// from a live Dart VM in the exhaustive run.
		readmeCapture(t, "http://127.0.0.1:8181/", vm.URI)
		if sampling.Exhaustive() {
			captureEveryFormat(t, vm.URI, dartSecret)
		} else {
			sampling.Logf(t, 0, 1, "captures of a live Dart VM into every format")
		}
	}
	if authCodes {
		// The auth code is what keeps other programs out: without it the
		// service refuses, and says what is missing.
		noCode := vm.URI[:strings.Index(vm.URI[len("http://"):], "/")+len("http://")+1]
		_, err := heapconv.CaptureFile(context.Background(), noCode, filepath.Join(dir, "refused.dartheap"), nil)
		if !errors.Is(err, capture.ErrNotVM) || !strings.Contains(err.Error(), "auth code") {
			t.Errorf("%s without its auth code: %v", vm.URI, err)
		}
	}
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// compareCaptured compares a captured snapshot with the producer's own
// file written just after it, class by class: an idle program has the
// same objects in both but for what taking a snapshot allocates (the
// inspector's session, the VM service's replies), a few dozen objects.
func compareCaptured(t *testing.T, captured, own string) {
	t.Helper()
	stats := func(name string) (map[string]analysis.ClassStat, int) {
		f, err := heapconv.ReadFile(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]analysis.ClassStat{}
		for _, c := range analysis.ClassStats(f, f.Snapshots[0]) {
			s := m[c.Name]
			s.Count += c.Count
			s.SelfSize += c.SelfSize
			m[c.Name] = s
		}
		return m, f.Snapshots[0].Nodes.Len()
	}
	a, na := stats(captured)
	b, nb := stats(own)
	var differ []string
	var moved uint64
	for _, name := range slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		for k := range a {
			yield(k, true)
		}
		for k := range b {
			yield(k, true)
		}
	}))) {
		x, y := a[name], b[name]
		if x.Count == y.Count && x.SelfSize == y.SelfSize {
			continue
		}
		differ = append(differ, fmt.Sprintf("%s: %d objects, %d bytes captured; %d, %d in the program's own", name, x.Count, x.SelfSize, y.Count, y.SelfSize))
		moved += max(x.Count, y.Count) - min(x.Count, y.Count)
	}
	if a["CaptureLeaf"].Count != captureLeaves || b["CaptureLeaf"].Count != captureLeaves {
		t.Errorf("%s: CaptureLeaf %d captured, %d in the program's own file; want %d", filepath.Base(captured), a["CaptureLeaf"].Count, b["CaptureLeaf"].Count, captureLeaves)
	}
	// A few dozen objects of a heap of tens of thousands.
	if moved*200 > uint64(max(na, nb)) {
		t.Errorf("%s: %d of %d classes differ by %d objects from the program's own snapshot (%d objects):\n%s",
			filepath.Base(captured), len(differ), len(a), moved, nb, strings.Join(differ, "\n"))
	} else {
		t.Logf("%s: %d objects (%d in the program's own file); %d classes differ by %d objects", filepath.Base(captured), na, nb, len(differ), moved)
	}
}

// captureEveryFormat captures target into every format heapconv writes,
// each read back; and each again with Redact, which must leave no trace
// of the program's secret, which the plain captures hold. Parquet tables
// come from the command. By default it takes the formats of different
// kinds of writer (V8, MoarVM, the IR; the redacted Parquet tables): the
// matrix tests every writer, and redaction happens before any of them.
func captureEveryFormat(t *testing.T, target, secret string) {
	dir := t.TempDir()
	taken, all := 0, 0
	sampled := func(ext string, redact bool) bool {
		all++
		if sampling.Exhaustive() || redact && (ext == ".heapsnapshot" || ext == ".mvmheap" || ext == ".heapir.zst" || ext == "parquet") ||
			!redact && ext == ".heapsnapshot" {
			taken++
			return true
		}
		return false
	}
	defer func() { sampling.Logf(t, taken, all, "captures into formats") }()
	for _, redact := range []bool{false, true} {
		if !sampled("parquet", redact) {
			continue
		}
		out := filepath.Join(dir, fmt.Sprintf("tables-%v", redact))
		args := []string{"capture", "-q", "--to", "parquet", target, out}
		if redact {
			args = append(args[:1], append([]string{"--redact"}, args[1:]...)...)
		}
		if code, _, stderr := runHeapconv(t, buildHeapconv(t), args...); code != 0 {
			t.Fatalf("heapconv %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		if found := tablesHold(t, out, secret); found == redact {
			t.Errorf("Parquet tables, redact %v: the secret found: %v", redact, found)
		}
	}
	for _, redact := range []bool{false, true} {
		exts := []string{".heapsnapshot", ".heapsnapshot.zst", ".dartheap", ".mvmheap", ".pb.gz", ".fidlstream", ".heapir.zst"}
		if !redact {
			// Unredacted, the formats that keep string contents: each
			// holds the secret, so that the redacted captures' check of
			// every format can fail.
			exts = []string{".heapsnapshot", ".dartheap", ".heapir.zst"}
		}
		for _, ext := range exts {
			if !sampled(ext, redact) {
				continue
			}
			out := filepath.Join(dir, fmt.Sprintf("every-%v%s", redact, ext))
			r := take(t, target, out, &heapconv.CaptureOptions{Convert: heapconv.ConvertOptions{Redact: redact}})
			f, err := heapconv.ReadFile(out, nil)
			if err != nil {
				t.Errorf("%s: reading the capture back: %v", ext, err)
				continue
			}
			if err := f.Validate(); err != nil {
				t.Errorf("%s: %v", ext, err)
			}
			data := plainBytes(t, out)
			has := bytes.Contains(data, []byte(secret)) || slices.Contains(f.Strings, secret)
			switch {
			case redact && has:
				t.Errorf("%s, redacted: the secret %s is in the output", ext, secret)
			case redact && !slices.ContainsFunc(r.Losses, func(l ir.Loss) bool { return ir.IsRedaction(l.Kind) }):
				t.Errorf("%s, redacted: the report names no redaction: %v", ext, r.Losses)
			case !redact && !has:
				t.Errorf("%s: the secret %s is not in the plain capture", ext, secret)
			}
		}
	}
}

// captureSeries takes a series of two snapshots of an idle Node process
// with the command, and compares them as diff does: the same objects,
// matched by V8's ids.
func captureSeries(t *testing.T, target string) {
	dir := t.TempDir()
	code, _, stderr := runHeapconv(t, buildHeapconv(t), "capture", "-q", "--count", "2", "--interval", "100ms", target, filepath.Join(dir, "s-%d.heapsnapshot"))
	if code != 0 {
		t.Fatalf("capture --count 2: exit %d\n%s", code, stderr)
	}
	sameObjects(t, filepath.Join(dir, "s-0.heapsnapshot"), filepath.Join(dir, "s-1.heapsnapshot"))
}

// sameObjects compares two snapshots of an idle program as diff does: its
// objects matched by the identity the format gives them, few are new in
// the second (what taking the first allocated), and none of its
// CaptureLeaf objects.
func sameObjects(t *testing.T, first, second string) {
	t.Helper()
	var heaps []analysis.Heap
	for _, name := range []string{first, second} {
		h, err := heapconv.ReadHeap(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		heaps = append(heaps, h)
	}
	cmp, err := analysis.Compare(heaps, analysis.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Identity == "" {
		t.Errorf("%s and %s: no identity to match objects by", filepath.Base(first), filepath.Base(second))
	}
	var newObjects uint64
	for _, g := range cmp.New {
		newObjects += g.Count
		if g.Class == "CaptureLeaf" {
			t.Errorf("%d CaptureLeaf objects are new in %s: they are the same objects", g.Count, filepath.Base(second))
		}
	}
	n := heaps[1].Snapshot.Nodes.Len()
	if newObjects*50 > uint64(n) {
		t.Errorf("%d of %d objects new in %s, a second snapshot of an idle program", newObjects, n, filepath.Base(second))
	}
	t.Logf("%s: %d of %d objects new since %s (matched by %s)", filepath.Base(second), newObjects, n, filepath.Base(first), cmp.Identity)
}

// tablesHold reports whether a value of the Parquet tables in dir holds
// s (their pages may be compressed: values are read, not bytes).
func tablesHold(t *testing.T, dir, s string) bool {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(names) < 5 {
		t.Fatalf("%d tables in %s: %v", len(names), dir, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range pf.RowGroups() {
			rows := rg.Rows()
			buf := make([]parquet.Row, 256)
			for {
				n, err := rows.ReadRows(buf)
				for _, row := range buf[:n] {
					for _, v := range row {
						if k := v.Kind(); (k == parquet.ByteArray || k == parquet.FixedLenByteArray) && strings.Contains(string(v.ByteArray()), s) {
							rows.Close()
							return true
						}
					}
				}
				if err == io.EOF || n == 0 {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			rows.Close()
		}
	}
	return false
}

// plainBytes returns a file's bytes, decompressed when it is gzip or zstd.
func plainBytes(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		return data
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readmeCapture runs the README's capture line whose target starts with
// prefix ("http://127.0.0.1:8181/" for the Dart VM, "pid:" for Node) with
// the command, against target in place of the README's example address,
// and checks that its output reads.
func readmeCapture(t *testing.T, prefix, target string) {
	t.Helper()
	section := readmeSection(t, "Capture a running program")
	var args []string
	for _, l := range strings.Split(section, "\n") {
		if l, ok := strings.CutPrefix(l, "    heapconv capture "); ok && strings.HasPrefix(l, prefix) {
			args = strings.Fields(l)
		}
	}
	if len(args) < 2 {
		t.Fatalf("the README's \"Capture a running program\" has no capture line of a %s target", prefix)
	}
	args[0] = target
	out := filepath.Join(t.TempDir(), args[len(args)-1])
	args[len(args)-1] = out
	code, _, stderr := runHeapconv(t, buildHeapconv(t), append([]string{"capture"}, args...)...)
	if code != 0 {
		t.Fatalf("the README's heapconv capture %s…: exit %d\n%s", prefix, code, stderr)
	}
	f, err := heapconv.ReadFile(out, nil)
	if err != nil {
		t.Fatalf("the README's heapconv capture %s…: %v", prefix, err)
	}
	t.Logf("the README's heapconv capture %s…: %d objects\n%s", prefix, f.Snapshots[0].Nodes.Len(), stderr)
}

// TestCaptureDropped kills a real Node process while its snapshot comes
// in: the capture fails, saying so, and leaves no output.
func TestCaptureDropped(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "big.js")
	// A heap whose snapshot takes long enough to be cut (tens of MB).
	program := `
const items = []; for (let i = 0; i < 50000; i++) items.push({ i, s: 'item ' + i, next: items[i - 1] });
globalThis.items = items;
require('readline').createInterface({ input: process.stdin }).on('close', () => process.exit(0));
console.log('ready');
`
	if err := os.WriteFile(script, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startNode(t, "", script, nodeInspect)
	killed := false
	out := filepath.Join(dir, "cut.heapsnapshot")
	opts := &heapconv.CaptureOptions{Capture: capture.Options{Progress: func(pr capture.Progress) {
		if pr.Received > 0 && !killed {
			killed = true
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}}}
	for _, o := range []string{out, filepath.Join(dir, "cut.heapir.zst")} {
		killed = false
		if o != out {
			p = startNode(t, "", script, nodeInspect)
		}
		_, err := heapconv.CaptureFile(context.Background(), p.WS, o, opts)
		if !errors.Is(err, capture.ErrDropped) {
			t.Errorf("%s: %v, want ErrDropped", filepath.Base(o), err)
		}
		t.Logf("%s: %v", filepath.Base(o), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "big.js" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// capturedFixtures are the real Dart VM heaps in testdata/dart, captured
// with heapconv from the Dart VMs the capture tests run (objects.dart, its
// own snapshot code compiled first), so that the suite covers real VM
// output offline: as every Dart fixture, they go through the round trips,
// the conversion matrix and the damage sweep (formats_test.go).
var capturedFixtures = []struct{ sass, dart string }{dartVMs[0], dartVMs[len(dartVMs)-1]}

func capturedFixture(dart string) string {
	return filepath.Join(moduleRoot, "testdata", "dart", "dart-"+dart+"-capture.dartheap.zst")
}

// TestCapturedFixtures checks the real Dart heaps of testdata/dart for
// what their programs built; HEAPCONV_UPDATE_CAPTURES=1 captures them
// again from the Dart VMs.
func TestCapturedFixtures(t *testing.T) {
	update := os.Getenv("HEAPCONV_UPDATE_CAPTURES") == "1"
	for _, v := range capturedFixtures {
		t.Run(v.dart, func(t *testing.T) {
			path := capturedFixture(v.dart)
			if update {
				vm := startDart(t, requireDart(t, v.sass), captureDart, true)
				if vm.CanWriteSnapshot {
					vm.WriteSnapshot(t, os.DevNull)
				}
				take(t, vm.URI, path, &heapconv.CaptureOptions{Capture: capture.Options{GC: true},
					Convert: heapconv.ConvertOptions{Overwrite: true, Write: heapconv.WriteOptions{Level: heapconv.LevelBest}}})
			}
			checkProducerSnapshot(t, path, dartSecret)
			f, err := heapconv.ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(f.FormatVersion, "identity hash") {
				t.Errorf("%s: %s, want a VM's layout with identity hash codes", filepath.Base(path), f.FormatVersion)
			}
		})
	}
}
