package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the tests run the command as a process of its own (the
// test binary re-executed with HEAPCONV_TEST_MAIN set), for what needs
// process limits.
func TestMain(m *testing.M) {
	if os.Getenv("HEAPCONV_TEST_MAIN") != "" {
		main()
	}
	os.Exit(m.Run())
}

// runLimited runs the command in a shell that first applies limits (a
// ulimit command line).
func runLimited(t *testing.T, limits string, stdout string, args ...string) (int, string) {
	t.Helper()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := limits + "; exec \"$0\" " + strings.Join(quoted, " ") + " > " + stdout
	cmd := exec.Command("/bin/sh", "-c", script, os.Args[0])
	cmd.Env = append(os.Environ(), "HEAPCONV_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// TestConvertDiskFull: a write that fails for want of space is an error
// (exit 1), and leaves no OUT, not a cut file. A full file system is
// stood in for by a file size limit (ulimit -f, EFBIG on write; Go ignores
// SIGXFSZ) and, for standard output, by /dev/full (ENOSPC).
func TestConvertDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "flutter.dartheap.zst")
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dart", "flutter-vm-3k.dartheap.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"out.heapsnapshot", "out.heapir", "out.dartheap", "out.pb.gz", "out.fidlstream"} {
		t.Run(out, func(t *testing.T) {
			// 8 blocks of 512 bytes: no output of a 7,500-object heap fits.
			code, stderr := runLimited(t, "ulimit -f 8", "/dev/null", "convert", in, filepath.Join(dir, out))
			if code != 1 || !strings.Contains(stderr, "writing "+filepath.Join(dir, out)+": ") || !strings.HasSuffix(stderr, ": file too large\n") ||
				strings.Contains(stderr, ".tmp-") {
				t.Errorf("exit %d, stderr %q; want 1 and the write error, naming OUT (not its temporary file)", code, stderr)
			}
			if got := cliDir(t, dir); !slices.Equal(got, []string{"flutter.dartheap.zst"}) {
				t.Errorf("directory holds %q after a failed write", got)
			}
		})
	}
	t.Run("stdout", func(t *testing.T) {
		code, stderr := runLimited(t, "true", "/dev/full", "convert", "--to", "v8", in, "-")
		if code != 1 || !strings.Contains(stderr, "no space left") {
			t.Errorf("exit %d, stderr %q; want 1 and ENOSPC", code, stderr)
		}
	})
}

// TestInterrupted: SIGINT, SIGTERM or SIGHUP (a closed terminal) during a
// conversion removes the temporary output and ends the process with 130,
// 143 or 129. The conversion
// reads a V8 file from a pipe that is fed all but its end, so the signal comes
// while OUT's temporary file exists and the read waits for more.
func TestInterrupted(t *testing.T) {
	data := cliReadFile(t, filepath.Join(smallDir, "rows.heapsnapshot"))
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "convert", "-", filepath.Join(dir, "out.heapsnapshot.gz"))
			cmd.Env = append(os.Environ(), "HEAPCONV_TEST_MAIN=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if _, err := stdin.Write(data[:len(data)-10]); err != nil {
				t.Fatal(err)
			}
			// Wait for the temporary file.
			deadline := time.Now().Add(30 * time.Second)
			for len(cliDir(t, dir)) == 0 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no temporary output appeared")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Errorf("exit %d (%v), want %d; stderr %q", code, err, tc.code, stderr.String())
			}
			if left := cliDir(t, dir); len(left) > 0 {
				t.Errorf("left behind: %q", left)
			}
		})
	}
}
