package heapconv

import (
	"bufio"
	"io"
	"os"

	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/report"
)

// ReportOptions adjust WriteReport. A nil *ReportOptions means the zero
// value: the report's defaults, an existing output refused.
type ReportOptions struct {
	// Report adjusts the page (title, names, how many classes).
	Report report.Options
	// Overwrite replaces an existing output file (a device or pipe is
	// written in place without it).
	Overwrite bool
	// Inputs are the files the heaps were read from, which the output may
	// not replace.
	Inputs []string
	// Stdout is what the name "-" writes (standard output when nil).
	Stdout io.Writer
}

// WriteReport writes the HTML report of heaps (package report) to the
// file out, or to standard output for "-": the last heap in detail and,
// for several snapshots of one program, the growth of each class over
// them. A file is written under a temporary name and renamed at the end;
// a device or pipe is written in place.
func WriteReport(out string, heaps []analysis.Heap, opts *ReportOptions) error {
	var o ReportOptions
	if opts != nil {
		o = *opts
	}
	if out == "-" {
		if o.Stdout == nil {
			o.Stdout = os.Stdout
		}
		bw := bufio.NewWriter(o.Stdout)
		if err := report.Write(bw, heaps, &o.Report); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := CheckOutput(out, o.Overwrite, o.Inputs...); err != nil {
		return err
	}
	f, err := createAtomic(out, nil, LevelDefault)
	if err != nil {
		return err
	}
	defer f.abort()
	bw := bufio.NewWriterSize(f.w, 1<<16)
	if err := report.Write(bw, heaps, &o.Report); err != nil {
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
// exists, it is not a directory, it does not exist unless overwrite (or
// is a device or pipe, written in place), and it is none of inputs (by
// path, symlink or hard link). The writers check
// again; this refuses early, before a long read.
func CheckOutput(out string, overwrite bool, inputs ...string) error {
	if err := checkOutput(out, overwrite, nil); err != nil {
		return err
	}
	for _, in := range inputs {
		if st, err := os.Stat(in); err == nil {
			if err := checkOutput(out, overwrite, st); err != nil {
				return err
			}
		}
	}
	return nil
}
