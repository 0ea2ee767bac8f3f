package heapconv

import (
	"bufio"
	"io"
	"os"

	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/report"
)

// WriteReport writes the HTML report of heaps (package report) to the
// file out, or to stdout for "-": the last heap in detail and, for several
// snapshots of one program, the growth of each class over them. A file is
// written under a temporary name and renamed at the end; an existing one
// needs overwrite.
func WriteReport(out string, heaps []analysis.Heap, opts *report.Options, overwrite bool, stdout io.Writer) error {
	if out == "-" {
		if stdout == nil {
			stdout = os.Stdout
		}
		bw := bufio.NewWriter(stdout)
		if err := report.Write(bw, heaps, opts); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := checkOutput(out, overwrite, nil); err != nil {
		return err
	}
	f, err := createAtomic(out, nil)
	if err != nil {
		return err
	}
	defer f.abort()
	bw := bufio.NewWriterSize(f.w, 1<<16)
	if err := report.Write(bw, heaps, opts); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return &OutputError{out, unpath(err)}
	}
	if err := f.finish(); err != nil {
		return err
	}
	return publish([]*atomicFile{f})
}

// CheckOutput reports whether a file may be written as out: its directory
// exists, it is not a directory, and it does not exist unless overwrite.
// The writers check again; this refuses early, before a long read.
func CheckOutput(out string, overwrite bool) error {
	return checkOutput(out, overwrite, nil)
}
