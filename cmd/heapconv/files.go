package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/bytesize"
	"github.com/heapconv/heapconv/ir"
)

// openInput opens IN ("-" is standard input) with the format named by
// --from, or detected, and a progress bar for its read.
func openInput(e *env, name string, opts heapconv.ReadOptions) (*heapconv.Input, error) {
	opts.Progress = newProgress(e, "reading").update
	var in *heapconv.Input
	var err error
	if name == "-" {
		opts.Name = "standard input"
		in, err = heapconv.Open(e.stdin, &opts)
	} else {
		in, err = heapconv.OpenFile(name, &opts)
	}
	return in, inputError(err)
}

// inputError puts an error opening an input in the command line's terms.
func inputError(err error) error {
	switch {
	case errors.Is(err, heapconv.ErrNeedsContents):
		return usagef("--scan-pointers needs --contents DIR (or a fuchsia-fidl input, which carries the contents)")
	case errors.Is(err, heapconv.ErrUnknownFormat):
		return usagef("%v", err)
	case errors.Is(err, heapconv.ErrUnrecognized):
		return fmt.Errorf("%w; give --from", err)
	}
	return err
}

// what says what the input is, for messages: its format, and the
// compression it came in.
func what(in *heapconv.Input) string {
	if in.Compression != "" {
		return in.Compression + "-compressed " + in.Format.Name
	}
	return in.Format.Name
}

// read reads the input, clearing the progress bar after.
func read(e *env, in *heapconv.Input) (*ir.File, error) {
	defer clearProgress(e)
	return in.Read()
}

// progress draws a one-line progress bar on standard error when it is a
// terminal and the input is large; otherwise it does nothing.
type progress struct {
	e    *env
	what string
	last int
}

// progressMinSize is the size of the smallest input that gets a progress
// bar (a variable for the tests).
var progressMinSize int64 = 32 << 20

func newProgress(e *env, what string) *progress { return &progress{e: e, what: what, last: -1} }

func (p *progress) update(done, total int64) {
	if !p.e.stderrTerminal || total < progressMinSize {
		return
	}
	pct := int(done * 100 / total)
	if pct == p.last || pct > 100 {
		return
	}
	p.last = pct
	bar := strings.Repeat("=", pct/4) + strings.Repeat(" ", 25-pct/4)
	fmt.Fprintf(p.e.stderr, "\r%s [%s] %3d%% of %s", p.what, bar, pct, bytesize.String(uint64(total)))
	p.e.progressShown = true
}

// clearProgress erases a progress bar that was drawn.
func clearProgress(e *env) {
	if e.progressShown {
		fmt.Fprint(e.stderr, "\r\033[K")
		e.progressShown = false
	}
}
