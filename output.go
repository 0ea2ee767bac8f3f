package heapconv

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/ir"
)

// outputPlan is how an output file is to be written: its format, and the
// wrapper to compress it with (nil for none).
type outputPlan struct {
	format  *Format
	wrapper *wrapper
	// native is set when the name asks for the format's own compressed
	// form (.heapir.zst, .pb.gz): the format's writer compresses.
	native bool
}

// planOutput decides how to write the file name: in the format named by
// to (when not "") or by the name's extension, and with the wrapper its
// .gz or .zst suffix asks for — unless the format compresses that way
// itself (.pb.gz, .heapir.zst keep their meaning).
func planOutput(name, to string) (*outputPlan, error) {
	base := strings.ToLower(filepath.Base(name))
	o := &outputPlan{}
	var wr *wrapper
	for _, w := range wrappers {
		if strings.HasSuffix(base, w.Ext) {
			wr = w
		}
	}
	if to != "" {
		if o.format = FormatByName(to); o.format == nil {
			return nil, fmt.Errorf("%w %q (formats: %s)", ErrUnknownFormat, to, formatNames())
		}
	} else {
		o.format = FormatByExtension(base)
		if o.format == nil && wr != nil {
			o.format = FormatByExtension(strings.TrimSuffix(base, wr.Ext))
		}
	}
	if o.format == nil {
		return nil, fmt.Errorf("%w %q", ErrNoFormat, name)
	}
	if wr != nil {
		if o.format.ownWrapper == wr.Name {
			o.native = true
		} else {
			o.wrapper = wr
		}
	}
	return o, nil
}

// planOutputOrStream plans the output name as planOutput does, and "-"
// (standard output), which has no name to tell its format by, in the
// format to names.
func planOutputOrStream(name, to string) (*outputPlan, error) {
	if name != "-" {
		return planOutput(name, to)
	}
	if to == "" {
		return nil, fmt.Errorf("%w: writing to %q needs the output format (To)", ErrOption, name)
	}
	plan := &outputPlan{format: FormatByName(to)}
	if plan.format == nil {
		return nil, fmt.Errorf("%w %q (formats: %s)", ErrUnknownFormat, to, formatNames())
	}
	return plan, nil
}

// createOutput starts writing an output ("-": o.Stdout), compressed with
// wr at o's level when wr is not nil; in is the input's file, which an
// output may not be (nil when the input is no file).
func createOutput(name string, wr *wrapper, o *ConvertOptions, in os.FileInfo) (*atomicFile, error) {
	if name == "-" {
		return streamOutput("standard output", o.Stdout, wr, o.Write.Level)
	}
	if err := checkOutput(name, o.Overwrite, in); err != nil {
		return nil, err
	}
	return createAtomic(name, wr, o.Write.Level)
}

// mergedLosses merges reports by kind; never nil, so that the JSON form
// lists no losses as [] rather than null.
func mergedLosses(reports ...ir.LossReport) ir.LossReport {
	merged := ir.LossReport{}
	for _, r := range reports {
		merged.Merge(r)
	}
	return merged
}

// writeLossReport writes r as JSON into out, a loss report file, and
// finishes it; it is published with the outputs.
func writeLossReport(out *atomicFile, r LossReport) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		_, err = out.w.Write(append(data, '\n'))
	}
	if err == nil {
		err = out.finish()
	}
	if err != nil {
		return fmt.Errorf("the loss report: writing %s: %w", out.name, err)
	}
	return nil
}

// OutputFormat returns the format a file of that name is written in (its
// extension, looking through .gz and .zst), or nil.
func OutputFormat(name string) *Format {
	o, err := planOutput(name, "")
	if err != nil {
		return nil
	}
	return o.format
}

// check refuses write options that do not fit the planned output.
func (o *outputPlan) check(opts *WriteOptions) error {
	switch {
	case !opts.Level.valid():
		return checkLevel(opts.Level)
	case o.format.Name == fuchsiair.FormatFIDL && (opts.NoGzip || opts.ContentsDir != ""):
		return fmt.Errorf("%w: NoGzip and ContentsDir are for pprof profiles; a FIDL stream carries its block contents", ErrOption)
	case o.native && o.format.ownWrapper == "gzip" && opts.NoGzip:
		return fmt.Errorf("%w: NoGzip, but the output's name ends in .gz", ErrOption)
	case opts.ContentsDir != "":
		return checkContentsDir(opts.ContentsDir)
	}
	return nil
}

// checkLevel refuses a Level that is none of the Level constants.
func checkLevel(l Level) error {
	if !l.valid() {
		return fmt.Errorf("%w: compression level %v is none of LevelDefault, LevelFast, LevelBest", ErrOption, l)
	}
	return nil
}

// checkContentsDir refuses a block contents directory (WriteOptions.
// ContentsDir) that exists and is not a directory: a file, or a device
// that writing into it would otherwise reach only once the profile is
// written.
func checkContentsDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // created
	case err != nil:
		return &OutputError{dir, unpath(err)}
	case !st.IsDir():
		return &OutputError{dir, errors.New("is not a directory (the block contents are written into a directory, a file per block)")}
	}
	return nil
}

// writeOptions are opts for writing a file planned so: compressed by the
// format itself when the name asks for it.
func (o *outputPlan) writeOptions(opts *WriteOptions) *WriteOptions {
	w := WriteOptions{}
	if opts != nil {
		w = *opts
	}
	w.Compress = w.Compress || o.native
	if o.wrapper != nil && o.format.ownWrapper == "gzip" {
		// A profile in a gzip wrapper of ours is not gzipped twice.
		w.NoGzip = true
	}
	return &w
}

// WriteFile writes f to the named file in the format its extension names,
// compressed when the name ends in .gz or .zst (x.heapsnapshot.zst; a
// .heapir.zst or .pb.gz is the format's own compressed form). The file is written to a
// temporary file beside it and renamed at the end: a failed write leaves
// no file behind, and an existing file is replaced only whole (a device
// or pipe is written in place, never replaced). It returns what the
// format could not hold. opts may be nil.
func WriteFile(name string, f *ir.File, opts *WriteOptions) (ir.LossReport, error) {
	plan, err := planOutput(name, "")
	if err != nil {
		return nil, err
	}
	wopts := plan.writeOptions(opts)
	if err := plan.check(wopts); err != nil {
		return nil, err
	}
	if !plan.format.MultiSnapshot && len(f.Snapshots) > 1 {
		return nil, &SnapshotError{Err: ErrTooManySnapshots, Name: "the file", Snapshots: describeSnapshots(f), Format: plan.format.Name}
	}
	if err := checkOutput(name, true, nil); err != nil {
		return nil, err
	}
	out, err := createAtomic(name, plan.wrapper, wopts.Level)
	if err != nil {
		return nil, err
	}
	loss, err := plan.format.Write(out.w, f, wopts)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := out.finish(); err != nil {
		return nil, err
	}
	if err := publish([]*atomicFile{out}); err != nil {
		return nil, err
	}
	return loss, nil
}

// Write writes f to w in the named format and returns what the format
// could not hold. opts may be nil.
func Write(w io.Writer, f *ir.File, format string, opts *WriteOptions) (ir.LossReport, error) {
	fm := FormatByName(format)
	if fm == nil {
		return nil, fmt.Errorf("%w %q (formats: %s)", ErrUnknownFormat, format, formatNames())
	}
	return fm.Write(w, f, opts)
}

// checkOutput refuses an output that cannot or may not be written: in a
// directory that does not exist, the input file in any guise (in, when
// not nil), a directory, or an existing regular file unless overwrite. A
// device, pipe or socket (inPlace), or a descriptor of the process, needs
// no overwrite: it is written to, never replaced.
func checkOutput(name string, overwrite bool, in os.FileInfo) error {
	if err := checkOutputDir(name); err != nil {
		return err
	}
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return &OutputError{name, unpath(err)}
	case in != nil && os.SameFile(st, in):
		return &OutputError{name, ErrSameFile}
	case st.IsDir():
		return &OutputError{name, errIsDirectory}
	case inPlace(st) || descriptor(name):
		return nil
	case !overwrite:
		return &OutputError{name, ErrExists}
	}
	return nil
}

// inPlace reports whether an existing output (a symlink followed) is
// written to where it is rather than replaced: a character or block
// device (/dev/null, a terminal), a named pipe or a socket, which the
// rename of a temporary file would replace by a regular file. Such an
// output is not written atomically: what a failed write sent there stays.
func inPlace(st os.FileInfo) bool {
	return !st.Mode().IsRegular() && !st.IsDir()
}

// descriptor reports whether name leads, through symlinks, to one of the
// process's open descriptors (/dev/stdout is /proc/self/fd/1; /dev/fd/3):
// what the shell opened there, a file too, is written in place as standard
// output is, and never needs overwrite.
func descriptor(name string) bool {
	self := filepath.Join("/proc", strconv.Itoa(os.Getpid()), "fd")
	for range 40 { // the kernel's limit on symlinks in a path
		switch filepath.Dir(filepath.Clean(name)) {
		case "/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", self:
			return true
		}
		target, err := os.Readlink(name)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(name), target)
		}
		name = target
	}
	return false
}

// checkOutputDir refuses an output whose directory does not exist or is
// not a directory.
func checkOutputDir(name string) error {
	dir := filepath.Dir(name)
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &OutputError{name, fmt.Errorf("directory %s does not exist", dir)}
		}
		return &OutputError{name, err}
	} else if !st.IsDir() {
		return &OutputError{name, fmt.Errorf("%s is not a directory", dir)}
	}
	return nil
}

// atomicFile is an output being written: a temporary file in its
// directory, renamed over its name only when everything succeeded, so
// that a failed or interrupted write leaves nothing behind. A stream
// (standard output) and an output written in place (a device or pipe,
// inPlace) are written directly.
type atomicFile struct {
	name string
	// path is where the temporary file is renamed to: name, or the file a
	// symlink named so points to (the link stays).
	path string
	// tmp is the temporary file while it is written, tmpName its name
	// until it is renamed or removed; both empty for a stream. A finished
	// file is closed, so that many outputs (one per snapshot) do not hold
	// a descriptor each until they are published.
	tmp     *os.File
	tmpName string
	// direct is an output written in place, closed when finished.
	direct *os.File
	w      io.Writer
	// zw compresses into the file when the name asks for a wrapper.
	zw io.WriteCloser
	bw *bufio.Writer
}

// tempPattern names a temporary file: hidden, beside the output, and
// short enough for the file system when the output's own name is long.
func tempPattern(name string) string {
	base := filepath.Base(name)
	if len(base) > 200 {
		base = base[:200]
	}
	return "." + base + ".tmp-*"
}

// createAtomic starts writing the named file, compressed with wr at the
// level when wr is not nil: a temporary file beside it, or the file itself when it is a device
// or pipe (inPlace) or a descriptor of the process (/dev/stdout). A
// symlink's target is replaced, not the link. The
// caller has checked the name with checkOutput.
func createAtomic(name string, wr *wrapper, level Level) (*atomicFile, error) {
	path := name
	st, err := os.Stat(name)
	if err == nil && (inPlace(st) || descriptor(name)) {
		return openInPlace(name, wr, level)
	}
	if lst, lerr := os.Lstat(name); err == nil && lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
		if path, err = filepath.EvalSymlinks(name); err != nil {
			return nil, &OutputError{name, unpath(err)}
		}
	}
	dir := filepath.Dir(path)
	tmp, err := temps.create(dir, tempPattern(path))
	if err != nil {
		return nil, &OutputError{name, fmt.Errorf("cannot create a file in %s: %w", dir, unpath(err))}
	}
	// CreateTemp makes the file private; give it an ordinary file's mode,
	// or keep the mode of the file it replaces.
	mode := os.FileMode(0o644)
	if st != nil {
		mode = st.Mode().Perm()
	}
	o := &atomicFile{name: name, path: path, tmp: tmp, tmpName: tmp.Name(), w: tempWriter{tmp}}
	if err := tmp.Chmod(mode); err != nil {
		o.abort()
		return nil, &OutputError{name, unpath(err)}
	}
	if err := o.compress(wr, level); err != nil {
		o.abort()
		return nil, err
	}
	return o, nil
}

// openInPlace starts writing an existing device, pipe or socket, or a
// descriptor of the process, where it is: opened for writing (a pipe
// waits for its reader), never created nor replaced; truncated as the
// shell's > truncates (which a device or pipe ignores).
func openInPlace(name string, wr *wrapper, level Level) (*atomicFile, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, &OutputError{name, unpath(err)}
	}
	o := &atomicFile{name: name, direct: f, w: tempWriter{f}}
	if err := o.compress(wr, level); err != nil {
		o.abort()
		return nil, err
	}
	return o, nil
}

// streamOutput writes to w (standard output), compressed with wr at the
// level when wr is not nil; it cannot be taken back.
func streamOutput(name string, w io.Writer, wr *wrapper, level Level) (*atomicFile, error) {
	o := &atomicFile{name: name, w: w}
	return o, o.compress(wr, level)
}

// compress makes the output compress what is written to it with wr at
// the level (nothing when wr is nil).
func (o *atomicFile) compress(wr *wrapper, level Level) error {
	if wr == nil {
		return nil
	}
	o.bw = bufio.NewWriterSize(o.w, 1<<20)
	zw, err := wr.NewWriter(o.bw, level)
	if err != nil {
		return err
	}
	o.zw, o.w = zw, zw
	return nil
}

// unpath drops the file name from an *os.PathError: the temporary file's
// name means nothing to the user, who is told the output's.
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

// finish flushes the output to the disk and closes it; on failure it is
// removed.
func (o *atomicFile) finish() error {
	if o.zw != nil {
		err := o.zw.Close()
		if err == nil {
			err = o.bw.Flush()
		}
		o.zw = nil
		if err != nil {
			o.abort()
			return fmt.Errorf("writing %s: %w", o.name, unpath(err))
		}
	}
	if o.direct != nil {
		// No fsync: a device or pipe has nothing to flush to a disk (and
		// /dev/null refuses it).
		err := o.direct.Close()
		o.direct = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.name, unpath(err))
		}
		return nil
	}
	if o.tmp == nil {
		return nil
	}
	err := o.tmp.Sync()
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	o.tmp = nil
	if err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.name, unpath(err))
	}
	return nil
}

// publish renames finished outputs over their names, all while no signal
// can remove them (RemoveTemporaryFiles waits): either every output
// appears, or the program ends before any does. An output that cannot be
// renamed is removed, with those not yet renamed.
func publish(outs []*atomicFile) error {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	if temps.closed {
		return errors.New("the program is ending")
	}
	var err error
	for _, o := range outs {
		if o.tmpName == "" {
			continue
		}
		if err == nil {
			if rerr := os.Rename(o.tmpName, o.path); rerr != nil {
				err = fmt.Errorf("writing %s: %w", o.name, unpath(rerr))
			}
		}
		if err != nil {
			os.Remove(o.tmpName)
		}
		delete(temps.files, o.tmpName)
		o.tmpName = ""
	}
	return err
}

// abort removes the temporary file (of an output not yet published).
func (o *atomicFile) abort() {
	if o == nil {
		return
	}
	if o.zw != nil {
		o.zw.Close()
		o.zw = nil
	}
	if o.tmp != nil {
		o.tmp.Close()
		o.tmp = nil
	}
	if o.direct != nil {
		o.direct.Close() // what was written stays: it cannot be taken back
		o.direct = nil
	}
	if o.tmpName != "" {
		temps.remove(o.tmpName)
		o.tmpName = ""
	}
}

// temps are the temporary files being written, so that a program ending
// on a signal can remove them (RemoveTemporaryFiles).
var temps tempFiles

type tempFiles struct {
	mu     sync.Mutex
	files  map[string]bool // the temporary files' names: true for a directory
	closed bool
}

// mkdir creates a temporary directory, removed with all it holds.
func (t *tempFiles) mkdir(dir, pattern string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", errors.New("the program is ending")
	}
	name, err := os.MkdirTemp(dir, pattern)
	if err == nil {
		if t.files == nil {
			t.files = map[string]bool{}
		}
		t.files[name] = true
	}
	return name, err
}

func (t *tempFiles) create(dir, pattern string) (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("the program is ending")
	}
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		if t.files == nil {
			t.files = map[string]bool{}
		}
		t.files[f.Name()] = true
	}
	return f, err
}

// remove deletes a temporary file (closed by its owner) or directory.
func (t *tempFiles) remove(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.files[name] {
		os.RemoveAll(name)
	} else {
		os.Remove(name)
	}
	delete(t.files, name)
}

// swapDir renames the temporary directory tmp to out. An existing out
// (the caller checked that it may be replaced) is first renamed aside and
// removed after. The renames happen under the lock RemoveTemporaryFiles
// takes, so that a signal never finds out missing: before the swap it
// removes tmp, after it the old directory.
func (t *tempFiles) swapDir(tmp, out string) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return errors.New("the program is ending")
	}
	err := os.Rename(tmp, out)
	if err == nil {
		delete(t.files, tmp)
		t.mu.Unlock()
		return nil
	}
	if _, serr := os.Stat(out); serr != nil {
		t.mu.Unlock()
		return &OutputError{out, unpath(err)}
	}
	// A fresh name for the old directory (os.Rename does not rename onto
	// a directory, even an empty one).
	old, err := os.MkdirTemp(filepath.Dir(out), tempPattern(out))
	if err == nil {
		os.Remove(old)
		err = os.Rename(out, old)
	}
	if err == nil {
		if err = os.Rename(tmp, out); err != nil {
			os.Rename(old, out)
		}
	}
	if err != nil {
		t.mu.Unlock()
		return &OutputError{out, unpath(err)}
	}
	delete(t.files, tmp)
	t.files[old] = true
	t.mu.Unlock()
	t.remove(old)
	return nil
}

// forget stops tracking a temporary file or directory that became an
// output.
func (t *tempFiles) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, name)
}

// RemoveTemporaryFiles deletes the temporary files of every output being
// written, for a program about to exit on a signal: what WriteFile and
// ConvertFile were writing is then never left behind, and no output
// appears. Outputs started afterwards fail.
func RemoveTemporaryFiles() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	temps.closed = true
	for name, dir := range temps.files {
		if dir {
			os.RemoveAll(name)
		} else {
			os.Remove(name)
		}
	}
}
