package moarvm

import (
	"io"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// SnapshotInfo is what a version 3 file's snapshot metadata says of one
// snapshot.
type SnapshotInfo struct {
	GCSeqNum uint64
	// Totals are snapmeta's counts in file order (total_heap_size,
	// total_objects, total_typeobjects, total_stables, total_frames,
	// total_refs in every MoarVM since 2019.11).
	Totals []ir.Total
}

// Total returns the named total, or 0.
func (s *SnapshotInfo) Total(name string) uint64 {
	for _, t := range s.Totals {
		if t.Name == name {
			return t.Value
		}
	}
	return 0
}

// Index lists the snapshots of a version 3 file from its tables of
// contents and snapshot metadata, decompressing nothing: a few small reads
// however big the file, for a caller that must choose a snapshot before
// reading one. A file that is not a whole version 3 file (version 2 has no
// tables of contents; a damaged file needs Read's recovery) is an error.
func Index(ra io.ReaderAt, size int64) ([]SnapshotInfo, error) {
	r := &reader{ra: ra, size: size}
	var magic [moarvmir.MagicSize]byte
	if size < int64(len(magic)) || r.readAt(magic[:], 0) != nil || string(magic[:]) != moarvmir.Magic3 {
		return nil, ir.Errorf(moarvmir.Format, 0, "not a MoarVM heap snapshot of version 3")
	}
	_, tocs, err := r.tocs()
	if err != nil {
		return nil, err
	}
	var out []SnapshotInfo
	for _, t := range tocs {
		if !t.isSnapshot() {
			continue
		}
		var info SnapshotInfo
		if b, ok := t.find(moarvmir.BlockSnapMeta); ok {
			js, err := r.readMeta(b)
			if err != nil {
				return nil, err
			}
			var m moarvmir.Snapshot
			if info.Totals, _, err = parseSnapMeta(js, &m); err != nil {
				return nil, errorf(b.start+moarvmir.HeaderSize, "snapmeta: %v", err)
			}
			info.GCSeqNum = m.GCSeqNum
		}
		out = append(out, info)
	}
	return out, nil
}
