package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// inspectorWait is how long a Node process may take to open its
// inspector after SIGUSR1.
const inspectorWait = 10 * time.Second

// connectPID opens the inspector of a local Node process by sending it
// SIGUSR1, as `kill -USR1` does, and connects to it. SIGUSR1 ends a
// process that does not handle it, so the process must be Node's; one
// whose inspector listens already is not signalled.
func connectPID(ctx context.Context, t Target, opts *Options) (vm, Producer, error) {
	pid := t.PID
	port := opts.Port
	if port == 0 {
		port = 9229
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, Producer{}, fmt.Errorf("%w: there is no process %d", ErrNoTarget, pid)
		}
		return nil, Producer{}, fmt.Errorf("%w: process %d: %v", ErrNoTarget, pid, err)
	}
	if base := filepath.Base(strings.TrimSuffix(exe, " (deleted)")); !strings.HasPrefix(base, "node") {
		return nil, Producer{}, fmt.Errorf("%w: process %d runs %s, not node: SIGUSR1, which opens Node's inspector, would end it", ErrNoTarget, pid, exe)
	}
	listening := func() (bool, error) {
		owner, err := listener(port)
		if err != nil || owner == 0 {
			return false, err
		}
		if owner == -1 {
			return false, fmt.Errorf("%w: 127.0.0.1:%d, where process %d would open its inspector, is taken by a process this user cannot look into", ErrNoTarget, port, pid)
		}
		if owner != pid {
			return false, fmt.Errorf("%w: 127.0.0.1:%d, where process %d would open its inspector, is taken by process %d (start node with --inspect-port=PORT and give that port)",
				ErrNoTarget, port, pid, owner)
		}
		return true, nil
	}
	open, err := listening()
	if err != nil {
		return nil, Producer{}, err
	}
	if !open {
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			return nil, Producer{}, fmt.Errorf("%w: sending SIGUSR1 to process %d: %v", ErrNoTarget, pid, err)
		}
		deadline := time.Now().Add(inspectorWait)
		for !open {
			if time.Now().After(deadline) {
				return nil, Producer{}, fmt.Errorf("%w: process %d did not open its inspector on 127.0.0.1:%d within %v of SIGUSR1 (it may have been started with --inspect-port=PORT, or run with --disable-sigusr1)",
					ErrUnreachable, pid, port, inspectorWait)
			}
			select {
			case <-ctx.Done():
				return nil, Producer{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			if open, err = listening(); err != nil {
				return nil, Producer{}, err
			}
		}
	}
	endpoint := Target{Kind: Inspector, URL: &url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(port)}}
	v, p, err := connectInspector(ctx, endpoint, opts)
	p.Target = fmt.Sprintf("process %d (%s)", pid, p.Target)
	return v, p, err
}

// listener returns the process that listens on TCP port on 127.0.0.1 (or
// every address), 0 when none does. Sockets are matched to processes by
// inode, through /proc; a process this user cannot look into is not seen.
func listener(port int) (int, error) {
	inodes := map[string]bool{}
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
			if !ok {
				continue
			}
			if n, err := strconv.ParseUint(p, 16, 16); err != nil || int(n) != port {
				continue
			}
			if loopbackOrAny(addr) {
				inodes[fields[9]] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0, nil
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err != nil {
				continue
			}
			if inode, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
				return pid, nil
			}
		}
	}
	return -1, nil // listening, by a process this user cannot see
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
