// Package moarvm writes the IR as a MoarVM heap snapshot, format version 3
// ("MoarHeapDumpv003", the ".mvmheap" files of `raku --profile=x.mvmheap`),
// as described in docs/formats/moarvm.md (byte layout, semantics, and what
// this writer writes) and mapped into the IR as ir/moarvm/section.go describes; the
// facts of the format it shares with readers/moarvm are package
// ir/moarvm's.
//
// A file is the magic, a filemeta JSON block, then per snapshot a snapmeta
// JSON block, zstd-compressed column blocks (collectables, references, the
// string heap, type and static-frame increments, highscores), its inner TOC
// and a copy of the outer TOC; it ends with a final (normally empty) inner
// TOC, the final outer TOC and the u64 offset of the latter.
//
// IR read from a version 3 file is written back with the same blocks in the
// same order, the same decompressed bytes and the same JSON text (the zstd
// frames differ: one frame per block, made here by klauspost/compress at
// its default level, without checksum). IR read from a version 2 file is
// upgraded: filemeta and snapmeta are synthesized (times 0, totals and
// highscores computed as MoarVM computes them). IR from any other format
// goes through Convert first.
package moarvm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// DefaultEntryCount is the number of entries per highscore board MoarVM
// writes (LEADERBOARDS_TOP_SPOTS).
const DefaultEntryCount = 40

// Options control Write.
type Options struct {
	// Progress, if set, is called now and then with the bytes written so far.
	Progress func(written int64)
}

// The encoder is shared by all writes: EncodeAll may be called from several
// goroutines at once, each taking one of its Concurrency block encoders.
var (
	encOnce    sync.Once
	encoder    *zstd.Encoder
	encErr     error
	encWorkers int
)

func getEncoder() (*zstd.Encoder, int, error) {
	encOnce.Do(func() {
		encWorkers = min(runtime.GOMAXPROCS(0), 8)
		// A 4 MiB window, as MoarVM's frames have: big columns are then
		// multi-segment frames that libzstd's default decoder limit accepts.
		encoder, encErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderCRC(false),
			zstd.WithWindowSize(4<<20),
			zstd.WithZeroFrames(true), // an empty column is still one frame
			zstd.WithEncoderConcurrency(encWorkers))
	})
	return encoder, encWorkers, encErr
}

// Write writes f as a MoarVM heap snapshot file, version 3. IR without a
// MoarVM section (read from another format) is converted first (see
// Convert); the loss report lists what the conversion could not carry.
func Write(w io.Writer, f *ir.File, opts Options) (ir.LossReport, error) {
	var loss ir.LossReport
	if moarvmir.FileOf(f) == nil {
		var err error
		if f, loss, err = Convert(f); err != nil {
			return nil, err
		}
	}
	enc, workers, err := getEncoder()
	if err != nil {
		return loss, fmt.Errorf("moarvm: zstd encoder: %w", err)
	}
	wr := &writer{f: f, m: moarvmir.FileOf(f), enc: enc, workers: workers, progress: opts.Progress}
	wr.w = bufio.NewWriterSize(w, 1<<20)
	if err := wr.check(); err != nil {
		return loss, err
	}
	if err := wr.file(); err != nil {
		return loss, err
	}
	loss.Merge(wr.loss)
	if err := wr.w.Flush(); err != nil {
		return loss, fmt.Errorf("moarvm: writing the output: %w", err)
	}
	return loss, nil
}

// tocEntry is one TOC entry: a block's name and its [start, end) offsets.
type tocEntry struct {
	name       string
	start, end int64
}

type writer struct {
	w        *bufio.Writer
	f        *ir.File
	m        *moarvmir.File
	enc      *zstd.Encoder
	workers  int
	progress func(int64)
	off      int64
	werr     error
	loss     ir.LossReport

	// meta is the filemeta in effect (the file's, or synthesized for
	// version 2 input).
	meta moarvmir.File
	// tocs is how the strings, types and frames split over the inner TOCs.
	tocs  []moarvmir.TOC
	outer []tocEntry
}

// check verifies what the writer relies on beyond (*ir.File).Validate and
// settles the metadata and the TOC split.
func (w *writer) check() error {
	f, m := w.f, w.m
	if m.StringCount < 0 || m.StringCount > len(f.Strings) {
		return fmt.Errorf("moarvm: string heap of %d strings, but the file has %d", m.StringCount, len(f.Strings))
	}
	nf := m.Frames()
	if len(m.FrameCUID) != nf || len(m.FrameLine) != nf || len(m.FrameFile) != nf {
		return fmt.Errorf("moarvm: frame columns have %d, %d, %d and %d entries",
			nf, len(m.FrameCUID), len(m.FrameLine), len(m.FrameFile))
	}
	if len(f.Classes.Library) != f.Classes.Len() {
		return fmt.Errorf("moarvm: every type needs a REPR name (Classes.Library): %d for %d types",
			len(f.Classes.Library), f.Classes.Len())
	}
	for k, s := range f.Snapshots {
		if moarvmir.Of(s) == nil {
			return fmt.Errorf("moarvm: snapshot %d has no MoarVM section, but the file has one (IR from a MoarVM file must keep both; IR from elsewhere must have neither, and is converted)", k)
		}
		for i, name := range s.NodeKinds {
			if i < len(moarvmir.NodeKinds) && name != moarvmir.NodeKinds[i] {
				return fmt.Errorf("moarvm: snapshot %d: node kind %d is %q, not MoarVM's %q (a MoarVM node kind index is its colkind)", k, i, name, moarvmir.NodeKinds[i])
			}
		}
		for i, ek := range s.EdgeKinds {
			if i >= len(moarvmir.EdgeKinds) {
				break // edges of such kinds are refused when written
			}
			if ek.Name != moarvmir.EdgeKinds[i].Name {
				return fmt.Errorf("moarvm: snapshot %d: edge kind %d is %q, not MoarVM's %q", k, i, ek.Name, moarvmir.EdgeKinds[i].Name)
			}
		}
		if s.Values.Len() > 0 {
			w.loss.Add(ir.LossValues, int64(s.Values.Len()), "primitive values have no place in a MoarVM file")
		}
		if !moarvmir.Of(s).HasMeta {
			// A version 2 snapshot is upgraded: its snapmeta is written as
			// MoarVM would write it, with totals computed from the graph.
			if n, example := ir.TotalsChanged(s.Totals, Totals(s)); n > 0 {
				w.loss.Add(ir.LossTotals, int64(n), "version 2 snapshots have no snapmeta: the one written has totals computed from the graph, as MoarVM computes them").
					WithExample(fmt.Sprintf("snapshot %d: %s", k, example))
			}
		}
		if len(s.Roots) > 0 {
			w.loss.Add(ir.LossGCRoots, int64(len(s.Roots)), "GC roots listed apart from the graph have no place in a MoarVM file (MoarVM's roots are the references of collectable 0)")
		}
	}

	w.meta = *m
	if !m.HasMeta {
		// Version 2 files have no filemeta: write what MoarVM would.
		added := 2 * len(f.Snapshots) // snap_time and gc_seq_num
		w.loss.Add(moarvmir.LossMetadata, int64(2+added), "version 2 files have no filemeta and no snapmeta: those written say what MoarVM would (subversion 1, start and snapshot times 0, snapshots numbered from 1), which reading the file back finds")
		w.meta.HasMeta = true
		w.meta.Subversion = 1
		w.meta.StartTime = 0
		w.meta.HasPID = false
		w.meta.PID = 0
		w.meta.EntryCount = DefaultEntryCount
		w.meta.DataOrder = slices.Clone(moarvmir.DefaultDataOrder)
	}

	// The TOC split: the file's, or everything in the first snapshot's TOC.
	ns := len(f.Snapshots)
	if len(m.TOCs) == 0 {
		w.tocs = make([]moarvmir.TOC, ns+1)
		w.tocs[0] = moarvmir.TOC{NewStrings: uint32(m.StringCount), NewTypes: uint32(f.Classes.Len()), NewFrames: uint32(nf)}
		if uint64(m.StringCount) > math.MaxUint32 {
			return fmt.Errorf("moarvm: %d strings are too many", m.StringCount)
		}
		return nil
	}
	if len(m.TOCs) != ns+1 {
		return fmt.Errorf("moarvm: %d inner TOCs for %d snapshots (one each, and a final one)", len(m.TOCs), ns)
	}
	var s, t, fr uint64
	for _, toc := range m.TOCs {
		s += uint64(toc.NewStrings)
		t += uint64(toc.NewTypes)
		fr += uint64(toc.NewFrames)
	}
	if s != uint64(m.StringCount) || t != uint64(f.Classes.Len()) || fr != uint64(nf) {
		return fmt.Errorf("moarvm: the TOCs add %d strings, %d types and %d frames; the file has %d, %d and %d",
			s, t, fr, m.StringCount, f.Classes.Len(), nf)
	}
	w.tocs = m.TOCs
	return nil
}

// blockOrder returns the blocks inner TOC i writes: the order the file had
// when its block list names exactly what the data needs (optional blocks
// with nothing new may be named: they are written empty), else MoarVM's.
func blockOrder(toc moarvmir.TOC, snapshot bool) []string {
	var def []string
	if snapshot {
		def = append(def, moarvmir.BlockSnapMeta)
		def = append(def, moarvmir.SnapshotColumns...)
	}
	if toc.NewStrings > 0 {
		def = append(def, moarvmir.BlockStrings)
	}
	if toc.NewTypes > 0 {
		def = append(def, moarvmir.TypeColumns...)
	}
	if toc.NewFrames > 0 {
		def = append(def, moarvmir.FrameColumns...)
	}
	if snapshot {
		def = append(def, moarvmir.HighscoreColumns...)
	}
	if len(toc.Blocks) < len(def) {
		return def
	}
	seen := map[string]bool{}
	for _, b := range toc.Blocks {
		optional := b == moarvmir.BlockStrings || slices.Contains(moarvmir.TypeColumns, b) || slices.Contains(moarvmir.FrameColumns, b)
		if seen[b] || !(optional || snapshot && slices.Contains(def, b)) {
			return def
		}
		seen[b] = true
	}
	for _, b := range def {
		if !seen[b] {
			return def
		}
	}
	// Types and frames are column groups: all of a group or none.
	for _, group := range [][]string{moarvmir.TypeColumns, moarvmir.FrameColumns} {
		n := 0
		for _, b := range group {
			if seen[b] {
				n++
			}
		}
		if n != 0 && n != len(group) {
			return def
		}
	}
	return toc.Blocks
}

// file writes the whole file.
func (w *writer) file() error {
	f := w.f
	w.put([]byte(moarvmir.Magic3))
	start := w.off
	w.jsonBlock(moarvmir.BlockFileMeta, moarvmir.FileMetaJSON(&w.meta))
	w.outer = append(w.outer, tocEntry{moarvmir.BlockFileMeta, start, w.off})
	var tables tableOffsets
	for k, s := range f.Snapshots {
		if err := w.innerTOC(w.tocs[k], &tables, k, s); err != nil {
			return err
		}
		// A copy of the outer TOC so far, as MoarVM writes for recovery.
		w.toc(w.outer)
		if err := w.err(); err != nil {
			return err
		}
	}
	if err := w.innerTOC(w.tocs[len(f.Snapshots)], &tables, -1, nil); err != nil {
		return err
	}
	// The final outer TOC; its self pointer is the file's last 8 bytes.
	w.toc(w.outer)
	return w.err()
}

// tableOffsets is how many strings, types and frames earlier TOCs wrote.
type tableOffsets struct{ strings, types, frames int }

// innerTOC writes the blocks of one inner TOC (snapshot k, or the final TOC
// when s is nil), then the TOC, and registers it in the outer TOC.
func (w *writer) innerTOC(toc moarvmir.TOC, tab *tableOffsets, k int, s *ir.Snapshot) error {
	var entries []tocEntry
	order := blockOrder(toc, s != nil)
	var sc *snapCols
	if s != nil {
		var err error
		if sc, err = w.prepareSnapshot(k, s); err != nil {
			return err
		}
	}
	// Column blocks are built and compressed in parallel, then written in
	// order.
	jobs := make([]*job, 0, len(order))
	for _, name := range order {
		var build func() ([]byte, error)
		switch name {
		case moarvmir.BlockSnapMeta:
			jobs = append(jobs, nil)
			continue
		case moarvmir.BlockStrings:
			lo, hi := tab.strings, tab.strings+int(toc.NewStrings)
			build = func() ([]byte, error) { return w.stringHeap(lo, hi) }
		case moarvmir.ReprName, moarvmir.TypeName:
			lo, hi := tab.types, tab.types+int(toc.NewTypes)
			col := w.f.Classes.Name
			if name == moarvmir.ReprName {
				col = w.f.Classes.Library
			}
			build = func() ([]byte, error) { return w.stringIndices(name, col[lo:hi], lo, true) }
		case moarvmir.FrameName, moarvmir.FrameCUID, moarvmir.FrameLine, moarvmir.FrameFile:
			lo, hi := tab.frames, tab.frames+int(toc.NewFrames)
			m := w.m
			col := map[string][]uint32{moarvmir.FrameName: m.FrameName, moarvmir.FrameCUID: m.FrameCUID, moarvmir.FrameLine: m.FrameLine, moarvmir.FrameFile: m.FrameFile}[name]
			build = func() ([]byte, error) { return w.stringIndices(name, col[lo:hi], lo, name != moarvmir.FrameLine) }
		default:
			build = sc.builder(name)
		}
		jobs = append(jobs, &job{name: name, build: build, done: make(chan struct{})})
	}
	w.run(jobs)
	var firstErr error
	for i, j := range jobs {
		if j == nil {
			if firstErr == nil {
				start := w.off
				w.jsonBlock(moarvmir.BlockSnapMeta, sc.snapMeta)
				entries = append(entries, tocEntry{order[i], start, w.off})
			}
			continue
		}
		<-j.done // every job is waited for, even after an error
		if firstErr != nil {
			continue
		}
		if j.err != nil {
			firstErr = j.err
			continue
		}
		start := w.off
		w.put(j.out)
		entries = append(entries, tocEntry{j.name, start, w.off})
		if w.werr != nil {
			firstErr = w.werr
			continue
		}
		if w.progress != nil {
			w.progress(w.off)
		}
	}
	if firstErr != nil {
		if firstErr == w.werr {
			return w.err()
		}
		if k >= 0 {
			return fmt.Errorf("moarvm: snapshot %d: %w", k, firstErr)
		}
		return fmt.Errorf("moarvm: final TOC: %w", firstErr)
	}
	tab.strings += int(toc.NewStrings)
	tab.types += int(toc.NewTypes)
	tab.frames += int(toc.NewFrames)
	start := w.off
	w.toc(entries)
	w.outer = append(w.outer, tocEntry{moarvmir.BlockTOC, start, start + moarvmir.TOCSize(int64(len(entries)))})
	return w.err()
}

// job builds one block's data and compresses it behind its header.
type job struct {
	name  string
	build func() ([]byte, error)
	out   []byte
	err   error
	done  chan struct{}
}

// run starts the jobs on up to w.workers goroutines, in order.
func (w *writer) run(jobs []*job) {
	var next atomic.Int64
	var real []*job
	for _, j := range jobs {
		if j != nil {
			real = append(real, j)
		}
	}
	for range min(w.workers, len(real)) {
		go func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(real) {
					return
				}
				j := real[i]
				raw, err := j.build()
				if err != nil {
					j.err = err
				} else {
					j.out = w.enc.EncodeAll(raw, blockHeader(j.name, len(raw)))
				}
				close(j.done)
			}
		}()
	}
}

// blockHeader returns the header of a compressed block (a column's, or the
// strings block's: a u64 0), with room for the frame.
func blockHeader(name string, rawLen int) []byte {
	b := make([]byte, 0, moarvmir.ColumnHeaderSize+rawLen/4+64)
	if moarvmir.EntrySize(name) > 0 {
		return moarvmir.AppendColumnHeader(b, name)
	}
	return moarvmir.AppendHeader(b, name, 0)
}

// jsonBlock writes a metadata block: its header, whose u64 counts the
// JSON and its NUL, the JSON, a NUL.
func (w *writer) jsonBlock(name, json string) {
	b := moarvmir.AppendHeader(make([]byte, 0, moarvmir.HeaderSize+len(json)+1), name, uint64(len(json)+1))
	b = append(b, json...)
	w.put(append(b, 0))
}

// toc writes a TOC of entries: its header, whose u64 counts them, the
// entries, and the pointer to the TOC itself.
func (w *writer) toc(entries []tocEntry) {
	start := w.off
	b := moarvmir.AppendHeader(make([]byte, 0, moarvmir.TOCSize(int64(len(entries)))+moarvmir.PointerSize), moarvmir.BlockTOC, uint64(len(entries)))
	for _, e := range entries {
		b = moarvmir.AppendTOCEntry(b, e.name, e.start, e.end)
	}
	w.put(binary.LittleEndian.AppendUint64(b, uint64(start)))
}

// put writes b; the first write error sticks and stops further writes.
func (w *writer) put(b []byte) {
	if w.werr != nil || len(b) == 0 {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.werr = err
}

// err returns the output's write error, if any.
func (w *writer) err() error {
	if w.werr != nil {
		return fmt.Errorf("moarvm: writing the output: %w", w.werr)
	}
	return nil
}

// stringHeap encodes strings [lo, hi) as {u32 len | bytes}.
func (w *writer) stringHeap(lo, hi int) ([]byte, error) {
	strs := w.f.Strings[lo:hi]
	size := 4 * len(strs)
	for _, s := range strs {
		size += len(s)
	}
	b := make([]byte, 0, size)
	for i, s := range strs {
		if uint64(len(s)) > math.MaxUint32 {
			return nil, fmt.Errorf("string %d is %d bytes long; the string heap stores lengths in 32 bits", lo+i, len(s))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b, nil
}

// stringIndices encodes a u32 column of the type or frame tables (entries
// from index lo on), checking string indices against the string heap.
func (w *writer) stringIndices(name string, col []uint32, lo int, strs bool) ([]byte, error) {
	b := make([]byte, 4*len(col))
	for i, v := range col {
		if strs && int(v) >= w.m.StringCount {
			return nil, fmt.Errorf("%s of entry %d: string %d is beyond the string heap (%d strings)", name, lo+i, v, w.m.StringCount)
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b, nil
}
