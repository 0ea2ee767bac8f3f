package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/heapconv/heapconv/internal/formats"
	"github.com/heapconv/heapconv/ir"
)

// input is an opened IN argument with its detected format.
type input struct {
	name string
	*formats.Input
	size     int64    // 0 when unknown (stdin, pipes, decompressed data)
	fileSize int64    // the size of a regular file as given
	file     *os.File // nil for stdin
	info     os.FileInfo
	// contents and scan are a Fuchsia heapdump's contents directory and
	// whether to derive edges from it.
	contents string
	scan     bool
}

// openInput opens IN ("-" is standard input) and determines its format:
// from --from when given, else by content, looking inside a gzip or zstd
// wrapper.
func openInput(e *env, name, from string) (*input, error) {
	in := &input{name: name}
	var r io.Reader
	if name == "-" {
		r = e.stdin
		in.name = "standard input"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory", name)
		}
		in.file, in.info, r = f, st, f
		if st.Mode().IsRegular() {
			in.size, in.fileSize = st.Size(), st.Size()
		}
	}
	fin, err := formats.Open(bufio.NewReaderSize(r, 1<<20), from)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%s is empty", in.name)
	case errors.Is(err, formats.ErrUnrecognized):
		err = fmt.Errorf("%s: %v (give --from; formats: %s)", in.name, err, strings.Join(formats.Names(), ", "))
	case err != nil && from != "" && formats.ByName(from) == nil:
		err = usagef("%v", err)
	case err != nil:
		err = fmt.Errorf("%s: %w", in.name, err)
	}
	if err != nil {
		in.closeFile()
		return nil, err
	}
	in.Input = fin
	if in.Wrapper != nil {
		in.size = 0
	}
	if in.Format.Read == nil {
		in.close()
		return nil, fmt.Errorf("%s is a %s file; reading %s is not available in this version of heapconv (see `heapconv formats`)",
			in.name, in.Format.Description, in.Format.Name)
	}
	return in, nil
}

func (in *input) closeFile() {
	if in.file != nil {
		in.file.Close()
	}
}

func (in *input) close() {
	if in.Input != nil {
		in.Input.Close()
	}
	in.closeFile()
}

// what says what the input is, for messages: its format, and the wrapper
// it came in.
func (in *input) what() string {
	if in.Compressed != nil {
		return in.Compressed.Name + "-compressed " + in.Format.Name
	}
	return in.Format.Name
}

// read parses the input, with a progress bar on a terminal for large
// inputs; its errors name the input.
func (in *input) read(e *env) (*ir.File, error) {
	f, err := in.parse(e)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return f, nil
}

// parse is read without the input's name in errors.
func (in *input) parse(e *env) (*ir.File, error) {
	defer in.close()
	p := newProgress(e, "reading", in.size)
	opts := formats.ReadOptions{Size: in.size, Progress: p.update, ContentsDir: in.contents, ScanPointers: in.scan}
	if in.Wrapper != nil {
		// The decompressed size is unknown: show how far into the
		// compressed file the read is.
		p = newProgress(e, "reading", in.fileSize)
		opts.Progress = func(int64) { p.update(in.CompressedRead()) }
	}
	if in.file != nil && in.Wrapper == nil && in.size > 0 {
		opts.At = in.file
	}
	f, err := in.Format.Read(in.R, opts)
	p.done()
	if err != nil {
		return nil, in.Within(err)
	}
	return f, nil
}

// output is an OUT argument being written: a temporary file in OUT's
// directory, renamed over OUT only when everything succeeded, so that a
// failed or interrupted conversion leaves nothing behind.
type output struct {
	name string
	tmp  *os.File
	w    io.Writer
	// zw compresses into the file when OUT's name asks for a wrapper.
	zw io.WriteCloser
	bw *bufio.Writer
}

// checkOutput refuses an OUT that cannot or may not be written: in a
// directory that does not exist, the input file in any guise, a directory,
// or an existing file without force.
func checkOutput(name string, force bool, in *input) error {
	dir := filepath.Dir(name)
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot write %s: directory %s does not exist", name, dir)
		}
		return fmt.Errorf("cannot write %s: %w", name, err)
	} else if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", name, dir)
	}
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case in != nil && in.info != nil && os.SameFile(st, in.info):
		return fmt.Errorf("%s is the input file; heapconv never writes over its input", name)
	case st.IsDir():
		return fmt.Errorf("%s is a directory", name)
	case !force:
		return fmt.Errorf("%s exists (use --force to replace it)", name)
	}
	return nil
}

// tempPattern names OUT's temporary file: hidden, beside it, and short
// enough for the file system when OUT's own name is long.
func tempPattern(name string) string {
	base := filepath.Base(name)
	if len(base) > 200 {
		base = base[:200]
	}
	return "." + base + ".tmp-*"
}

// createOutput prepares OUT ("-" is standard output), compressed with wr
// when not nil, after checkOutput.
func createOutput(e *env, name string, force bool, in *input, wr *formats.Wrapper) (*output, error) {
	if name == "-" {
		return &output{name: "standard output", w: e.stdout}, nil
	}
	if err := checkOutput(name, force, in); err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	tmp, err := temps.create(dir, tempPattern(name))
	if err != nil {
		return nil, fmt.Errorf("cannot write %s in %s: %w", filepath.Base(name), dir, unpath(err))
	}
	// CreateTemp makes the file private; give it an ordinary file's mode,
	// or keep the mode of the file it replaces.
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		temps.remove(tmp)
		return nil, fmt.Errorf("cannot write %s: %w", name, unpath(err))
	}
	o := &output{name: name, tmp: tmp, w: tempWriter{tmp}}
	if wr != nil {
		o.bw = bufio.NewWriterSize(o.w, 1<<20)
		if o.zw, err = wr.NewWriter(o.bw); err != nil {
			temps.remove(tmp)
			return nil, err
		}
		o.w = o.zw
	}
	return o, nil
}

// unpath drops the file name from an *os.PathError: the temporary file's
// name means nothing to the user, who is told OUT's.
func unpath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tempWriter writes to a temporary file, with errors that do not name it.
type tempWriter struct{ f *os.File }

func (t tempWriter) Write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	return n, unpath(err)
}

// commit finishes the output and makes it visible under its name.
func (o *output) commit() error {
	if err := o.finish(); err != nil {
		return err
	}
	return o.publish()
}

// finish flushes the output to the disk; on failure it is removed.
func (o *output) finish() error {
	if o.tmp == nil {
		return nil
	}
	if o.zw != nil {
		err := o.zw.Close()
		if err == nil {
			err = o.bw.Flush()
		}
		if err != nil {
			o.abort()
			return fmt.Errorf("writing %s: %w", o.name, unpath(err))
		}
	}
	if err := o.tmp.Sync(); err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.name, unpath(err))
	}
	return nil
}

// publish renames the finished output over its name.
func (o *output) publish() error {
	if o.tmp == nil {
		return nil
	}
	if err := os.Rename(o.tmp.Name(), o.name); err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.name, unpath(err))
	}
	// Renamed: there is no temporary file left to remove.
	if err := temps.release(o.tmp); err != nil {
		return fmt.Errorf("writing %s: %w", o.name, unpath(err))
	}
	return nil
}

// abort removes the temporary file (of an output not yet published).
func (o *output) abort() {
	if o == nil {
		return
	}
	if o.zw != nil {
		o.zw.Close()
	}
	if o.tmp != nil {
		temps.remove(o.tmp)
	}
}

// temps are the temporary files being written, so that a signal can
// remove them before the process ends.
var temps tempFiles

type tempFiles struct {
	mu    sync.Mutex
	files map[*os.File]bool
}

func (t *tempFiles) create(dir, pattern string) (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		if t.files == nil {
			t.files = map[*os.File]bool{}
		}
		t.files[f] = true
	}
	return f, err
}

// remove closes and deletes a temporary file.
func (t *tempFiles) remove(f *os.File) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f.Close()
	os.Remove(f.Name())
	delete(t.files, f)
}

// release closes a temporary file that has been renamed into place.
func (t *tempFiles) release(f *os.File) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, f)
	return f.Close()
}

// removeAll deletes every temporary file (on a signal). It keeps the lock:
// the process ends right after, and no file may be created meanwhile.
func (t *tempFiles) removeAll() {
	t.mu.Lock()
	for f := range t.files {
		os.Remove(f.Name())
	}
}

// progress draws a one-line progress bar on standard error when it is a
// terminal and the input is large; otherwise it does nothing.
type progress struct {
	e     *env
	what  string
	total int64
	last  int
	on    bool
}

const progressMinSize = 32 << 20

func newProgress(e *env, what string, total int64) *progress {
	return &progress{e: e, what: what, total: total, last: -1, on: e.stderrTerminal && total >= progressMinSize}
}

func (p *progress) update(n int64) {
	if !p.on || p.total <= 0 {
		return
	}
	pct := int(n * 100 / p.total)
	if pct == p.last || pct > 100 {
		return
	}
	p.last = pct
	bar := strings.Repeat("=", pct/4) + strings.Repeat(" ", 25-pct/4)
	fmt.Fprintf(p.e.stderr, "\r%s [%s] %3d%% of %s", p.what, bar, pct, humanBytes(p.total))
}

func (p *progress) done() {
	if p.on && p.last >= 0 {
		fmt.Fprint(p.e.stderr, "\r\033[K")
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// index lists the input's snapshots from the file's index, without reading
// them, when its format has one and the input is a file on disk; nil
// otherwise.
func (in *input) index() []string {
	if in.Format.Index == nil || in.file == nil || in.Wrapper != nil || in.size <= 0 {
		return nil
	}
	list, err := in.Format.Index(in.file, in.size)
	if err != nil {
		// The read will say what is wrong (or recover what it can).
		return nil
	}
	return list
}
