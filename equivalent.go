package heapconv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// v8Reproduces: a file in a layout V8 writes comes back byte for byte;
// another producer's white space (or escapes V8 does not write) is written
// in V8's layout.
func v8Reproduces(f *ir.File) bool {
	for _, s := range f.Snapshots {
		if v8ir.Of(s) != nil && v8ir.Of(s).Layout == v8ir.LayoutOther {
			return false
		}
	}
	return true
}

// v8Equivalent compares a V8 file written from another producer's with
// it: the same data read back, but for the white space.
func v8Equivalent(written, orig []byte) (string, error) {
	const level = "the same data (another producer's white space and escapes are written as V8 writes them)"
	a, b, err := readBoth(written, orig, func(data []byte) (*ir.File, error) {
		return rv8.Read(bytes.NewReader(data), rv8.Options{Size: int64(len(data))})
	})
	if err != nil {
		return level, err
	}
	b.FormatVersion = a.FormatVersion
	for i, s := range b.Snapshots {
		if v8ir.Of(s) != nil && i < len(a.Snapshots) && v8ir.Of(a.Snapshots[i]) != nil {
			v8ir.Of(s).Layout = v8ir.Of(a.Snapshots[i]).Layout
		}
	}
	if d := ir.Diff(a, b, 1); len(d) > 0 {
		return level, errors.New(d[0])
	}
	return level, nil
}

// moarvmIndex lists a version 3 file's snapshots from its tables of
// contents and snapshot metadata.
func moarvmIndex(ra io.ReaderAt, size int64) ([]string, error) {
	snaps, err := rmoarvm.Index(ra, size)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(snaps))
	for i, s := range snaps {
		collectables := s.Total("total_objects") + s.Total("total_typeobjects") + s.Total("total_stables") + s.Total("total_frames")
		out[i] = fmt.Sprintf("GC run %d: %d collectables, %d references, heap %d bytes",
			s.GCSeqNum, collectables, s.Total("total_refs"), s.Total("total_heap_size"))
	}
	return out, nil
}

// moarvmEquivalent: heapconv writes a MoarVM file it read as the same
// blocks in the same order with the same decompressed contents (zstd
// frames are not reproduced: another compressor, another level). A
// version 2 file is written as version 3, so it is compared as the graphs
// the two files hold.
func moarvmEquivalent(written, orig []byte) (string, error) {
	if bytes.HasPrefix(orig, []byte(moarvmir.Magic2)) {
		const level = "the same graphs (a version 2 file is written as version 3)"
		a, b, err := readBoth(written, orig, func(data []byte) (*ir.File, error) {
			return rmoarvm.Read(bytes.NewReader(data), rmoarvm.Options{Size: int64(len(data))})
		})
		if err != nil {
			return level, err
		}
		if len(a.Snapshots) != len(b.Snapshots) {
			return level, fmt.Errorf("%d snapshots written, the original has %d", len(b.Snapshots), len(a.Snapshots))
		}
		for i := range a.Snapshots {
			if d := ir.GraphDiff(a, a.Snapshots[i], b, b.Snapshots[i], 1); len(d) > 0 {
				return level, fmt.Errorf("snapshot %d: %s", i, d[0])
			}
		}
		return level, nil
	}
	const level = "the same blocks with the same decompressed contents"
	wb, err := rmoarvm.Blocks(written)
	if err != nil {
		return level, fmt.Errorf("the file written: %w", err)
	}
	ob, err := rmoarvm.Blocks(orig)
	if err != nil {
		return level, fmt.Errorf("the original: %w", err)
	}
	for i := range min(len(wb), len(ob)) {
		w, o := wb[i], ob[i]
		switch {
		case w.Name != o.Name:
			return level, fmt.Errorf("block %d is %s (offset %d), the original's is %s (offset %d)", i, w.Name, w.Offset, o.Name, o.Offset)
		case w.EntrySize != o.EntrySize:
			return level, fmt.Errorf("block %d (%s, offset %d): entry size %d, the original's (offset %d) %d", i, w.Name, w.Offset, w.EntrySize, o.Offset, o.EntrySize)
		case !bytes.Equal(w.Content, o.Content):
			at := 0
			for at < len(w.Content) && at < len(o.Content) && w.Content[at] == o.Content[at] {
				at++
			}
			return level, fmt.Errorf("block %d (%s, offset %d; the original's at offset %d): contents differ at byte %d of %d (the original has %d)",
				i, w.Name, w.Offset, o.Offset, at, len(w.Content), len(o.Content))
		}
	}
	if len(wb) != len(ob) {
		return level, fmt.Errorf("%d blocks written, the original has %d", len(wb), len(ob))
	}
	return level, nil
}

// pprofEquivalent: a profile heapconv read is written back as the same
// profile for pprof — the same samples, values, labels, locations,
// mappings and functions as `go tool pprof -raw` prints them — not the
// same bytes (the string table is rebuilt; labels are a map in pprof).
func pprofEquivalent(written, orig []byte) (string, error) {
	const level = "the same profile as pprof reads it (go tool pprof -raw)"
	a, err := profile.ParseData(orig)
	if err != nil {
		return level, fmt.Errorf("pprof cannot parse the original: %w", err)
	}
	b, err := profile.ParseData(written)
	if err != nil {
		return level, fmt.Errorf("pprof cannot parse the file written: %w", err)
	}
	as, bs := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
	for i := range min(len(as), len(bs)) {
		if as[i] != bs[i] {
			return level, fmt.Errorf("line %d of pprof -raw: %q, the original's %q", i+1, bs[i], as[i])
		}
	}
	if len(as) != len(bs) {
		return level, fmt.Errorf("pprof -raw prints %d lines, for the original %d", len(bs), len(as))
	}
	return level, nil
}

// readBoth reads the original and the file written with read.
func readBoth(written, orig []byte, read func([]byte) (*ir.File, error)) (a, b *ir.File, err error) {
	if a, err = read(orig); err != nil {
		return nil, nil, fmt.Errorf("the original: %w", err)
	}
	if b, err = read(written); err != nil {
		return nil, nil, fmt.Errorf("the file written: %w", err)
	}
	return a, b, nil
}
