package conformance

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir/analysis"
)

// The secrets the capture programs plant, each joined at run time.
const (
	dartSecret = "SECRET-dart-7c2e9a"
	nodeSecret = "SECRET-node-3b8f1e"
	pageSecret = "SECRET-page-91d0aa"
)

// captureLeaves is how many CaptureLeaf objects objects.dart and
// objects.js keep.
const captureLeaves = 1000

// TestProducers checks the harness the capture tests start producers
// with: each producer starts, answers on its endpoint over plain HTTP as
// the harness says it does, and (where it can) writes its own snapshot
// holding the program's objects. TestCapture starts the same producers
// through the harness in every run, so this diagnosis of the harness alone
// runs with HEAPCONV_EXHAUSTIVE=1 (every Dart VM of dartVMs, the machine's
// node and the pinned ones, Chromium), as CI's exhaustive suite does.
func TestProducers(t *testing.T) {
	if !sampling.Exhaustive() {
		sampling.Logf(t, 0, 1, "runs of the harness's own checks (TestCapture runs its producers)")
		return
	}
	t.Run("dart", func(t *testing.T) {
		eachDartVM(t, func(t *testing.T, sass, dart string, authCodes, _ bool) {
			checkDartProducer(t, sass, dart, authCodes)
		})
	})
	t.Run("node", func(t *testing.T) {
		eachNode(t, func(t *testing.T, node string, _ bool) {
			for _, mode := range []nodeMode{nodeInspect, nodeSignal, nodeSignalDefaultPort} {
				t.Run(mode.String(), func(t *testing.T) {
					t.Parallel()
					checkNodeProducer(t, node, mode)
				})
			}
		})
	})
	t.Run("chromium", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		c := startChromium(t, captureHTML)
		t.Logf("Chromium showed the page in %v", time.Since(start).Round(time.Millisecond))
		if c.PageTitle != "heapconv capture page" {
			t.Errorf("page title %q, want %q", c.PageTitle, "heapconv capture page")
		}
		if !strings.HasPrefix(c.PageWS, "ws://"+strings.TrimPrefix(c.HTTP, "http://")+"/devtools/page/") {
			t.Errorf("page WebSocket %q is not on %s", c.PageWS, c.HTTP)
		}
		var version struct {
			Browser string `json:"Browser"`
			WS      string `json:"webSocketDebuggerUrl"`
		}
		if err := getJSON(c.HTTP+"/json/version", &version); err != nil {
			t.Fatal(err)
		}
		if version.WS != c.WS || version.Browser == "" {
			t.Errorf("/json/version: browser %q at %q, want the WebSocket %q Chromium printed", version.Browser, version.WS, c.WS)
		}
		t.Logf("%s, page %s", version.Browser, c.PageURL)
	})
}

// eachDartVM runs f in a parallel subtest per Dart VM the run takes: the
// newest, what capture meets most, and with HEAPCONV_EXHAUSTIVE=1 every
// one of dartVMs. The newest runs with the auth code in its service's
// address, as VMs run by default; the others alternate.
func eachDartVM(t *testing.T, f func(t *testing.T, sass, dart string, authCodes, newest bool)) {
	t.Parallel()
	idx := []int{len(dartVMs) - 1}
	if sampling.Exhaustive() {
		idx = sampling.Spread(len(dartVMs), len(dartVMs))
	}
	sampling.Logf(t, len(idx), len(dartVMs), "Dart VMs")
	for k, i := range idx {
		v := dartVMs[i]
		t.Run(v.dart, func(t *testing.T) {
			t.Parallel()
			f(t, v.sass, v.dart, (len(idx)-1-k)%2 == 0, k == 0)
		})
	}
}

// eachNode runs f in a parallel subtest per Node the run takes: the
// machine's (node "", system), and with HEAPCONV_EXHAUSTIVE=1 the pinned
// versions too, installed by requireNode.
func eachNode(t *testing.T, f func(t *testing.T, node string, system bool)) {
	t.Parallel()
	pins, err := nodePins()
	if err != nil {
		t.Fatal(err)
	}
	majors := []int{0}
	if sampling.Exhaustive() {
		majors = append(majors, slices.Sorted(maps.Keys(pins))...)
	}
	sampling.Logf(t, len(majors), 1+len(pins), "Node versions")
	for _, major := range majors {
		name := "system"
		if major != 0 {
			name = strconv.Itoa(major)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			node := ""
			if major != 0 {
				node = requireNode(t, major)
			}
			f(t, node, major == 0)
		})
	}
}

// checkDartProducer starts objects.dart on the Dart VM of a Dart Sass
// package and checks the VM service's address over HTTP, and the VM's own
// snapshot where it can write one.
func checkDartProducer(t *testing.T, sass, wantDart string, authCodes bool) {
	start := time.Now()
	dart := requireDart(t, sass)
	t.Logf("sass-embedded-linux-ia32@%s ready in %v", sass, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	vm := startDart(t, dart, captureDart, authCodes)
	t.Logf("Dart %s (auth codes %v) served %s and built its heap in %v", vm.Version, authCodes, vm.URI, time.Since(start).Round(time.Millisecond))
	if vm.Version != wantDart {
		t.Errorf("sass-embedded-linux-ia32@%s runs Dart %s, want %s", sass, vm.Version, wantDart)
	}
	var version struct {
		Result struct {
			Type  string `json:"type"`
			Major int    `json:"major"`
		} `json:"result"`
	}
	if err := getJSON(vm.URI+"getVersion", &version); err != nil {
		t.Fatal(err)
	}
	if version.Result.Type != "Version" || version.Result.Major < 3 {
		t.Errorf("getVersion: %+v, want a Version of the service protocol 3 or later", version.Result)
	}
	var info struct {
		Result struct {
			Version  string `json:"version"`
			Isolates []struct {
				Name string `json:"name"`
			} `json:"isolates"`
		} `json:"result"`
	}
	if err := getJSON(vm.URI+"getVM", &info); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Result.Version, vm.Version+" ") || len(info.Result.Isolates) == 0 {
		t.Errorf("getVM: version %q and %d isolates, want Dart %s and the program's isolate", info.Result.Version, len(info.Result.Isolates), vm.Version)
	}
	host := vm.URI[:strings.Index(vm.URI[len("http://"):], "/")+len("http://")+1]
	wantWS := "ws" + strings.TrimPrefix(host, "http") + "ws"
	if authCodes {
		if vm.URI == host {
			t.Errorf("with auth codes, the service's address %s has no code", vm.URI)
		}
		// The code is what keeps other programs out: without it the
		// service answers nothing.
		if err := getJSON(host+"getVersion", &version); err == nil {
			t.Errorf("GET %sgetVersion without the auth code answered", host)
		}
		wantWS = "ws" + strings.TrimPrefix(vm.URI, "http") + "ws"
	} else if vm.URI != host {
		t.Errorf("without auth codes, the service's address %s is not %s", vm.URI, host)
	}
	if vm.WS != wantWS {
		t.Errorf("WebSocket %s, want %s", vm.WS, wantWS)
	}
	if !vm.CanWriteSnapshot {
		t.Logf("Dart %s cannot write its own heap snapshot (NativeRuntime is in Dart 3.0 and later)", vm.Version)
		return
	}
	path := filepath.Join(t.TempDir(), "self.dartheap")
	start = time.Now()
	vm.WriteSnapshot(t, path)
	t.Logf("Dart %s wrote its own snapshot in %v", vm.Version, time.Since(start).Round(time.Millisecond))
	checkProducerSnapshot(t, path, dartSecret)
}

// checkNodeProducer starts objects.js under node in a mode and checks the
// inspector's endpoint over HTTP, and the process's own snapshot.
func checkNodeProducer(t *testing.T, node string, mode nodeMode) {
	if mode == nodeSignalDefaultPort {
		defaultPort.Lock()
		l, err := net.Listen("tcp", "127.0.0.1:9229")
		defaultPort.Unlock()
		if err != nil {
			t.Skipf("another program holds Node's default inspector port: %v", err)
		}
		l.Close()
	}
	start := time.Now()
	p := startNode(t, node, captureJS, mode)
	if mode != nodeInspect {
		if p.WS != "" {
			t.Fatalf("the inspector is open before SIGUSR1: %s", p.WS)
		}
		if err := syscall.Kill(p.Pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		p.Inspector(t)
	}
	t.Logf("Node %s built its heap and opened its inspector (%s) in %v", p.Version, p.WS, time.Since(start).Round(time.Millisecond))
	if mode == nodeSignalDefaultPort && p.HTTP != "http://127.0.0.1:9229" {
		t.Errorf("SIGUSR1 opened the inspector on %s, want Node's default port 9229", p.HTTP)
	}
	var targets []devtoolsTarget
	if err := getJSON(p.HTTP+"/json/list", &targets); err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || targets[0].WebSocketDebuggerURL != p.WS || targets[0].Type != "node" {
		t.Errorf("/json/list: %+v, want one node target at %s", targets, p.WS)
	}
	path := filepath.Join(t.TempDir(), "self.heapsnapshot")
	p.WriteSnapshot(t, path)
	checkProducerSnapshot(t, path, nodeSecret)
}

// checkProducerSnapshot checks that a producer's own snapshot holds the
// capture program's objects: its CaptureLeaf objects and its secret.
func checkProducerSnapshot(t *testing.T, path, secret string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := heapconv.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var leaves uint64
	for _, c := range analysis.ClassStats(f, f.Snapshots[0]) {
		if c.Name == "CaptureLeaf" {
			leaves += c.Count
		}
	}
	if leaves != captureLeaves {
		t.Errorf("%s: %d CaptureLeaf objects, want %d", filepath.Base(path), leaves, captureLeaves)
	}
	// The program's source holds only the secret's parts, so the whole
	// string can only come from a string object of the heap.
	if !slices.Contains(f.Strings, secret) {
		t.Errorf("%s does not hold the string %s", filepath.Base(path), secret)
	}
	t.Logf("%s: %d bytes, %d nodes", filepath.Base(path), info.Size(), f.Snapshots[0].Nodes.Len())
}

// TestProducerPrograms checks what the capture programs' design relies
// on: no program's source holds its whole secret (the source is in the
// heap too, so a snapshot holding the secret would prove nothing), and
// the pinned Node versions are those the V8 fixtures were made with.
func TestProducerPrograms(t *testing.T) {
	for _, prog := range []string{captureDart, captureJS, captureHTML, "testdata/capture/snapshot_native.dart", "testdata/capture/snapshot_none.dart"} {
		data, err := os.ReadFile(prog)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{dartSecret, nodeSecret, pageSecret} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %s whole", prog, secret)
			}
		}
	}
	pins, err := nodePins()
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/v8/MANIFEST.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, major := range []int{22, 24, 26} {
		if line := fmt.Sprintf("\nnode%d v%s ", major, pins[major]); !bytes.Contains(manifest, []byte(line)) {
			t.Errorf("Node %d is pinned at %q, which testdata/v8/MANIFEST.txt does not list as node%d", major, pins[major], major)
		}
	}
}

// TestProducerUnpack unpacks one package into one directory from two
// goroutines at once, as two test processes may: both succeed, and the
// directory holds one complete copy and nothing left over beside it.
func TestProducerUnpack(t *testing.T) {
	src := filepath.Join(t.TempDir(), "probe")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"package.json": `{"name": "heapconv-unpack-probe", "version": "1.0.0"}`,
		"probe.txt":    "probe\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	dest := filepath.Join(cache, "1.0.0")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = npmUnpack(src, dest) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("unpack %d: %v", i, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dest, "package", "probe.txt")); err != nil || string(data) != files["probe.txt"] {
		t.Errorf("unpacked probe.txt: %q, %v", data, err)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the cache holds %v, want only 1.0.0", names)
	}
}

// TestProducerProcess checks the plumbing every producer runs on: a
// process that exits before printing what the harness waits for, or
// prints nothing in time, fails with what it printed; and when the test
// ends, the process and the processes it started are gone.
func TestProducerProcess(t *testing.T) {
	var pids []int
	t.Run("exits", func(t *testing.T) {
		p := startProcess(t, "sh", exec.Command("sh", "-c", "echo hello; echo oops >&2; exit 3"))
		_, err := p.waitLine(stdout, readyLine, 0, startTimeout)
		if err == nil || !strings.Contains(err.Error(), "exited (exit status 3)") || !strings.Contains(err.Error(), "oops") {
			t.Errorf("waiting for a process that exits: %v", err)
		}
	})
	t.Run("silent", func(t *testing.T) {
		// The child sleeps in the background, in the shell's group: the
		// cleanup must end it too.
		p := startProcess(t, "sh", exec.Command("sh", "-c", "sleep 60 & echo $!; wait"))
		m, err := p.waitLine(stdout, regexp.MustCompile(`^(\d+)$`), 0, startTimeout)
		if err != nil {
			t.Fatal(err)
		}
		child, _ := strconv.Atoi(m[1])
		pids = append(pids, p.cmd.Process.Pid, child)
		if _, err := p.waitLine(stdout, readyLine, 0, 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "within 100ms") {
			t.Errorf("waiting for a silent process: %v", err)
		}
	})
	// The shell was reaped by the harness; its child was reparented, and
	// whether anything reaps it depends on the machine's init, so a zombie
	// counts as gone.
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived its test", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// running reports whether a process exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's name, which is in parentheses and
	// may hold anything, so it is found from the last ')'.
	rest := stat[bytes.LastIndexByte(stat, ')')+1:]
	return len(bytes.TrimSpace(rest)) > 0 && bytes.TrimSpace(rest)[0] != 'Z'
}
