package capture

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// inspectorWait is how long a Node process may take to open its
// inspector after SIGUSR1.
const inspectorWait = 10 * time.Second

// defaultInspectorPort is where Node opens its inspector unless told
// another port (--inspect-port).
const defaultInspectorPort = 9229

// connectPID opens the inspector of a local Node process by sending it
// SIGUSR1, as `kill -USR1` does, and connects to it. SIGUSR1 ends a
// process that does not handle it, so the process must be Node's. The
// inspector is found among the loopback ports the process listens on (so
// that an --inspect-port given at its start needs no telling, and a port
// another process holds is never mistaken for it); one listening already
// is used without a signal.
func connectPID(ctx context.Context, t Target, opts *Options) (vm, Producer, error) {
	pid := t.PID
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, Producer{}, noExecutable(pid)
		}
		return nil, Producer{}, fmt.Errorf("%w: process %d: %v", ErrNoTarget, pid, err)
	}
	if !isNodeExe(exe) {
		return nil, Producer{}, fmt.Errorf("%w: process %d runs %s, not node: SIGUSR1, which opens Node's inspector, would end it", ErrNoTarget, pid, printable(exe))
	}
	// inspector returns the endpoint of the process's inspector among
	// the ports it listens on and not in skip, "" when none is one.
	inspector := func(skip []int) (string, []int) {
		ports := listening(pid)
		for _, port := range ports {
			if slices.Contains(skip, port) || opts.Port != 0 && port != opts.Port {
				continue
			}
			endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
			var version struct{ Browser string }
			probe, cancel := context.WithTimeout(ctx, 2*time.Second) // a port of the program's own may not answer HTTP
			err := getJSON(probe, endpoint+"/json/version", &version)
			cancel()
			if err == nil && strings.HasPrefix(version.Browser, "node") {
				return endpoint, ports
			}
		}
		return "", ports
	}
	endpoint, before := inspector(nil)
	if endpoint == "" {
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			return nil, Producer{}, fmt.Errorf("%w: sending SIGUSR1 to process %d: %v", ErrNoTarget, pid, err)
		}
		deadline := time.Now().Add(inspectorWait)
		for endpoint == "" {
			if time.Now().After(deadline) {
				return nil, Producer{}, notOpened(pid, opts.Port)
			}
			select {
			case <-ctx.Done():
				return nil, Producer{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			endpoint, _ = inspector(before)
		}
	}
	u, _ := url.Parse(endpoint)
	v, p, err := connectInspector(ctx, Target{Kind: Inspector, URL: u}, opts)
	p.Target = fmt.Sprintf("process %d (%s)", pid, p.Target)
	return v, p, err
}

// isNodeExe reports whether an executable's path names Node: node or
// nodejs (as some distributions name it), perhaps with a version
// (node20, node-20, nodejs-18.1). A prefix alone would take in other
// programs (node_exporter, nodemon built into a binary), which SIGUSR1
// may end.
func isNodeExe(exe string) bool {
	base := filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	rest, ok := strings.CutPrefix(base, "nodejs")
	if !ok {
		rest, ok = strings.CutPrefix(base, "node")
	}
	rest = strings.TrimPrefix(rest, "-")
	return ok && strings.Trim(rest, "0123456789.") == ""
}

// noExecutable explains a process whose executable cannot be read
// although this user may look: there is none, or it is a zombie (ended,
// its parent has not waited for it) or a kernel thread.
func noExecutable(pid int) error {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return fmt.Errorf("%w: there is no process %d", ErrNoTarget, pid)
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return fmt.Errorf("%w: process %d has ended (a zombie its parent has not waited for)", ErrNoTarget, pid)
	}
	return fmt.Errorf("%w: process %d runs no executable (a kernel thread?)", ErrNoTarget, pid)
}

// notOpened explains why a process did not open its inspector: most
// often, another process holds the port it tries.
func notOpened(pid, port int) error {
	if port == 0 {
		port = defaultInspectorPort
	}
	why := "it may have been started with --disable-sigusr1, or with --inspect-port=PORT (give --port)"
	if owner := listener(port); owner != 0 && owner != pid {
		who := "another process"
		if owner > 0 {
			who = "process " + strconv.Itoa(owner)
		}
		why = fmt.Sprintf("127.0.0.1:%d, where Node opens it, is held by %s; start node with --inspect-port=PORT and give --port", port, who)
	}
	return fmt.Errorf("%w: process %d did not open its inspector within %v of SIGUSR1: %s", ErrUnreachable, pid, inspectorWait, why)
}

// listening returns the TCP ports on which process pid listens on a
// loopback or any address, in order. Sockets are matched to the process
// by inode through /proc.
func listening(pid int) []int {
	ports := listeningInodes()
	var out []int
	for _, inode := range socketInodes(pid) {
		if port, ok := ports[inode]; ok && !slices.Contains(out, port) {
			out = append(out, port)
		}
	}
	slices.Sort(out)
	return out
}

// listener returns the process listening on port (on a loopback or any
// address): 0 when none does, -1 when one this user cannot look into
// does.
func listener(port int) int {
	ports := listeningInodes()
	held := false
	for inode, p := range ports {
		if p != port {
			continue
		}
		held = true
		procs, _ := os.ReadDir("/proc")
		for _, d := range procs {
			pid, err := strconv.Atoi(d.Name())
			if err == nil && slices.Contains(socketInodes(pid), inode) {
				return pid
			}
		}
	}
	if held {
		return -1
	}
	return 0
}

// listeningInodes maps the inodes of the listening TCP sockets on
// loopback or any addresses to their ports.
func listeningInodes() map[string]int {
	ports := map[string]int{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, ok := strings.Cut(fields[1], ":")
			if !ok || !loopbackOrAny(addr) {
				continue
			}
			if port, err := strconv.ParseUint(p, 16, 16); err == nil {
				ports[fields[9]] = int(port)
			}
		}
		f.Close()
	}
	return ports
}

// socketInodes returns the inodes of the sockets process pid has open
// (none when this user cannot look).
func socketInodes(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var inodes []string
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue
		}
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes = append(inodes, strings.TrimSuffix(inode, "]"))
		}
	}
	return inodes
}

// loopbackOrAny reports whether a /proc/net/tcp address (hex, in the
// kernel's byte order) is 127.0.0.1, ::1 or the any-address of either.
func loopbackOrAny(hex string) bool {
	switch hex {
	case "0100007F", "00000000",
		"00000000000000000000000001000000", "00000000000000000000000000000000":
		return true
	}
	return false
}
