package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"heapconv/internal/formats"
	"heapconv/ir"
)

// input is an opened IN argument with its detected format.
type input struct {
	name   string
	r      *bufio.Reader
	size   int64 // 0 when unknown (stdin, pipes)
	format *formats.Format
	file   *os.File // nil for stdin
	info   os.FileInfo
	zr     *zstd.Decoder // set when the input is zstd-compressed
	// contents and scan are a Fuchsia heapdump's contents directory and
	// whether to derive edges from it.
	contents string
	scan     bool
}

// openInput opens IN ("-" is standard input) and determines its format:
// from --from when given, else by content.
func openInput(e *env, name, from string) (*input, error) {
	in := &input{name: name}
	if name == "-" {
		in.r = bufio.NewReaderSize(e.stdin, 1<<20)
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
		in.file, in.info = f, st
		if st.Mode().IsRegular() {
			in.size = st.Size()
		}
		in.r = bufio.NewReaderSize(f, 1<<20)
	}
	// A zstd-compressed input (a .heapsnapshot.zst archive, say) is read
	// through a decompressor; the IR reads its own .zst form itself.
	if head, _ := in.r.Peek(4); bytes.Equal(head, ir.ZstdMagic) && from != ir.FormatIR && !zstdHoldsIR(in.r) {
		zr, err := zstd.NewReader(in.r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			in.close()
			return nil, err
		}
		in.r, in.size, in.zr = bufio.NewReaderSize(zr, 1<<20), 0, zr
	}
	if from != "" {
		in.format = formats.ByName(from)
		if in.format == nil {
			in.close()
			return nil, usagef("unknown format %q (formats: %s)", from, strings.Join(formats.Names(), ", "))
		}
	} else {
		head, _ := in.r.Peek(512)
		in.format = formats.Detect(head)
		if in.format == nil {
			in.close()
			if len(head) == 0 {
				return nil, fmt.Errorf("%s is empty", in.name)
			}
			return nil, fmt.Errorf("%s: unrecognized format (give --from; formats: %s)", in.name, strings.Join(formats.Names(), ", "))
		}
	}
	if in.format.Read == nil {
		in.close()
		return nil, fmt.Errorf("%s is a %s file; reading %s is not available in this version of heapconv (see `heapconv formats`)",
			in.name, in.format.Description, in.format.Name)
	}
	return in, nil
}

// zstdHoldsIR reports whether the zstd stream at the head of r starts with
// the IR magic, decoding a copy of the buffered head only.
func zstdHoldsIR(r *bufio.Reader) bool {
	head, _ := r.Peek(256 << 10)
	zr, err := zstd.NewReader(bytes.NewReader(head), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return false
	}
	defer zr.Close()
	magic := make([]byte, len(ir.Magic))
	_, err = io.ReadFull(zr, magic)
	return err == nil && bytes.Equal(magic, ir.Magic)
}

func (in *input) close() {
	if in.zr != nil {
		in.zr.Close()
	}
	if in.file != nil {
		in.file.Close()
	}
}

// read parses the input, with a progress bar on a terminal for large inputs.
func (in *input) read(e *env) (*ir.File, error) {
	defer in.close()
	p := newProgress(e, "reading", in.size)
	opts := formats.ReadOptions{Size: in.size, Progress: p.update, ContentsDir: in.contents, ScanPointers: in.scan}
	if in.file != nil && in.zr == nil && in.size > 0 {
		opts.At = in.file
	}
	f, err := in.format.Read(in.r, opts)
	p.done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return f, nil
}

// output is an OUT argument being written: a temporary file in OUT's
// directory, renamed over OUT only when everything succeeded, so that a
// failed conversion leaves nothing behind.
type output struct {
	name string
	tmp  *os.File
	w    io.Writer
}

// createOutput prepares OUT ("-" is standard output). It refuses an
// existing OUT without force, and OUT being the input file in any guise.
func createOutput(e *env, name string, force bool, in *input) (*output, error) {
	if name == "-" {
		return &output{name: "standard output", w: e.stdout}, nil
	}
	if st, err := os.Stat(name); err == nil {
		if in != nil && in.info != nil && os.SameFile(st, in.info) {
			return nil, fmt.Errorf("%s is the input file; heapconv never writes over its input", name)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", name)
		}
		if !force {
			return nil, fmt.Errorf("%s exists (use --force to replace it)", name)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private; give it an ordinary file's mode,
	// or keep the mode of the file it replaces.
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &output{name: name, tmp: tmp, w: tmp}, nil
}

// commit makes the output visible under its name.
func (o *output) commit() error {
	if o.tmp == nil {
		return nil
	}
	if err := o.tmp.Sync(); err != nil {
		o.abort()
		return fmt.Errorf("writing %s: %w", o.name, err)
	}
	if err := o.tmp.Close(); err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.name, err)
	}
	if err := os.Rename(o.tmp.Name(), o.name); err != nil {
		os.Remove(o.tmp.Name())
		return err
	}
	return nil
}

// abort removes the temporary file.
func (o *output) abort() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
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
