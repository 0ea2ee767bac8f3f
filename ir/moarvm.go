package ir

import "fmt"

// MoarVM heap snapshots (".mvmheap", described in docs/formats/moarvm.md;
// the facts of the format its reader and writer share are package
// ir/moarvm's) map into the common model like this:
//
//   - the file's string heap is File.Strings[:MoarVMFile.StringCount], in
//     file order, so a MoarVM string index is an IR string index; strings a
//     reader needs beyond it (names of the root kinds) come after;
//   - the file's types are File.Classes: Name is the type name, Library the
//     REPR name; its static frames are the Frame columns of MoarVMFile;
//   - collectable i of a snapshot is node i; collectable 0 is the root. A
//     node's kind is its colkind (MoarVMNodeKinds), its self size colsize,
//     its external size colusize; objects, type objects and STables have
//     Class = 1 + their type index, and every node keeps its colTOFI in
//     MoarVMSnapshot.TOFI (the type index, the static-frame index for frames,
//     whatever was written for the root kinds);
//   - node names: the type name for kinds 1–3, the frame name for frames, the
//     category ("Permanent Roots", ...) for the root kinds; node ids are the
//     collectable indices (MoarVM has no identities across snapshots), and
//     snapshots are named "";
//   - a collectable's references are its edges, in reference-table order;
//     MoarVMSnapshot.RefStart keeps where each collectable's range starts, as
//     the table is not in collectable order. refdescr kind 0 (unknown), 1
//     (index) and 2 (string) are edge kinds of the same numbers (MoarVMEdgeKinds);
//     a string description whose index is out of the string heap, and the
//     unused kind 3, keep their raw index under kinds of their own;
//   - snapmeta's total_* figures are Snapshot.Totals, in the JSON's order.

// MoarVMNodeKinds are the node kinds of a snapshot read from a MoarVM file,
// indexed by colkind. A file with larger kinds extends the table with
// "kind N" entries.
var MoarVMNodeKinds = []string{
	"unknown", "object", "type object", "stable", "frame",
	"permanent roots", "instance roots", "cstack roots", "thread roots",
	"root", "intergen roots", "callstack roots",
}

// The collectable kinds (colkind values, indices into MoarVMNodeKinds).
const (
	MoarVMObject         = 1
	MoarVMTypeObject     = 2
	MoarVMSTable         = 3
	MoarVMFrame          = 4
	MoarVMPermRoots      = 5
	MoarVMInstanceRoots  = 6
	MoarVMCStackRoots    = 7
	MoarVMThreadRoots    = 8
	MoarVMRoot           = 9
	MoarVMInterGenRoots  = 10
	MoarVMCallStackRoots = 11
)

// MoarVMRootNames are the names MoarVM gives the root kinds (the
// descriptions of the root's references to them), indexed by colkind; ""
// for the other kinds. A slice, so that ranging over it has one order.
var MoarVMRootNames = []string{
	MoarVMPermRoots:      "Permanent Roots",
	MoarVMInstanceRoots:  "VM Instance Roots",
	MoarVMCStackRoots:    "C Stack Roots",
	MoarVMThreadRoots:    "Thread Roots",
	MoarVMRoot:           "Root",
	MoarVMInterGenRoots:  "Inter-generational Roots",
	MoarVMCallStackRoots: "Thread Call Stack Roots",
}

// MoarVMEdgeKinds are the edge kinds of a snapshot read from a MoarVM file.
// The first three are refdescr kinds 0–2; MoarVMBadString is a kind-2
// description whose index lies outside the string heap (MoarVM's u16
// wrap-around), kept with its raw index; MoarVMKind3 is the unused kind 3.
var MoarVMEdgeKinds = []EdgeKind{
	{"unknown", true}, {"index", true}, {"string", false},
	{"string out of range", true}, {"kind 3", true},
}

// Indices into MoarVMEdgeKinds.
const (
	MoarVMUnknownRef = iota
	MoarVMIndexRef
	MoarVMStringRef
	MoarVMBadString
	MoarVMKind3
)

// MoarVMFile holds what a MoarVM file has beyond the common model and is
// shared by its snapshots: the file metadata, the static frames, and which
// inner TOC added which strings, types and frames.
type MoarVMFile struct {
	// Version is the format version of the file read: 3, or 2 for the
	// uncompressed files of MoarVM builds without zstd (Debian's).
	Version int

	// The filemeta block's fields. HasMeta is false for version 2 files,
	// which have none; HasPID is false when the JSON has no "pid".
	HasMeta    bool
	Subversion uint64
	StartTime  uint64 // µs of a monotonic clock, not wall time
	PID        uint64
	HasPID     bool
	// EntryCount and DataOrder are highscore_structure: entries per board and
	// the boards' names in the order topIDs and topscore hold them.
	EntryCount uint64
	DataOrder  []string

	// StringCount is the size of the file's string heap: File.Strings[:StringCount].
	StringCount int

	// The static frames, one entry each: name, compilation unit id and file
	// (string indices), and line (a number).
	FrameName []uint32
	FrameCUID []uint32
	FrameLine []uint32
	FrameFile []uint32

	// TOCs describes the inner TOCs in file order: one per snapshot, then the
	// final one (which normally adds nothing and has no blocks).
	TOCs []MoarVMTOC

	// Recovery is set when the file was truncated or its tail damaged and
	// the snapshots were recovered by walking the blocks.
	Recovery *MoarVMRecovery
}

// MoarVMTOC is one inner TOC: what it added to the global tables, and its
// blocks' names in order.
type MoarVMTOC struct {
	NewStrings, NewTypes, NewFrames uint32
	Blocks                          []string
}

// MoarVMRecovery says how a damaged file was read.
type MoarVMRecovery struct {
	// DamageAt is the file offset where the damage starts: the first byte
	// that is not part of a complete block, or the bad tail pointer.
	DamageAt int64
	// Reason says what was wrong.
	Reason string
	// Lost is the number of snapshots begun in the file but not recovered.
	Lost int
}

// MoarVMSnapshot holds what a MoarVM snapshot has beyond the common model.
type MoarVMSnapshot struct {
	// HasMeta is false for version 2 snapshots, which have no snapmeta.
	HasMeta bool
	// SnapTime (µs of a monotonic clock) and GCSeqNum are snapmeta's; its
	// total_* figures are Snapshot.Totals.
	SnapTime uint64
	GCSeqNum uint64
	// TOFI is every collectable's colTOFI.
	TOFI Uints
	// RefStart is every collectable's colrfstr: where its references start
	// in the file's reference table (whatever was written when it has none).
	RefStart Uints
	// TopIDs and TopScores are the highscore boards (nil when the file has
	// none): len(DataOrder) boards of EntryCount entries, each a type or
	// static-frame index and its count or byte sum.
	TopIDs    []uint64
	TopScores []uint64
}

// Frames returns the number of static frames.
func (m *MoarVMFile) Frames() int { return len(m.FrameName) }

func (m *MoarVMFile) validate(f *File) error {
	if m.Version != 2 && m.Version != 3 {
		return fmt.Errorf("moarvm: format version %d (2 and 3 exist)", m.Version)
	}
	ns := len(f.Strings)
	if m.StringCount < 0 || m.StringCount > ns {
		return fmt.Errorf("moarvm: string heap of %d strings, but the file has %d", m.StringCount, ns)
	}
	nf := len(m.FrameName)
	if len(m.FrameCUID) != nf || len(m.FrameLine) != nf || len(m.FrameFile) != nf {
		return fmt.Errorf("moarvm: frame columns have %d, %d, %d and %d entries",
			nf, len(m.FrameCUID), len(m.FrameLine), len(m.FrameFile))
	}
	for _, col := range [][]uint32{m.FrameName, m.FrameCUID, m.FrameFile} {
		for i, v := range col {
			if int(v) >= ns {
				return fmt.Errorf("moarvm: frame %d: string %d out of range", i, v)
			}
		}
	}
	if len(m.TOCs) != 0 && len(m.TOCs) != len(f.Snapshots)+1 {
		return fmt.Errorf("moarvm: %d inner TOCs for %d snapshots (one each, and a final one)", len(m.TOCs), len(f.Snapshots))
	}
	if uint64(len(m.DataOrder))*m.EntryCount > MoarVMMaxHighscores {
		return fmt.Errorf("moarvm: highscore boards of %d × %d entries (at most %d in all)", len(m.DataOrder), m.EntryCount, MoarVMMaxHighscores)
	}
	// A TOC's types and frames may name only strings of the TOCs up to it.
	var s, t, fr uint64
	for k, toc := range m.TOCs {
		s += uint64(toc.NewStrings)
		if s > uint64(ns) || t+uint64(toc.NewTypes) > uint64(f.Classes.Len()) || fr+uint64(toc.NewFrames) > uint64(nf) {
			break // the sums are checked below
		}
		for i := t; i < t+uint64(toc.NewTypes); i++ {
			if uint64(f.Classes.Name[i]) >= s || uint64(f.Classes.Library[i]) >= s {
				return fmt.Errorf("moarvm: type %d, added by TOC %d, names a string a later TOC adds", i, k)
			}
		}
		for i := fr; i < fr+uint64(toc.NewFrames); i++ {
			if uint64(m.FrameName[i]) >= s || uint64(m.FrameCUID[i]) >= s || uint64(m.FrameFile[i]) >= s {
				return fmt.Errorf("moarvm: static frame %d, added by TOC %d, names a string a later TOC adds", i, k)
			}
		}
		t += uint64(toc.NewTypes)
		fr += uint64(toc.NewFrames)
	}
	if len(m.TOCs) > 0 && (s != uint64(m.StringCount) || t != uint64(f.Classes.Len()) || fr != uint64(nf)) {
		return fmt.Errorf("moarvm: the TOCs add %d strings, %d types and %d frames; the file has %d, %d and %d",
			s, t, fr, m.StringCount, f.Classes.Len(), nf)
	}
	return nil
}

func (m *MoarVMSnapshot) validate(f *File, s *Snapshot, n, ne int) error {
	if f.MoarVM == nil {
		return fmt.Errorf("moarvm: snapshot section without the file's")
	}
	if m.TOFI.Len() != n || m.RefStart.Len() != n {
		return fmt.Errorf("moarvm: %d TOFIs and %d reference starts for %d collectables", m.TOFI.Len(), m.RefStart.Len(), n)
	}
	if len(m.TopIDs) != len(m.TopScores) || (m.TopIDs == nil) != (m.TopScores == nil) {
		return fmt.Errorf("moarvm: %d top IDs for %d top scores", len(m.TopIDs), len(m.TopScores))
	}
	if fm := f.MoarVM; len(m.TopIDs) > 0 && uint64(len(m.TopIDs)) != uint64(len(fm.DataOrder))*fm.EntryCount {
		return fmt.Errorf("moarvm: %d highscore entries, not %d boards of %d", len(m.TopIDs), len(fm.DataOrder), fm.EntryCount)
	}
	// A collectable's type or frame is its TOFI; types are also its class.
	nTypes, nFrames := uint64(f.Classes.Len()), uint64(f.MoarVM.Frames())
	buf, starts := make([]uint64, min(n, 8192)), make([]uint64, min(n, 8192))
	for base := 0; base < n; base += len(buf) {
		b := buf[:min(len(buf), n-base)]
		m.TOFI.Values(b, base)
		for j, tf := range b {
			i := base + j
			k := s.Nodes.Kind[i]
			var class uint32
			switch {
			case k >= MoarVMObject && k <= MoarVMSTable:
				if tf >= nTypes {
					return fmt.Errorf("moarvm: collectable %d: type %d out of range (%d types)", i, tf, nTypes)
				}
				class = uint32(tf) + 1
			case k == MoarVMFrame && tf >= nFrames:
				return fmt.Errorf("moarvm: collectable %d: static frame %d out of range (%d frames)", i, tf, nFrames)
			}
			if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] != class {
				return fmt.Errorf("moarvm: collectable %d of kind %d: class %d, but its TOFI is %d", i, k, s.Nodes.Class[i], tf)
			}
		}
	}
	// The reference ranges tile the file's reference table: node i's edges,
	// in node order, sit at RefStart[i] onwards.
	used := make([]uint64, (ne+63)/64)
	for base := 0; base < n; base += len(starts) {
		b := starts[:min(len(starts), n-base)]
		m.RefStart.Values(b, base)
		for j, st := range b {
			i := base + j
			cnt := uint64(s.Nodes.FirstEdge[i+1] - s.Nodes.FirstEdge[i])
			if cnt == 0 {
				continue
			}
			if st > uint64(ne) || cnt > uint64(ne)-st {
				return fmt.Errorf("moarvm: collectable %d: references [%d, %d+%d) beyond the %d references", i, st, st, cnt, ne)
			}
			if !MarkRange(used, st, st+cnt) {
				return fmt.Errorf("moarvm: collectable %d: its references [%d, %d+%d) overlap another's", i, st, st, cnt)
			}
		}
	}
	return nil
}

// MarkRange sets bits [lo, hi) of the bitmap used, a word at a time, and
// reports whether none of them was set before: how MoarVM reference ranges
// are checked to tile the reference table, by its reader and validation.
func MarkRange(used []uint64, lo, hi uint64) bool {
	for lo < hi {
		w, b := lo/64, lo%64
		span := min(hi-lo, 64-b)
		mask := ^uint64(0)
		if span < 64 {
			mask = (1<<span - 1) << b
		}
		if used[w]&mask != 0 {
			return false
		}
		used[w] |= mask
		lo += span
	}
	return true
}

// MoarVMMaxHighscores bounds a snapshot's highscore entries (boards ×
// entries per board): MoarVM writes 4 × 40; a file may not make readers and
// writers compute millions.
const MoarVMMaxHighscores = 1 << 12

// MoarVMDefaultDataOrder is the highscore board order every MoarVM writes.
var MoarVMDefaultDataOrder = []string{"types_by_count", "frames_by_count", "types_by_size", "frames_by_size"}

// The snapmeta totals MoarVM writes, in its order.
var MoarVMTotalNames = []string{"total_heap_size", "total_objects", "total_typeobjects", "total_stables", "total_frames", "total_refs"}
