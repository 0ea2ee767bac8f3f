package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoReader makes a named pipe and reads what is written to it, as a
// shell's `heapconv convert IN >(consumer)` would: read() waits for the
// whole stream, and then for no more than a few seconds.
type fifoReader struct {
	path string
	got  chan []byte
}

func newFIFO(t *testing.T, path string) *fifoReader {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	r := &fifoReader{path: path, got: make(chan []byte, 1)}
	go func() {
		// Opening waits for a writer.
		f, err := os.Open(path)
		if err != nil {
			r.got <- nil
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		r.got <- data
	}()
	return r
}

// read returns what was written to the pipe. A command that never opened
// it is no writer: the pipe is opened and closed here so that the reader
// stops waiting (nothing is read then).
func (r *fifoReader) read(t *testing.T) []byte {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		// Until the reader has opened the pipe, opening it to write fails.
		if fd, err := syscall.Open(r.path, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
		select {
		case data := <-r.got:
			return data
		case <-time.After(10 * time.Millisecond):
		case <-timeout:
			t.Errorf("%s: nothing came through the pipe (is it still one?)", r.path)
			return nil
		}
	}
}

// mode returns what the name is, a symlink not followed.
func mode(t *testing.T, name string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

// TestOutputToPipe: an OUT, loss report or HTML report that is a named
// pipe is written through the pipe, with or without --force, and stays a
// pipe (it is not replaced by a regular file); a symlink to one is
// followed. A pipe where a directory belongs (the Parquet tables, the
// block contents) is refused.
func TestOutputToPipe(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	want := cliReadFile(t, in) // V8 to V8 is byte for byte
	tests := []struct {
		name string
		pipe string // the pipe's name; a symlink to it is named "link-" and the same
		// args are the command line, given the name to write (the pipe
		// or the link) and the directory of both.
		args func(out, sub string) []string
		code int
		// check judges what came through the pipe.
		check func(t *testing.T, got []byte)
	}{
		{"convert", "out.heapsnapshot", func(out, _ string) []string { return []string{"convert", in, out} }, 0, equals(want)},
		{"convert --force", "out.heapsnapshot", func(out, _ string) []string { return []string{"convert", "--force", in, out} }, 0, equals(want)},
		{"convert, compressed", "out.heapsnapshot.zst", func(out, _ string) []string { return []string{"convert", in, out} }, 0,
			func(t *testing.T, got []byte) { equals(want)(t, unzstdBytes(t, got)) }},
		{"convert --snapshot all", "out0.heapsnapshot", func(_, sub string) []string {
			return []string{"convert", "--snapshot", "all", in, filepath.Join(sub, "out%d.heapsnapshot")}
		}, 0, equals(want)},
		{"the loss report", "loss.json", func(out, sub string) []string {
			return []string{"convert", "-q", "--loss-report", out, in, filepath.Join(sub, "out.dartheap")}
		}, 0, isLossReport},
		{"the loss report of the tables", "loss.json", func(out, sub string) []string {
			return []string{"convert", "-q", "--to", "parquet", "--loss-report", out, in, filepath.Join(sub, "tables")}
		}, 0, isLossReport},
		{"report", "page.html", func(out, _ string) []string { return []string{"report", in, out} }, 0, isHTML},
		{"report --force", "page.html", func(out, _ string) []string { return []string{"report", "--force", in, out} }, 0, isHTML},
		{"the Parquet tables", "tables", func(out, _ string) []string { return []string{"convert", "--to", "parquet", "--force", in, out} }, 1, nothing},
		{"the block contents", "contents", func(out, sub string) []string {
			return []string{"convert", "--out-contents", out, in, filepath.Join(sub, "out.pb")}
		}, 1, nothing},
	}
	for _, tc := range tests {
		for _, link := range []bool{false, true} {
			name := tc.name
			if link {
				name += ", through a symlink"
			}
			t.Run(name, func(t *testing.T) {
				sub := t.TempDir()
				pipe := filepath.Join(sub, tc.pipe)
				r := newFIFO(t, pipe)
				out := pipe
				if link {
					out = filepath.Join(sub, "link-"+tc.pipe)
					if err := os.Symlink(pipe, out); err != nil {
						t.Fatal(err)
					}
				}
				args := tc.args(out, sub)
				if link && !slices.Contains(args, out) {
					t.Skip("the command names no file the link could be")
				}
				code, _, stderr := cliRun(t, nil, args...)
				got := r.read(t)
				if code != tc.code {
					t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
				}
				tc.check(t, got)
				if m := mode(t, pipe); m&os.ModeNamedPipe == 0 {
					t.Errorf("the pipe is now %v", m)
				}
				if link && mode(t, out)&os.ModeSymlink == 0 {
					t.Errorf("the symlink was replaced")
				}
				if left, _ := filepath.Glob(filepath.Join(sub, ".*")); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
			})
		}
	}
}

func equals(want []byte) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes came through, want the %d of the conversion", len(got), len(want))
		}
	}
}

func isLossReport(t *testing.T, got []byte) {
	t.Helper()
	var r lossJSON
	if err := json.Unmarshal(got, &r); err != nil || len(r.Losses) == 0 {
		t.Errorf("not a loss report (%v): %.300q", err, got)
	}
}

func isHTML(t *testing.T, got []byte) {
	t.Helper()
	if !bytes.HasPrefix(got, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(got), []byte("</html>")) {
		t.Errorf("not a whole HTML page: %d bytes, %.100q", len(got), got)
	}
}

func nothing(t *testing.T, got []byte) {
	t.Helper()
	if len(got) > 0 {
		t.Errorf("%d bytes came through, want none", len(got))
	}
}

// TestOutputToDevice: a character device (a copy of /dev/null's node) as
// OUT, loss report or HTML report is written to, with or without --force,
// and stays the device.
func TestOutputToDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node (mknod) needs root")
	}
	var null syscall.Stat_t
	if err := syscall.Stat("/dev/null", &null); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(null.Rdev)); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "stdout") // as /dev/stdout, a symlink
	if err := os.Symlink(dev, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "--to", "v8", in, dev},
		{"convert", "--to", "v8", "--force", in, dev},
		{"convert", "--to", "v8", in, link},
		{"convert", "--to", "ir", in, link},
		{"convert", "--loss-report", dev, in, filepath.Join(dir, "x.dartheap")},
		{"report", in, dev},
		{"report", "--force", in, link},
	} {
		code, _, stderr := cliRun(t, nil, args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
		if m := mode(t, dev); m&os.ModeCharDevice == 0 {
			t.Fatalf("%q: the device is now %v", args, m)
		}
		if m := mode(t, link); m&os.ModeSymlink == 0 {
			t.Fatalf("%q: the symlink is now %v", args, m)
		}
	}
	for _, args := range [][]string{
		{"convert", "--to", "parquet", "--force", in, dev},
		{"convert", "--out-contents", dev, in, filepath.Join(dir, "x.pb")},
	} {
		if code, _, stderr := cliRun(t, nil, args...); code != 1 || !strings.Contains(stderr, "not a directory") {
			t.Errorf("%q: exit %d, want 1 with \"not a directory\": %s", args, code, stderr)
		}
		if m := mode(t, dev); m&os.ModeCharDevice == 0 {
			t.Fatalf("%q: the device is now %v", args, m)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestOutputToDescriptor: a name that leads to one of the process's open
// descriptors (/dev/stdout is /proc/self/fd/1) is written in place, as
// standard output is, without --force, even when the descriptor is a
// regular file (standard output redirected to one): the file the shell
// opened is the one written, and the links stay.
func TestOutputToDescriptor(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	opened := filepath.Join(dir, "redirected")
	f, err := os.Create(opened)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("what was there before, longer than nothing"); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "stdout") // as /dev/stdout
	if err := os.Symlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), link); err != nil {
		t.Fatal(err)
	}
	before, _ := f.Stat()
	if code, _, stderr := cliRun(t, nil, "convert", "--to", "v8", in, link); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !bytes.Equal(cliReadFile(t, opened), cliReadFile(t, in)) {
		t.Errorf("the descriptor's file does not hold the conversion: %.100q", cliReadFile(t, opened))
	}
	after, err := os.Stat(opened)
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the descriptor's file was replaced (%v)", err)
	}
	if mode(t, link)&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
}

// TestOutputSymlinkToFile: a symlink to a regular file is followed: with
// --force its target is replaced, and the link stays.
func TestOutputSymlinkToFile(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	target := filepath.Join(dir, "target.heapsnapshot")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.heapsnapshot")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cliRun(t, nil, "convert", in, link); code != 1 || !strings.Contains(stderr, "exists") {
		t.Errorf("without --force: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cliRun(t, nil, "convert", "--force", in, link); code != 0 {
		t.Fatalf("with --force: exit %d: %s", code, stderr)
	}
	if m := mode(t, link); m&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a %v", m)
	}
	if !bytes.Equal(cliReadFile(t, target), cliReadFile(t, in)) {
		t.Errorf("the link's target does not hold the conversion")
	}
	if m := mode(t, target); m.Perm() != 0o600 {
		t.Errorf("the target's mode is %v, want the 0600 it had", m)
	}
}

// TestOutputDirectoryRefused: a directory as OUT, loss report or HTML
// report is refused (exit 1), with --force too, and left as it was.
func TestOutputDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	in := cliCopy(t, dir, "compact.heapsnapshot")
	sub := filepath.Join(dir, "sub0.heapsnapshot")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", in, sub},
		{"convert", "--force", in, sub},
		{"convert", "--force", "--loss-report", sub, in, filepath.Join(dir, "x.dartheap")},
		{"convert", "--snapshot", "all", "--force", in, filepath.Join(dir, "sub%d.heapsnapshot")},
		{"report", in, sub},
		{"report", "--force", in, sub},
	} {
		code, _, stderr := cliRun(t, nil, args...)
		if code != 1 || !strings.Contains(stderr, sub+" is a directory") {
			t.Errorf("%q: exit %d, want 1 naming the directory: %s", args, code, stderr)
		}
		if m := mode(t, sub); !m.IsDir() {
			t.Fatalf("%q: the directory is now %v", args, m)
		}
	}
	if got := cliDir(t, dir); len(got) != 2 {
		t.Errorf("the directory holds %q", got)
	}
}
