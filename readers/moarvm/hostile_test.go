package moarvm_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir/irtest"

	"github.com/klauspost/compress/zstd"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	"github.com/heapconv/heapconv/readers/moarvm"
	wmoarvm "github.com/heapconv/heapconv/writers/moarvm"
)

// Hostile and unusual version 3 files, built by hand: each test is a bug a
// review found, fixed.

// A minimal v3 file builder.

var rvEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))

type rvEnt struct {
	name       string
	start, end uint64
}

type rvFile struct {
	buf          bytes.Buffer
	inner, outer []rvEnt
}

const rvFileMeta = `{ "subversion": 1, "start_time": 1, "pid": 2, "highscore_structure": { "entry_count": 40, "data_order": ["types_by_count", "frames_by_count", "types_by_size", "frames_by_size"]}}`
const rvSnapMeta = `{ "snap_time": 3, "gc_seq_num": 1, "total_heap_size": 0, "total_objects": 0, "total_typeobjects": 0, "total_stables": 0, "total_frames": 0, "total_refs": 0 }`

func rvNew(filemeta string) *rvFile {
	f := &rvFile{}
	f.buf.WriteString(moarvmir.Magic3)
	f.meta("filemeta", filemeta)
	f.outer, f.inner = f.inner, nil
	return f
}

func (f *rvFile) off() uint64 { return uint64(f.buf.Len()) }

func (f *rvFile) name(s string) { var b [8]byte; copy(b[:], s); f.buf.Write(b[:]) }

func (f *rvFile) u64(v uint64) { binary.Write(&f.buf, binary.LittleEndian, v) }

func (f *rvFile) meta(name, js string) {
	st := f.off()
	f.name(name)
	f.u64(uint64(len(js) + 1))
	f.buf.WriteString(js + "\x00")
	f.inner = append(f.inner, rvEnt{name, st, f.off()})
}

func (f *rvFile) rawCol(name string, width int, frame []byte) {
	st := f.off()
	f.name(name)
	binary.Write(&f.buf, binary.LittleEndian, uint16(width))
	f.u64(0)
	f.buf.Write(frame)
	f.inner = append(f.inner, rvEnt{name, st, f.off()})
}

func (f *rvFile) col(name string, width int, vals []uint64) {
	raw := make([]byte, 0, width*len(vals))
	for _, v := range vals {
		raw = binary.LittleEndian.AppendUint64(raw, v)[:len(raw)+width]
	}
	f.rawCol(name, width, rvEnc.EncodeAll(raw, nil))
}

func (f *rvFile) strs(ss ...string) {
	var raw []byte
	for _, s := range ss {
		raw = append(binary.LittleEndian.AppendUint32(raw, uint32(len(s))), s...)
	}
	st := f.off()
	f.name("strings")
	f.u64(0)
	f.buf.Write(rvEnc.EncodeAll(raw, nil))
	f.inner = append(f.inner, rvEnt{"strings", st, f.off()})
}

func (f *rvFile) toc(es []rvEnt) (uint64, uint64) {
	st := f.off()
	f.name("toc")
	f.u64(uint64(len(es)))
	for _, e := range es {
		f.name(e.name)
		f.u64(e.start)
		f.u64(e.end)
	}
	end := f.off()
	f.u64(st)
	return st, end
}

func (f *rvFile) closeInner() {
	st, end := f.toc(f.inner)
	f.inner = nil
	f.outer = append(f.outer, rvEnt{"toc", st, end})
}

// snap writes a snapshot: Root (kind 9) -> Permanent Roots (kind 5).
// refs > 0 replaces it by a Root with refs unknown references to itself,
// with descr/target columns of width w; ss are the strings it adds.
func (f *rvFile) snap(refs, w int, ss ...string) {
	f.meta("snapmeta", rvSnapMeta)
	if refs == 0 {
		f.col("colkind", 2, []uint64{9, 5})
		f.col("colsize", 2, []uint64{0, 0})
		f.col("coltofi", 4, []uint64{0, 0})
		f.col("colrfcnt", 4, []uint64{1, 0})
		f.col("colrfstr", 8, []uint64{0, 0})
		f.col("colusize", 8, []uint64{0, 0})
		f.col("refdescr", 8, []uint64{0})
		f.col("reftrget", 8, []uint64{1})
	} else {
		f.col("colkind", 2, []uint64{9})
		f.col("colsize", 2, []uint64{0})
		f.col("coltofi", 4, []uint64{0})
		f.col("colrfcnt", 4, []uint64{uint64(refs)})
		f.col("colrfstr", 8, []uint64{0})
		f.col("colusize", 8, []uint64{0})
		f.col("refdescr", w, make([]uint64, refs))
		f.col("reftrget", w, make([]uint64, refs))
	}
	if len(ss) > 0 {
		f.strs(ss...)
	}
	f.closeInner()
	f.toc(f.outer) // outer copy
}

func (f *rvFile) finish() []byte {
	f.closeInner()
	f.toc(f.outer)
	return f.buf.Bytes()
}

// Recovery tells inner TOCs from outer-TOC copies: blocks after the last
// inner TOC (a final TOC that adds strings) do not join the last snapshot.
func TestRecoverNonEmptyFinalTOC(t *testing.T) {
	f := rvNew(rvFileMeta)
	f.snap(0, 0, "Permanent Roots")
	f.strs("added by the final TOC")
	data := f.finish()
	if _, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{}); err != nil {
		t.Fatal(err)
	}
	g, err := moarvm.Read(bytes.NewReader(data[:len(data)-8]), moarvm.Options{})
	if err != nil {
		t.Fatalf("tail cut by 8 bytes: %v", err)
	}
	if len(g.Snapshots) != 1 {
		t.Fatalf("%d snapshots recovered", len(g.Snapshots))
	}
}

// Same, from real data: Select(0) of nqp-3snap puts the later snapshots'
// strings and frame into the final TOC.
func TestRecoverSelected(t *testing.T) {
	f, err := moarvm.Read(bytes.NewReader(irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap")), moarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := f.Select(0)
	var buf bytes.Buffer
	if _, err := wmoarvm.Write(&buf, g, wmoarvm.Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if _, err := moarvm.Read(bytes.NewReader(out[:len(out)-8]), moarvm.Options{}); err != nil {
		t.Fatalf("tail cut by 8 bytes: %v", err)
	}
}

// Options.Progress is called from one goroutine at a time, though columns
// decompress in parallel (run with -race).
func TestProgressConcurrent(t *testing.T) {
	calls := 0
	_, err := moarvm.Read(bytes.NewReader(irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap")), moarvm.Options{
		Progress: func(int64) { calls++ }, // like cmd/heapconv's progress.update
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The decompression budget is spent in file order: whether and how a file
// fails does not depend on which column decompressed first.
func TestBudgetDeterministic(t *testing.T) {
	f := rvNew(rvFileMeta)
	f.snap(2_500_000, 8) // refdescr + reftrget = 40 MB; budget = 64*5 KB + 32 MiB
	data := f.finish()
	var res []string
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		_, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
		runtime.GOMAXPROCS(old)
		res = append(res, fmt.Sprint(err))
	}
	if res[0] != res[1] {
		t.Fatalf("GOMAXPROCS=1: %s\nGOMAXPROCS=2: %s", res[0], res[1])
	}
}

// An 8 KB file cannot make the reader hold hundreds of MB through 1-byte
// reference columns (9 bytes of IR per edge): MoarVM's entry sizes only.
func TestTinyFileSmallIR(t *testing.T) {
	f := rvNew(rvFileMeta)
	f.snap(32_000_000, 1)
	data := f.finish()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	g, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
	runtime.ReadMemStats(&ms)
	t.Logf("%d-byte file: %v, %d MB allocated", len(data), err, (ms.TotalAlloc-before)>>20)
	if err == nil && ms.TotalAlloc-before > 100*uint64(len(data))+64<<20 {
		t.Fatalf("%d-byte file: %d edges, %d MB allocated", len(data), g.Snapshots[0].Edges.Len(), (ms.TotalAlloc-before)>>20)
	}
}

// An outer TOC listing the same inner TOC again and again (each 24-byte entry
// a whole snapshot) is damage, not 100,000 snapshots.
func TestRepeatedInnerTOC(t *testing.T) {
	f := rvNew(rvFileMeta)
	f.snap(0, 0)
	tocEnt := f.outer[1]
	for i := 0; i < 100_000; i++ {
		f.outer = append(f.outer, tocEnt)
	}
	data := f.finish()
	g, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
	// The outer TOC is damaged; the one snapshot may be recovered.
	if err == nil && (len(g.Snapshots) != 1 || moarvmir.FileOf(g).Recovery == nil) {
		t.Fatalf("%d-byte file read as %d snapshots, recovery %+v", len(data), len(g.Snapshots), moarvmir.FileOf(g).Recovery)
	}
}

// A corrupt (here: cut) zstd frame in a column whose size is not known in
// advance is reported as corrupt, not as too big.
func TestCorruptFrameDiagnosis(t *testing.T) {
	kinds := make([]byte, 2*5000)
	for i := range 5000 {
		kinds[2*i] = byte(i * 7919 % 12)
	}
	fr := rvEnc.EncodeAll(kinds, nil)
	f := rvNew(rvFileMeta)
	f.meta("snapmeta", rvSnapMeta)
	f.rawCol("colkind", 2, fr[:len(fr)-10])
	for _, c := range []struct {
		name string
		w    int
	}{{"colsize", 2}, {"coltofi", 4}, {"colrfcnt", 4}, {"colrfstr", 8}, {"colusize", 8}, {"refdescr", 8}, {"reftrget", 8}} {
		f.col(c.name, c.w, nil)
	}
	f.closeInner()
	_, err := moarvm.Read(bytes.NewReader(f.finish()), moarvm.Options{})
	if err == nil || strings.Contains(err.Error(), "more than the file can need") {
		t.Fatalf("misdiagnosed: %v", err)
	}
}

// A 3 KB file declaring 64 boards of 2^20 highscore entries is refused, so
// that writing it back cannot compute gigabytes of boards.
func TestHighscoreBoardsBounded(t *testing.T) {
	var names []string
	for i := range 64 {
		names = append(names, fmt.Sprintf(`"b%d"`, i))
	}
	fm := `{ "subversion": 1, "start_time": 1, "pid": 2, "highscore_structure": { "entry_count": 1048576, "data_order": [` + strings.Join(names, ", ") + `]}}`
	f := rvNew(fm)
	f.snap(0, 0)
	g, err := moarvm.Read(bytes.NewReader(f.finish()), moarvm.Options{})
	if err != nil {
		return // refused when read
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var buf bytes.Buffer
	wmoarvm.Write(&buf, g, wmoarvm.Options{})
	runtime.ReadMemStats(&ms)
	if a := ms.TotalAlloc - before; a > 256<<20 {
		t.Fatalf("writing a 1-snapshot, 2-collectable file allocated %d MB", a>>20)
	}
}

// IR whose first TOC's types name strings a later TOC adds is invalid: the
// writer would make a file its reader refuses.
func TestTOCSplitRefused(t *testing.T) {
	f, err := moarvm.Read(bytes.NewReader(irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap")), moarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	moarvmir.FileOf(f).TOCs[0].NewStrings -= 100
	moarvmir.FileOf(f).TOCs[1].NewStrings += 100
	if err := f.Validate(); err != nil {
		return // not a valid file
	}
	var buf bytes.Buffer
	if _, err := wmoarvm.Write(&buf, f, wmoarvm.Options{}); err != nil {
		return // refused when written
	}
	if _, err := moarvm.Read(bytes.NewReader(buf.Bytes()), moarvm.Options{}); err != nil {
		t.Fatalf("writer produced a file its reader refuses: %v", err)
	}
}

// Reference counts whose sum wraps give an error with an offset.
func TestRefCountWrap(t *testing.T) {
	f := rvNew(rvFileMeta)
	f.meta("snapmeta", rvSnapMeta)
	f.col("colkind", 2, []uint64{9, 5})
	f.col("colsize", 2, []uint64{0, 0})
	f.col("coltofi", 4, []uint64{0, 0})
	f.col("colrfcnt", 8, []uint64{1 << 63, 1<<63 + 1})
	f.col("colrfstr", 8, []uint64{0, 0})
	f.col("colusize", 8, []uint64{0, 0})
	f.col("refdescr", 8, []uint64{0})
	f.col("reftrget", 8, []uint64{1})
	f.closeInner()
	_, err := moarvm.Read(bytes.NewReader(f.finish()), moarvm.Options{})
	if err == nil || strings.Contains(err.Error(), "internal error") {
		t.Fatalf("%v", err)
	}
}

// A zstd bomb: a strings block (a block of no declared size, so streamed)
// whose 50 KB decompress to 256 MiB. The budget (16 × the block + 1 MiB
// for strings; 64 × the file + 32 MiB in all) stops it before the memory
// goes: the snapshot before it is recovered, the damage named, and the
// read allocates a few times the budget at most.
func TestZstdBomb(t *testing.T) {
	var frame bytes.Buffer
	zw, err := zstd.NewWriter(&frame, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for i := 0; i < 256; i++ {
		zw.Write(zero)
	}
	zw.Close()
	f := rvNew(rvFileMeta)
	f.snap(0, 8)
	st := f.off()
	f.name("strings")
	f.u64(0)
	f.buf.Write(frame.Bytes())
	f.inner = append(f.inner, rvEnt{"strings", st, f.off()})
	data := f.finish()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
	runtime.ReadMemStats(&after)
	const want = "more than the file can need"
	switch {
	case err != nil && !strings.Contains(err.Error(), want):
		t.Fatalf("a %d-byte file holding 256 MiB of strings: %v", len(data), err)
	case err == nil && (moarvmir.FileOf(g).Recovery == nil || !strings.Contains(moarvmir.FileOf(g).Recovery.Reason, want) || len(g.Snapshots) != 1):
		t.Fatalf("a %d-byte file holding 256 MiB of strings read, %d snapshots, recovery %+v", len(data), len(g.Snapshots), moarvmir.FileOf(g).Recovery)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*(64*uint64(len(data))+32<<20) {
		t.Fatalf("a %d-byte bomb allocated %d bytes", len(data), n)
	}
}
