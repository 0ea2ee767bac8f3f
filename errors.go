package heapconv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// Errors callers branch on. They come wrapped: test with errors.Is. Damage
// to the input itself is an *ir.FormatError (errors.As), which names the
// format and the byte offset.
var (
	// ErrUnrecognized: the data is of no format heapconv knows, whatever
	// gzip or zstd wrapper it came in.
	ErrUnrecognized = errors.New("unrecognized format")
	// ErrUnknownFormat: a format name (ReadOptions.Format,
	// ConvertOptions.To, ...) that is none of Formats().
	ErrUnknownFormat = errors.New("unknown format")
	// ErrNoFormat: an output name whose extension names no format, and no
	// format given.
	ErrNoFormat = errors.New("cannot tell the format from the file name")
	// ErrEmpty: the input holds no data at all.
	ErrEmpty = errors.New("empty input")
	// ErrNoSnapshot: a snapshot number beyond the file's snapshots; a
	// *SnapshotError.
	ErrNoSnapshot = errors.New("no such snapshot")
	// ErrTooManySnapshots: a file of several snapshots converted whole
	// into a format that holds one; a *SnapshotError, whose Snapshots
	// list them to choose from.
	ErrTooManySnapshots = errors.New("too many snapshots for the format")
	// ErrWhichSnapshot: a file of several snapshots read as one heap
	// (ReadHeap, SelectHeap) without saying which.
	ErrWhichSnapshot = errors.New("the file holds several snapshots; name one")
	// ErrOutputName: an output name that cannot be used: without the one
	// %d EachSnapshot needs, or the loss report's own name.
	ErrOutputName = errors.New("bad output name")
	// ErrExists: the output file exists and Overwrite is not set; an
	// *OutputError.
	ErrExists = errors.New("the output file exists")
	// ErrSameFile: the output is the input file, which heapconv never
	// writes over; an *OutputError.
	ErrSameFile = errors.New("the output is the input file")
	// ErrNeedsContents: ScanPointers for a pprof profile without its
	// ContentsDir (a FIDL stream carries the contents).
	ErrNeedsContents = errors.New("scanning for pointers needs the block contents")
	// ErrContentsDir: a contents directory given for a FIDL stream, which
	// carries its block contents itself; it is an ErrOption too.
	ErrContentsDir = errors.New("a contents directory is for pprof profiles")
	// ErrOption: options that do not go together, or do not fit the
	// formats involved.
	ErrOption = errors.New("options do not fit")
)

// SnapshotError reports a snapshot selection a file cannot satisfy.
type SnapshotError struct {
	// Err is ErrNoSnapshot, ErrTooManySnapshots or ErrWhichSnapshot.
	Err error
	// Name is the input's name.
	Name string
	// Snapshot is the snapshot asked for (ErrNoSnapshot).
	Snapshot int
	// Snapshots describe the file's snapshots, a line each.
	Snapshots []string
	// Format is the output format (ErrTooManySnapshots).
	Format string
}

// Error says what was asked and what the file holds.
func (e *SnapshotError) Error() string {
	if e.Err == ErrWhichSnapshot {
		var b strings.Builder
		as := e.Name + "#N"
		if e.Name == "standard input" {
			as = "-#N"
		}
		fmt.Fprintf(&b, "%s holds %d snapshots; name one as %s:", e.Name, len(e.Snapshots), as)
		for i, l := range e.Snapshots {
			fmt.Fprintf(&b, "\n  %d: %s", i, l)
		}
		return b.String()
	}
	if e.Err == ErrTooManySnapshots {
		var b strings.Builder
		fmt.Fprintf(&b, "%s holds %d snapshots and %s files hold one; select one:", e.Name, len(e.Snapshots), e.Format)
		for i, l := range e.Snapshots {
			fmt.Fprintf(&b, "\n  %d: %s", i, l)
		}
		return b.String()
	}
	return fmt.Sprintf("%s: snapshot %d does not exist (the file has %s)", e.Name, e.Snapshot, plural(len(e.Snapshots), "snapshot"))
}

// Unwrap returns Err.
func (e *SnapshotError) Unwrap() error { return e.Err }

// describeSnapshots lists f's snapshots, a line each, for a SnapshotError.
func describeSnapshots(f *ir.File) []string {
	var list []string
	for _, s := range f.Snapshots {
		list = append(list, fmt.Sprintf("%d nodes, %d edges", s.Nodes.Len(), s.Edges.Len()))
	}
	return list
}

// plural says how many of noun there are: "1 snapshot", "3 snapshots".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// emptyError is ErrEmpty for a named input.
type emptyError struct{ name string }

func (e *emptyError) Error() string {
	if e.name == "" {
		return ErrEmpty.Error()
	}
	return e.name + " is empty"
}

func (e *emptyError) Is(target error) bool { return target == ErrEmpty }

// errIsDirectory is an OutputError's Err for a directory in the way.
var errIsDirectory = errors.New("a directory is in the way")

// An OutputError is an output file heapconv will not write.
type OutputError struct {
	Name string
	// Err is ErrExists, ErrSameFile, or why the file cannot be written.
	Err error
}

// Error names the output and why it is not written.
func (e *OutputError) Error() string {
	switch e.Err {
	case ErrExists:
		return e.Name + " exists"
	case ErrSameFile:
		return e.Name + " is the input file; heapconv never writes over its input"
	case errIsDirectory:
		return e.Name + " is a directory, which heapconv never writes over: name a file"
	}
	return "cannot write " + e.Name + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *OutputError) Unwrap() error { return e.Err }
