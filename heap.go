package heapconv

import (
	"os"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// ParseHeapName splits the name of one heap as the commands that compare
// and navigate heaps take it: "prog.mvmheap#3" is snapshot 3 of
// prog.mvmheap. A name without "#N", or one that exists as a file as it
// is, names a file (snapshot -1).
func ParseHeapName(name string) (file string, snapshot int) {
	i := strings.LastIndexByte(name, '#')
	if i < 0 {
		return name, -1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || name[i+1] == '+' || name[i+1] == '-' {
		return name, -1
	}
	if _, err := os.Stat(name); err == nil {
		return name, -1
	}
	return name[:i], n
}

// ReadHeap reads one snapshot of a file for analysis (analysis.Compare,
// analysis.NewNavigator): the file's only snapshot, or the one its name
// selects (ParseHeapName). A file of several snapshots named without
// "#N" is a *SnapshotError with ErrWhichSnapshot; a number past the last
// snapshot one with ErrNoSnapshot.
func ReadHeap(name string, opts *ReadOptions) (analysis.Heap, error) {
	file, n := ParseHeapName(name)
	in, err := OpenFile(file, opts)
	if err != nil {
		return analysis.Heap{}, err
	}
	if n >= 0 {
		g, err := in.ReadSnapshot(n)
		if err != nil {
			return analysis.Heap{}, err
		}
		return analysis.Heap{File: g, Snapshot: g.Snapshots[0]}, nil
	}
	f, err := in.Read()
	if err != nil {
		return analysis.Heap{}, err
	}
	return SelectHeap(f, in.Name, n)
}

// SelectHeap returns snapshot n of f as a heap, or f's only snapshot for n
// < 0; name names f in errors.
func SelectHeap(f *ir.File, name string, n int) (analysis.Heap, error) {
	switch {
	case n < 0 && len(f.Snapshots) == 1:
		n = 0
	case n < 0:
		return analysis.Heap{}, &SnapshotError{Err: ErrWhichSnapshot, Name: name, Snapshot: -1, Snapshots: describeSnapshots(f)}
	case n >= len(f.Snapshots):
		return analysis.Heap{}, &SnapshotError{Err: ErrNoSnapshot, Name: name, Snapshot: n, Snapshots: describeSnapshots(f)}
	}
	if f.IsSeries() {
		// A snapshot of a series is the file it came from.
		g, err := f.Select(n)
		if err != nil {
			return analysis.Heap{}, err
		}
		return analysis.Heap{File: g, Snapshot: g.Snapshots[0]}, nil
	}
	return analysis.Heap{File: f, Snapshot: f.Snapshots[n]}, nil
}
