package heapconv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/tables"
)

// FormatParquet names the Parquet tables ExportTables writes, for the
// command line's --to.
const FormatParquet = "parquet"

// ExportOptions adjust ExportTables. A nil *ExportOptions means the zero
// value: every snapshot, the file id taken from the input's name, an
// existing output refused.
type ExportOptions struct {
	// Read adjusts reading, as for ConvertFile.
	Read ReadOptions
	// Snapshots selects one snapshot (Snapshot(n)); WholeFile, the zero
	// value, writes them all. Rows keep the snapshot's number in the file.
	Snapshots Selection
	// FileID is every row's file id; "" takes the input's name without
	// its directory and extensions ("app" for dir/app.heapsnapshot.zst).
	FileID string
	// Overwrite replaces an existing output directory (and loss report
	// file; one that is a device or pipe is written in place without it).
	Overwrite bool
	// LossReportFile, when set, receives the loss report as JSON, as
	// ConvertOptions.LossReportFile does.
	LossReportFile string
	// Redact replaces what the program stored before the tables are
	// written, as ConvertOptions.Redact does.
	Redact bool
	// Stdin is what the name "-" reads (standard input when nil).
	Stdin io.Reader
}

// ExportTables writes the heaps of the file in as Parquet tables into the
// directory out (package tables describes them), and returns what the
// tables do not hold. The directory is written under a temporary name
// beside out and renamed at the end: a failed export leaves nothing.
func ExportTables(in, out string, opts *ExportOptions) (LossReport, error) {
	return ExportTablesContext(context.Background(), in, out, opts)
}

// ExportTablesContext is ExportTables that stops when ctx is done.
func ExportTablesContext(ctx context.Context, in, out string, opts *ExportOptions) (LossReport, error) {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Snapshots == EachSnapshot || o.Snapshots < EachSnapshot {
		return LossReport{}, fmt.Errorf("%w: the tables hold every snapshot of a file; select one snapshot or the whole file", ErrOption)
	}
	if out == "-" {
		return LossReport{}, fmt.Errorf("%w: the tables are a directory, not a stream", ErrOutputName)
	}
	out = filepath.Clean(out)
	if err := checkTablesOutput(out, o.Overwrite); err != nil {
		return LossReport{}, err
	}
	var report *atomicFile
	if name := o.LossReportFile; name != "" {
		if within(name, out) {
			return LossReport{}, fmt.Errorf("%w: the loss report cannot be the tables' directory or inside it", ErrOutputName)
		}
		var inInfo os.FileInfo
		if in != "-" {
			inInfo, _ = os.Stat(in)
		}
		if err := checkOutput(name, o.Overwrite, inInfo); err != nil {
			return LossReport{}, fmt.Errorf("the loss report: %w", err)
		}
		var err error
		if report, err = createAtomic(name, nil, LevelDefault); err != nil {
			return LossReport{}, fmt.Errorf("the loss report: %w", err)
		}
		defer report.abort()
	}
	var input *Input
	var err error
	if in == "-" {
		if o.Read.Name == "" {
			o.Read.Name = "standard input"
		}
		input, err = open(ctx, o.Stdin, &o.Read)
	} else {
		input, err = openFile(ctx, in, &o.Read)
	}
	if err != nil {
		return LossReport{}, err
	}
	defer input.Close()
	if list := input.Index(); list != nil && o.Snapshots.Index() >= len(list) {
		return LossReport{}, &SnapshotError{Err: ErrNoSnapshot, Name: input.Name, Snapshot: o.Snapshots.Index(), Snapshots: list}
	}
	f, err := input.Read()
	if err != nil {
		return LossReport{}, err
	}
	var redacted ir.LossReport
	if o.Redact {
		if f, redacted, err = f.Redact(); err != nil {
			return LossReport{}, input.named(err)
		}
	}
	topts := &tables.Options{FileID: o.FileID, Source: in}
	if topts.FileID == "" {
		topts.FileID = fileID(in)
	}
	if k := o.Snapshots.Index(); k >= 0 {
		if k >= len(f.Snapshots) {
			return LossReport{}, &SnapshotError{Err: ErrNoSnapshot, Name: input.Name, Snapshot: k, Snapshots: describeSnapshots(f)}
		}
		topts.Snapshots = []int{k}
	}
	tmp, err := temps.mkdir(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return LossReport{}, &OutputError{out, unpath(err)}
	}
	defer temps.remove(tmp)
	// MkdirTemp's directory is private; the output is an ordinary one.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return LossReport{}, &OutputError{out, unpath(err)}
	}
	loss, err := tables.Write(tmp, f, topts)
	if err != nil {
		return LossReport{}, fmt.Errorf("writing %s: %w", out, err)
	}
	if err := ctx.Err(); err != nil {
		return LossReport{}, err
	}
	r := LossReport{Input: in, From: input.Format.Name, To: FormatParquet, Outputs: []string{out}, Losses: mergedLosses(redacted, loss)}
	if report != nil {
		if err := writeLossReport(report, r); err != nil {
			return LossReport{}, err
		}
	}
	if err := temps.swapDir(tmp, out); err != nil {
		return LossReport{}, err
	}
	if report != nil {
		if err := publish([]*atomicFile{report}); err != nil {
			return LossReport{}, err
		}
	}
	return r, nil
}

// checkTablesOutput refuses an output directory that may not be written:
// one whose parent does not exist, a file, one that exists without
// overwrite, and one that holds anything but heapconv's tables (replacing
// it would delete the rest, the input perhaps).
func checkTablesOutput(out string, overwrite bool) error {
	if err := checkOutputDir(out); err != nil {
		return err
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return &OutputError{out, unpath(err)}
	case inPlace(st):
		return &OutputError{out, errors.New("is a device or pipe, not a directory: the tables are written as a directory")}
	case !st.IsDir():
		return &OutputError{out, errors.New("is a file; the tables are written as a directory")}
	case !overwrite:
		return &OutputError{out, ErrExists}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return &OutputError{out, unpath(err)}
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".parquet")
		if !ok || !e.Type().IsRegular() || !slices.Contains(tables.Names(), name) {
			return &OutputError{out, fmt.Errorf("holds %s, which is not one of heapconv's tables: only a directory of tables is replaced", e.Name())}
		}
	}
	return nil
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}

// fileID is a file id taken from an input's name: its base name without
// compression and format extensions.
func fileID(in string) string {
	if in == "-" {
		return "stdin"
	}
	name := filepath.Base(in)
	for {
		ext := strings.ToLower(filepath.Ext(name))
		switch ext {
		case ".gz", ".zst", ".heapsnapshot", ".dartheap", ".mvmheap", ".pb", ".fidlstream", ".heapir":
			if len(ext) < len(name) {
				name = name[:len(name)-len(ext)]
				continue
			}
		}
		return name
	}
}
