package moarvm

import (
	"fmt"
	"math"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// MoarVM heap snapshots map into the IR like this:
//
//   - the file's string heap is File.Strings[:File.StringCount], in file
//     order, so a MoarVM string index is an IR string index; strings a
//     reader needs beyond it (names of the root kinds) come after;
//   - the file's types are the file's classes: Name is the type name,
//     Library the REPR name; its static frames are the Frame columns of
//     File;
//   - collectable i of a snapshot is node i; collectable 0 is the root. A
//     node's kind is its colkind (NodeKinds), its self size colsize, its
//     external size colusize; objects, type objects and STables have
//     Class = 1 + their type index, and every node keeps its colTOFI in
//     Snapshot.TOFI (the type index, the static-frame index for frames,
//     whatever was written for the root kinds);
//   - node names: the type name for kinds 1–3, the frame name for frames,
//     the category ("Permanent Roots", ...) for the root kinds; node ids
//     are the collectable indices (MoarVM has no identities across
//     snapshots), and snapshots are named "";
//   - a collectable's references are its edges, in reference-table order;
//     Snapshot.RefStart keeps where each collectable's range starts, as the
//     table is not in collectable order. refdescr kind 0 (unknown), 1
//     (index) and 2 (string) are edge kinds of the same numbers
//     (EdgeKinds); a string description whose index is out of the string
//     heap, and the unused kind 3, keep their raw index under kinds of
//     their own;
//   - snapmeta's total_* figures are the snapshot's Totals, in the JSON's
//     order.

// Format is the MoarVM format's name.
const Format = "moarvm"

// The MoarVM sections' names in the IR.
const (
	FileSectionName     = "moarvm"
	SnapshotSectionName = "moarvm.snapshot"
)

func init() {
	ir.RegisterSection(FileSectionName, ir.FileScope, 1, func() ir.Section { return new(File) })
	ir.RegisterSection(SnapshotSectionName, ir.SnapshotScope, 1, func() ir.Section { return new(Snapshot) })
	// writers/dart keeps a node's kind as its class's library name: the
	// root kinds' names then mark nodes that are no objects.
	ir.RegisterSyntheticKinds(Format, NodeKinds[PermRoots:CallStackRoots+1]...)
}

// The core's hooks the MoarVM sections implement.
var (
	_ ir.LossReporter    = (*File)(nil)
	_ ir.Selecter        = (*File)(nil)
	_ ir.SyntheticMarker = (*Snapshot)(nil)
)

// NodeKinds are the node kinds of a snapshot read from a MoarVM file,
// indexed by colkind. A file with larger kinds extends the table with
// "kind N" entries.
var NodeKinds = []string{
	"unknown", "object", "type object", "stable", "frame",
	"permanent roots", "instance roots", "cstack roots", "thread roots",
	"root", "intergen roots", "callstack roots",
}

// The collectable kinds (colkind values, indices into NodeKinds).
const (
	Object         = 1
	TypeObject     = 2
	STable         = 3
	Frame          = 4
	PermRoots      = 5
	InstanceRoots  = 6
	CStackRoots    = 7
	ThreadRoots    = 8
	Root           = 9
	InterGenRoots  = 10
	CallStackRoots = 11
)

// RootNames are the names MoarVM gives the root kinds (the descriptions of
// the root's references to them), indexed by colkind; "" for the other
// kinds. A slice, so that ranging over it has one order.
var RootNames = []string{
	PermRoots:      "Permanent Roots",
	InstanceRoots:  "VM Instance Roots",
	CStackRoots:    "C Stack Roots",
	ThreadRoots:    "Thread Roots",
	Root:           "Root",
	InterGenRoots:  "Inter-generational Roots",
	CallStackRoots: "Thread Call Stack Roots",
}

// EdgeKinds are the edge kinds of a snapshot read from a MoarVM file. The
// first three are refdescr kinds 0–2; BadString is a kind-2 description
// whose index lies outside the string heap (MoarVM's u16 wrap-around),
// kept with its raw index; Kind3 is the unused kind 3.
var EdgeKinds = []ir.EdgeKind{
	{Name: "unknown", Indexed: true}, {Name: "index", Indexed: true}, {Name: "string"},
	{Name: "string out of range", Indexed: true}, {Name: "kind 3", Indexed: true},
}

// Indices into EdgeKinds.
const (
	UnknownRef = iota
	IndexRef
	StringRef
	BadString
	Kind3
)

// MaxHighscores bounds a snapshot's highscore entries (boards × entries per
// board): MoarVM writes 4 × 40; a file may not make readers and writers
// compute millions.
const MaxHighscores = 1 << 12

// DefaultDataOrder is the highscore board order every MoarVM writes.
var DefaultDataOrder = []string{"types_by_count", "frames_by_count", "types_by_size", "frames_by_size"}

// TotalNames are the snapmeta totals MoarVM writes, in its order.
var TotalNames = []string{"total_heap_size", "total_objects", "total_typeobjects", "total_stables", "total_frames", "total_refs"}

// File is the MoarVM section of a file: what a MoarVM file has beyond the
// common model and its snapshots share: the file metadata, the static
// frames, and which inner TOC added which strings, types and frames.
type File struct {
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

	// StringCount is the size of the file's string heap: the file's
	// Strings[:StringCount].
	StringCount int

	// The static frames, one entry each: name, compilation unit id and file
	// (string indices), and line (a number).
	FrameName []uint32
	FrameCUID []uint32
	FrameLine []uint32
	FrameFile []uint32

	// TOCs describes the inner TOCs in file order: one per snapshot, then the
	// final one (which normally adds nothing and has no blocks).
	TOCs []TOC

	// Recovery is set when the file was truncated or its tail damaged and
	// the snapshots were recovered by walking the blocks.
	Recovery *Recovery
}

// TOC is one inner TOC: what it added to the global tables, and its blocks'
// names in order.
type TOC struct {
	NewStrings, NewTypes, NewFrames uint32
	Blocks                          []string
}

// Recovery says how a damaged file was read.
type Recovery struct {
	// DamageAt is the file offset where the damage starts: the first byte
	// that is not part of a complete block, or the bad tail pointer.
	DamageAt int64
	// Reason says what was wrong.
	Reason string
	// Lost is the number of snapshots begun in the file but not recovered.
	Lost int
}

// Snapshot is the MoarVM section of a snapshot.
type Snapshot struct {
	// HasMeta is false for version 2 snapshots, which have no snapmeta.
	HasMeta bool
	// SnapTime (µs of a monotonic clock) and GCSeqNum are snapmeta's; its
	// total_* figures are the snapshot's Totals.
	SnapTime uint64
	GCSeqNum uint64
	// TOFI is every collectable's colTOFI.
	TOFI ir.Uints
	// RefStart is every collectable's colrfstr: where its references start
	// in the file's reference table (whatever was written when it has none).
	RefStart ir.Uints
	// TopIDs and TopScores are the highscore boards (nil when the file has
	// none): len(DataOrder) boards of EntryCount entries, each a type or
	// static-frame index and its count or byte sum.
	TopIDs    []uint64
	TopScores []uint64
}

// FileOf returns the MoarVM section of f, or nil.
func FileOf(f *ir.File) *File {
	m, _ := f.Section(FileSectionName).(*File)
	return m
}

// Of returns the MoarVM section of s, or nil.
func Of(s *ir.Snapshot) *Snapshot {
	m, _ := s.Section(SnapshotSectionName).(*Snapshot)
	return m
}

// Frames returns the number of static frames.
func (m *File) Frames() int { return len(m.FrameName) }

// SectionName returns "moarvm".
func (m *File) SectionName() string { return FileSectionName }

// Bind declares the section: the metadata, TOCs and recovery as fields, the
// static frames as a table.
func (m *File) Bind(b *ir.Bindings) {
	b.Value("version", func() ir.JSON { return ir.JSONNum(int64(m.Version)) }, func(j ir.JSON) (err error) {
		m.Version, err = intOf(j, math.MinInt32, math.MaxInt32, "format version")
		return err
	})
	b.Bool("has_meta", &m.HasMeta)
	b.Uint("subversion", &m.Subversion)
	b.Uint("start_time", &m.StartTime)
	b.Uint("pid", &m.PID)
	b.Bool("has_pid", &m.HasPID)
	b.Uint("entry_count", &m.EntryCount)
	b.Value("data_order", func() ir.JSON { return ir.JSONStrs(m.DataOrder...) }, func(j ir.JSON) error {
		m.DataOrder = j.Strings()
		if m.DataOrder == nil && j.Kind != ir.JSONNull {
			return fmt.Errorf("not a list of names")
		}
		return nil
	})
	b.Value("string_count", func() ir.JSON { return ir.JSONNum(int64(m.StringCount)) }, func(j ir.JSON) (err error) {
		m.StringCount, err = intOf(j, 0, math.MaxUint32, "string heap size")
		return err
	})
	b.Value("tocs", m.tocsJSON, m.setTOCs)
	b.Value("recovery", m.recoveryJSON, m.setRecovery)
	b.Column("moarvm.frame.name", "moarvm.frame", &m.FrameName, ir.Strings())
	b.Column("moarvm.frame.cuid", "moarvm.frame", &m.FrameCUID, ir.Strings())
	b.Column("moarvm.frame.line", "moarvm.frame", &m.FrameLine)
	b.Column("moarvm.frame.file", "moarvm.frame", &m.FrameFile, ir.Strings())
}

func intOf(j ir.JSON, lo, hi int64, what string) (int, error) {
	if j.Kind != ir.JSONInt || j.Int < lo || j.Int > hi {
		return 0, fmt.Errorf("%s %s", what, j.String())
	}
	return int(j.Int), nil
}

// tocsJSON gives the TOCs as [new_strings, new_types, new_frames, [block
// names]].
func (m *File) tocsJSON() ir.JSON {
	a := ir.JSON{Kind: ir.JSONArray}
	for _, t := range m.TOCs {
		a.Elems = append(a.Elems, ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{
			ir.JSONNum(int64(t.NewStrings)), ir.JSONNum(int64(t.NewTypes)), ir.JSONNum(int64(t.NewFrames)), ir.JSONStrs(t.Blocks...)}})
	}
	return a
}

func (m *File) setTOCs(j ir.JSON) error {
	if j.Kind != ir.JSONArray {
		return fmt.Errorf("not a list")
	}
	m.TOCs = nil
	for _, e := range j.Elems {
		if e.Kind != ir.JSONArray || len(e.Elems) != 4 {
			return fmt.Errorf("a TOC is not [new_strings, new_types, new_frames, [blocks]]")
		}
		var t TOC
		for k, dst := range []*uint32{&t.NewStrings, &t.NewTypes, &t.NewFrames} {
			v, err := intOf(e.Elems[k], 0, math.MaxUint32, "TOC count")
			if err != nil {
				return err
			}
			*dst = uint32(v)
		}
		if t.Blocks = e.Elems[3].Strings(); t.Blocks == nil {
			return fmt.Errorf("a TOC's blocks are not a list of names")
		}
		if len(t.Blocks) == 0 {
			t.Blocks = nil
		}
		m.TOCs = append(m.TOCs, t)
	}
	return nil
}

// recoveryJSON gives the recovery as null or {damage_at, reason, lost}.
func (m *File) recoveryJSON() ir.JSON {
	r := m.Recovery
	if r == nil {
		return ir.JSON{}
	}
	j := ir.JSON{Kind: ir.JSONObject}
	j.Set("damage_at", ir.JSONNum(r.DamageAt))
	j.Set("reason", ir.JSONStr(r.Reason))
	j.Set("lost", ir.JSONNum(int64(r.Lost)))
	return j
}

func (m *File) setRecovery(j ir.JSON) error {
	if j.Kind == ir.JSONNull {
		m.Recovery = nil
		return nil
	}
	at, reason, lost := j.Get("damage_at"), j.Get("reason"), j.Get("lost")
	if j.Kind != ir.JSONObject || at == nil || at.Kind != ir.JSONInt || reason == nil || reason.Kind != ir.JSONString || lost == nil {
		return fmt.Errorf("not {damage_at, reason, lost}")
	}
	n, err := intOf(*lost, 0, math.MaxInt32, "lost snapshots")
	if err != nil {
		return err
	}
	m.Recovery = &Recovery{DamageAt: at.Int, Reason: reason.Str, Lost: n}
	return nil
}

// Validate checks the file's metadata against its tables: the string heap,
// the highscore structure, and what each TOC added.
func (m *File) Validate(f *ir.File, _ *ir.Snapshot) error {
	if m.Version != 2 && m.Version != 3 {
		return fmt.Errorf("moarvm: format version %d (2 and 3 exist)", m.Version)
	}
	ns, nf := len(f.Strings), len(m.FrameName)
	if m.StringCount < 0 || m.StringCount > ns {
		return fmt.Errorf("moarvm: string heap of %d strings, but the file has %d", m.StringCount, ns)
	}
	if len(m.TOCs) != 0 && len(m.TOCs) != len(f.Snapshots)+1 {
		return fmt.Errorf("moarvm: %d inner TOCs for %d snapshots (one each, and a final one)", len(m.TOCs), len(f.Snapshots))
	}
	if uint64(len(m.DataOrder))*m.EntryCount > MaxHighscores {
		return fmt.Errorf("moarvm: highscore boards of %d × %d entries (at most %d in all)", len(m.DataOrder), m.EntryCount, MaxHighscores)
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

// Select gives the snapshot's TOC everything the TOCs before it added:
// the file of one snapshot has the strings, types and frames of all.
func (m *File) Select(f *ir.File, n int, g *ir.File) {
	if len(m.TOCs) != len(f.Snapshots)+1 {
		return
	}
	mm := *m
	var first, rest TOC
	for i, t := range m.TOCs {
		to := &rest
		if i <= n {
			to = &first
		}
		to.NewStrings += t.NewStrings
		to.NewTypes += t.NewTypes
		to.NewFrames += t.NewFrames
	}
	if n == 0 {
		first.Blocks = m.TOCs[0].Blocks
	}
	mm.TOCs = []TOC{first, rest}
	g.SetSection(&mm)
}

// SectionName returns "moarvm.snapshot".
func (m *Snapshot) SectionName() string { return SnapshotSectionName }

// Bind declares the section: snapmeta's figures, whether there are
// highscore boards (so that none and empty ones stay apart), every
// collectable's TOFI and reference start, and the boards.
func (m *Snapshot) Bind(b *ir.Bindings) {
	b.Bool("has_meta", &m.HasMeta)
	b.Uint("snap_time", &m.SnapTime)
	b.Uint("gc_seq_num", &m.GCSeqNum)
	b.Value("highscores", func() ir.JSON {
		return ir.JSON{Kind: ir.JSONBool, Bool: m.TopIDs != nil || m.TopScores != nil}
	}, func(j ir.JSON) error {
		if j.Kind != ir.JSONBool {
			return fmt.Errorf("not a bool")
		}
		m.TopIDs, m.TopScores = nil, nil
		if j.Bool {
			m.TopIDs, m.TopScores = []uint64{}, []uint64{}
		}
		return nil
	})
	b.Column("moarvm.node.tofi", ir.TableNode, &m.TOFI)
	b.Column("moarvm.node.ref_start", ir.TableNode, &m.RefStart)
	b.Column("moarvm.top.ids", "moarvm.top", &m.TopIDs)
	b.Column("moarvm.top.scores", "moarvm.top", &m.TopScores)
}

// Validate checks the boards' shape, each collectable's TOFI against its
// kind and class, and that the reference ranges tile the reference table.
func (m *Snapshot) Validate(f *ir.File, s *ir.Snapshot) error {
	fm := FileOf(f)
	if fm == nil {
		return fmt.Errorf("moarvm: snapshot section without the file's")
	}
	n, ne := s.Nodes.Len(), s.Edges.Len()
	if (m.TopIDs == nil) != (m.TopScores == nil) {
		return fmt.Errorf("moarvm: %d top IDs for %d top scores", len(m.TopIDs), len(m.TopScores))
	}
	if len(m.TopIDs) > 0 && uint64(len(m.TopIDs)) != uint64(len(fm.DataOrder))*fm.EntryCount {
		return fmt.Errorf("moarvm: %d highscore entries, not %d boards of %d", len(m.TopIDs), len(fm.DataOrder), fm.EntryCount)
	}
	// A collectable's type or frame is its TOFI; types are also its class.
	nTypes, nFrames := uint64(f.Classes.Len()), uint64(fm.Frames())
	buf, starts := make([]uint64, min(n, 8192)), make([]uint64, min(n, 8192))
	for base := 0; base < n; base += len(buf) {
		b := buf[:min(len(buf), n-base)]
		m.TOFI.Values(b, base)
		for j, tf := range b {
			i := base + j
			k := s.Nodes.Kind[i]
			var class uint32
			switch {
			case k >= Object && k <= STable:
				if tf >= nTypes {
					return fmt.Errorf("moarvm: collectable %d: type %d out of range (%d types)", i, tf, nTypes)
				}
				class = uint32(tf) + 1
			case k == Frame && tf >= nFrames:
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

// isRootKind reports whether kind k, named name, of a MoarVM snapshot is
// one of the root kinds.
func isRootKind(k int, name string) bool {
	return k >= PermRoots && k <= CallStackRoots && name == NodeKinds[k]
}

// MarkSynthetic marks the nodes that stand for no object of the heap: the
// root collectables, and the objects of types whose REPR name is
// "synthetic" or a root kind's name, which writers/moarvm makes for such
// nodes of another format (it keeps a node's kind as its type's REPR name:
// MoarVM's REPRs are CamelCase names).
func (m *Snapshot) MarkSynthetic(f *ir.File, s *ir.Snapshot, marks []bool) {
	byKind := make([]bool, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		byKind[k] = isRootKind(k, name)
	}
	byClass := make([]bool, f.Classes.Len()+1)
	for k, lib := range f.Classes.Library {
		_, byClass[k+1] = ir.SyntheticKind(f.String(lib))
	}
	for i := range marks {
		if k := int(s.Nodes.Kind[i]); k < len(byKind) && byKind[k] {
			marks[i] = true
		} else if len(s.Nodes.Class) > 0 && int(s.Nodes.Class[i]) < len(byClass) && byClass[s.Nodes.Class[i]] {
			marks[i] = true
		}
	}
}

// EdgeKindMark is how writers/moarvm keeps an edge kind MoarVM does not
// have (V8's weak, internal, hidden, … edges) in a string reference's
// description: "(weak) name", an indexed kind's index as the name
// ("(hidden) 3"), for the references of objects whose type's REPR name is a
// V8 node kind (a V8 heap's: see writers/moarvm) and of the root that was
// V8's; writers/v8 reads the kinds back for those, and only for those. A
// property whose name reads as a mark is marked "(property) name".
func EdgeKindMark(kind, name string) string { return "(" + kind + ") " + name }

// ParseEdgeKindMark splits a description made by EdgeKindMark into the kind
// and the name; ok is false for any other description.
func ParseEdgeKindMark(desc string) (kind, name string, ok bool) {
	rest, found := strings.CutPrefix(desc, "(")
	if !found {
		return "", "", false
	}
	kind, name, ok = strings.Cut(rest, ") ")
	return kind, name, ok && kind != "" && !strings.ContainsAny(kind, "()")
}

// The kinds of loss of the MoarVM sections.
const (
	// LossStaticFrames: MoarVM's static frames (name, compilation unit,
	// file, line); Count is frames.
	LossStaticFrames = "moarvm-static-frames"
	// LossMetadata: MoarVM's file and snapshot metadata (format
	// subversion, start time, process id; each snapshot's time and GC
	// sequence number); Count is fields.
	LossMetadata = "moarvm-metadata"
	// LossHighscores: MoarVM's highscore boards (topIDs, topscore); Count
	// is board entries.
	LossHighscores = "moarvm-highscores"
)

// Loss names what a MoarVM file has beyond the common model that a file of
// another format cannot hold: the static frames (unless the target keeps
// them), the highscore boards, and the file's and snapshots' metadata.
func (m *File) Loss(f *ir.File, _ *ir.Snapshot, t ir.Target) ir.LossReport {
	if t.Format == Format {
		return nil
	}
	var loss ir.LossReport
	add := func(n int, kind, what string) *ir.Loss { return loss.NoPlace(n, kind, what, t.Name) }
	if !t.KeepsFrames {
		if l := add(m.Frames(), LossStaticFrames, "static frames (name, compilation unit, file, line)"); l != nil {
			l.WithExample(fmt.Sprintf("%s at %s:%d", f.String(m.FrameName[0]), f.String(m.FrameFile[0]), m.FrameLine[0]))
		}
	}
	meta, entries := 0, 0
	if m.HasMeta {
		meta += 2 // subversion, start time
		if m.HasPID {
			meta++
		}
	}
	for _, s := range f.Snapshots {
		if ms := Of(s); ms != nil {
			if ms.HasMeta {
				meta += 2 // snap time, GC sequence number
			}
			entries += len(ms.TopIDs)
		}
	}
	add(meta, LossMetadata, "file and snapshot metadata (format subversion, start time, process id; snapshot times and GC sequence numbers)")
	add(entries, LossHighscores, "highscore board entries (the types and frames with the most objects, bytes or calls)")
	return loss
}
