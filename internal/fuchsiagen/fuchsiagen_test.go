package fuchsiagen

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/internal/gotool"
)

// decode parses a profile the way a Fuchsia reader should: gunzip if the
// gzip magic is there, then ParseUncompressed (no mapping massaging, so
// ffx's mapping IDs and order survive).
func decode(t *testing.T, data []byte) *profile.Profile {
	t.Helper()
	raw := gunzipIf(t, data)
	p, err := profile.ParseUncompressed(raw)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("invalid profile: %v", err)
	}
	return p
}

func gunzipIf(t *testing.T, data []byte) []byte {
	t.Helper()
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// topFields returns the top-level protobuf fields of a profile in order,
// and the string table.
func topFields(t *testing.T, raw []byte) (fields []int, strs []string) {
	t.Helper()
	for len(raw) > 0 {
		key, n := binary.Uvarint(raw)
		if n <= 0 {
			t.Fatal("bad varint")
		}
		raw = raw[n:]
		f, wt := int(key>>3), key&7
		fields = append(fields, f)
		switch wt {
		case 0:
			_, n = binary.Uvarint(raw)
			raw = raw[n:]
		case 2:
			l, n := binary.Uvarint(raw)
			if f == 6 {
				strs = append(strs, string(raw[n:n+int(l)]))
			}
			raw = raw[n+int(l):]
		default:
			t.Fatalf("unexpected wire type %d", wt)
		}
	}
	return fields, strs
}

func profileOf(t *testing.T, snaps []*Snapshot, o WriteOptions) (*profile.Profile, []byte) {
	t.Helper()
	data, err := ProfileBytes(snaps, o)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data), data
}

func checkSampleTypes(t *testing.T, p *profile.Profile, data []byte) {
	t.Helper()
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "objects" || p.SampleType[0].Unit != "count" ||
		p.SampleType[1].Type != "allocated" || p.SampleType[1].Unit != "bytes" {
		t.Fatalf("sample types %v", p.SampleType)
	}
	if p.PeriodType != nil && (p.PeriodType.Type != "" || p.PeriodType.Unit != "") || p.Period != 0 || p.TimeNanos != 0 || p.DurationNanos != 0 || len(p.Comments) != 0 ||
		p.DefaultSampleType != "" || p.DropFrames != "" || p.KeepFrames != "" {
		t.Fatalf("fields ffx never sets are set: %+v", p)
	}
	fields, strs := topFields(t, gunzipIf(t, data))
	if len(strs) == 0 || strs[0] != "" {
		t.Fatalf("string table does not start with \"\": %q", strs)
	}
	if strs[1] != "objects" || strs[2] != "count" || strs[3] != "allocated" || strs[4] != "bytes" {
		t.Errorf("string table starts %q, want objects, count, allocated, bytes", strs[:5])
	}
	for _, f := range fields {
		switch f {
		case 1, 2, 3, 4, 5, 6:
		case 14: // default_sample_type = 0, which the Go library always writes
		default:
			t.Errorf("top-level field %d is set", f)
		}
	}
	for _, m := range p.Mapping {
		if m.ID == 0 {
			t.Error("mapping ID 0 is reserved")
		}
	}
	for _, l := range p.Location {
		if l.ID == 0 {
			t.Error("location ID 0 is reserved")
		}
		if l.IsFolded {
			t.Error("is_folded set")
		}
	}
}

func locAddrs(s *profile.Sample) []uint64 {
	var a []uint64
	for _, l := range s.Location {
		a = append(a, l.Address)
	}
	return a
}

func eqU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func labelKeys(s *profile.Sample) []string {
	var k []string
	for key := range s.Label {
		k = append(k, key)
	}
	for key := range s.NumLabel {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// checkFFXMappings checks the mappings and location resolution that ffx's
// tests assert.
func checkFFXMappings(t *testing.T, p *profile.Profile, named, sorted bool) {
	t.Helper()
	if len(p.Mapping) != 2 {
		t.Fatalf("%d mappings", len(p.Mapping))
	}
	byStart := map[uint64]*profile.Mapping{}
	for _, m := range p.Mapping {
		byStart[m.Start] = m
	}
	m1, m2 := byStart[FFXMap1Address], byStart[FFXMap2Address]
	if m1 == nil || m2 == nil {
		t.Fatal("mappings not found by start")
	}
	if sorted && (p.Mapping[0] != m1 || p.Mapping[1] != m2) {
		t.Error("mappings not sorted by start")
	}
	if m1.Limit != FFXMap1Address+FFXMap1Size || m1.Offset != FFXMap1FileOffset || m1.BuildID != FFXMap1BuildID ||
		m2.Limit != FFXMap2Address+FFXMap2Size || m2.Offset != FFXMap2FileOffset || m2.BuildID != FFXMap2BuildID {
		t.Errorf("mappings %+v %+v", m1, m2)
	}
	wantName1, wantName2 := "", ""
	if named {
		wantName1, wantName2 = FFXMap1Name, FFXMap2Name
	}
	if m1.File != wantName1 || m2.File != wantName2 {
		t.Errorf("mapping files %q %q", m1.File, m2.File)
	}
	if len(p.Location) != 5 {
		t.Fatalf("%d locations", len(p.Location))
	}
	want := map[uint64]*profile.Mapping{FFXLoc1: m1, FFXLoc2: m2, FFXLoc3: m2, FFXLoc4: nil, FFXLoc5: nil}
	for _, l := range p.Location {
		m, ok := want[l.Address]
		if !ok {
			t.Errorf("unexpected location 0x%x", l.Address)
			continue
		}
		if l.Mapping != m {
			t.Errorf("location 0x%x: mapping %v, want %v", l.Address, l.Mapping, m)
		}
		if len(l.Line) != 0 {
			t.Errorf("location 0x%x has lines", l.Address)
		}
	}
}

func TestFFXUnitTestCurrent(t *testing.T) {
	for _, era := range []Era{EraCurrent, EraNewest} {
		t.Run(era.String()+"/aggregated", func(t *testing.T) {
			p, data := profileOf(t, []*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: era})
			checkSampleTypes(t, p, data)
			checkFFXMappings(t, p, true, true)
			if len(p.Sample) != 2 {
				t.Fatalf("%d samples", len(p.Sample))
			}
			// Sorted by location ids: A first.
			a, b := p.Sample[0], p.Sample[1]
			if !eqU64(locAddrs(a), FFXStackA) || a.Value[0] != 1 || a.Value[1] != 0x1800 {
				t.Errorf("A: %v %v", locAddrs(a), a.Value)
			}
			if !eqU64(locAddrs(b), FFXStackB) || b.Value[0] != 4 || b.Value[1] != 0xC030 {
				t.Errorf("B: %v %v", locAddrs(b), b.Value)
			}
			for _, s := range p.Sample {
				if len(labelKeys(s)) != 0 {
					t.Errorf("aggregated sample has labels %v", labelKeys(s))
				}
			}
			if (data[0] == 0x1f) != (era == EraNewest) {
				t.Errorf("era %v: gzip = %v", era, data[0] == 0x1f)
			}
		})
		t.Run(era.String()+"/tags", func(t *testing.T) {
			p, data := profileOf(t, []*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: era, WithTags: true})
			checkSampleTypes(t, p, data)
			checkFFXMappings(t, p, true, true)
			if len(p.Sample) != 3 {
				t.Fatalf("%d samples", len(p.Sample))
			}
			type want struct {
				addr   string
				stack  []uint64
				count  int64
				ts     int64
				thread string
			}
			wants := map[int64]want{
				0x1800: {"0x611000", FFXStackA, 1, FFXAlloc1TS, "thread-1[1234]"},
				0x30:   {"0x624000", FFXStackB, 1, FFXAlloc2TS, "thread-2[5678]"},
				0xC000: {"", FFXStackB, 3, FFXAlloc3TS, "thread-3[9999]"},
			}
			for _, s := range p.Sample {
				size := s.NumLabel["bytes"][0]
				w, ok := wants[size]
				if !ok {
					t.Fatalf("sample of %d bytes", size)
				}
				keys := strings.Join(labelKeys(s), ",")
				wantKeys := "address,bytes,thread,timestamp"
				if w.addr == "" {
					wantKeys = "bytes,thread,timestamp"
				} else if s.Label["address"][0] != w.addr {
					t.Errorf("address %v", s.Label["address"])
				}
				if keys != wantKeys {
					t.Errorf("labels %s, want %s", keys, wantKeys)
				}
				if s.NumUnit["bytes"][0] != "bytes" || s.NumUnit["timestamp"][0] != "nanoseconds" {
					t.Errorf("units %v", s.NumUnit)
				}
				if s.Value[0] != w.count || s.Value[1] != size || s.NumLabel["timestamp"][0] != w.ts || s.Label["thread"][0] != w.thread {
					t.Errorf("sample %v %v", s.Value, s)
				}
				if !eqU64(locAddrs(s), w.stack) {
					t.Errorf("stack %v", locAddrs(s))
				}
			}
			// Location ids are first-seen: A's frames, then B's new ones.
			var ids []uint64
			for _, l := range p.Location {
				ids = append(ids, l.Address)
			}
			if !eqU64(ids, []uint64{FFXLoc1, FFXLoc2, FFXLoc3, FFXLoc4, FFXLoc5}) || p.Location[0].ID != 1 || p.Location[4].ID != 5 {
				t.Errorf("location order %x", ids)
			}
		})
	}
}

func TestFFXUnitTestOldEras(t *testing.T) {
	p, data := profileOf(t, []*Snapshot{FFXTestSnapshot2023()}, WriteOptions{Era: Era2023})
	checkSampleTypes(t, p, data)
	checkFFXMappings(t, p, false, false)
	if len(p.Sample) != 2 {
		t.Fatalf("%d samples", len(p.Sample))
	}
	for _, s := range p.Sample {
		if strings.Join(labelKeys(s), ",") != "address,bytes" || s.Value[0] != 1 || s.Value[1] != s.NumLabel["bytes"][0] || s.NumUnit["bytes"][0] != "bytes" {
			t.Errorf("2023 sample %v %v", s.Value, labelKeys(s))
		}
	}
	if data[0] == 0x1f {
		t.Error("2023 export is gzipped")
	}

	p, data = profileOf(t, []*Snapshot{FFXTestSnapshotWithTags()}, WriteOptions{Era: EraWithTags, WithTags: true})
	checkSampleTypes(t, p, data)
	checkFFXMappings(t, p, false, false)
	if len(p.Sample) != 3 {
		t.Fatalf("%d samples", len(p.Sample))
	}
	for _, s := range p.Sample {
		if strings.Join(labelKeys(s), ",") != "address,bytes,thread,timestamp" || s.Value[0] != 1 {
			t.Errorf("with-tags sample %v %v", s.Value, labelKeys(s))
		}
		if s.NumLabel["bytes"][0] == 0xC000 && s.Label["address"][0] != "0x756000" {
			t.Errorf("third allocation at %v", s.Label["address"])
		}
	}

	p, data = profileOf(t, []*Snapshot{FFXTestSnapshotWithTags()}, WriteOptions{Era: EraWithTags})
	checkSampleTypes(t, p, data)
	got := map[string][]int64{}
	for _, s := range p.Sample {
		got[fmt.Sprint(locAddrs(s))] = s.Value
	}
	if a := got[fmt.Sprint(FFXStackA)]; len(p.Sample) != 2 || a[0] != 1 || a[1] != 0x1800 {
		t.Errorf("A %v", a)
	}
	if b := got[fmt.Sprint(FFXStackB)]; b[0] != 2 || b[1] != 0xC030 {
		t.Errorf("B %v", b)
	}

	// Old eras need the fields their snapshot model required.
	if _, err := BuildProfile([]*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: Era2023}); err == nil {
		t.Error("2023 export accepted an allocation without address")
	}
	if _, err := BuildProfile([]*Snapshot{FFXTestSnapshot2023()}, WriteOptions{Era: EraWithTags}); err == nil {
		t.Error("with-tags era accepted an allocation without thread")
	}
}

func TestFFXUnitTestAggregatedAndTwoSnapshots(t *testing.T) {
	p, data := profileOf(t, []*Snapshot{FFXTestAggregatedSnapshot()}, WriteOptions{Era: EraCurrent, WithTags: true})
	checkSampleTypes(t, p, data)
	checkFFXMappings(t, p, true, true)
	for _, s := range p.Sample {
		if strings.Join(labelKeys(s), ",") != "bytes" || s.NumUnit["bytes"][0] != "bytes" {
			t.Errorf("labels %v", labelKeys(s))
		}
	}
	p, data = profileOf(t, []*Snapshot{FFXTestAggregatedSnapshot()}, WriteOptions{Era: EraCurrent})
	checkSampleTypes(t, p, data)
	if len(p.Sample) != 2 || p.Sample[0].Value[0] != 1 || p.Sample[0].Value[1] != 0x1800 || p.Sample[1].Value[0] != 4 || p.Sample[1].Value[1] != 0xC030 {
		t.Errorf("aggregated %v %v", p.Sample[0].Value, p.Sample[1].Value)
	}

	p, data = profileOf(t, FFXTestTwoSnapshots(), WriteOptions{Era: EraCurrent, WithTags: true})
	checkSampleTypes(t, p, data)
	if len(p.Sample) != 2 || len(p.Mapping) != 2 || p.Mapping[0].ID != 1 || p.Mapping[1].ID != 2 || len(p.Location) != 5 {
		t.Fatalf("%d samples, %d mappings, %d locations", len(p.Sample), len(p.Mapping), len(p.Location))
	}
	for _, s := range p.Sample {
		switch s.Value[1] {
		case FFXAlloc1Size:
			if s.NumLabel[FFXExtraLabelKey][0] != FFXExtraLabelNum || !eqU64(locAddrs(s), FFXStackB) || len(s.NumUnit[FFXExtraLabelKey]) != 0 {
				t.Errorf("first snapshot sample %v", s)
			}
		case FFXAlloc2Size:
			if s.Label[FFXExtraLabelKey][0] != FFXExtraLabelStr || !eqU64(locAddrs(s), FFXStackC) {
				t.Errorf("second snapshot sample %v", s)
			}
		default:
			t.Errorf("sample %v", s.Value)
		}
	}
	if p.Location[3].Address != FFXLoc2 || p.Location[3].Mapping != p.Mapping[1] {
		t.Error("second snapshot's locations do not continue the ids")
	}
}

func TestDeterminism(t *testing.T) {
	o := Options{Seed: 42, Allocations: 1500, Processes: 2, Contents: true, EdgeCases: true, Kernel: true}
	w := WriteOptions{Era: EraNewest, WithTags: true, MultiProcess: true, Symbolize: true}
	gen := func(o Options) ([]byte, *Heap) {
		h, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		w.Symbolizer = h.Symbols
		b, err := ProfileBytes(h.Snapshots, w)
		if err != nil {
			t.Fatal(err)
		}
		return b, h
	}
	b1, h1 := gen(o)
	b2, h2 := gen(o)
	if !bytes.Equal(b1, b2) {
		t.Fatal("same seed, different profile bytes")
	}
	for i := range h1.Snapshots {
		for j := range h1.Snapshots[i].Allocations {
			if !bytes.Equal(h1.Snapshots[i].Allocations[j].Contents, h2.Snapshots[i].Allocations[j].Contents) {
				t.Fatalf("same seed, different contents (snapshot %d, allocation %d)", i, j)
			}
		}
	}
	// Contents do not change the rest of the heap.
	o2 := o
	o2.Contents = false
	b3, _ := gen(o2)
	if !bytes.Equal(b1, b3) {
		t.Error("Options.Contents changes the profile")
	}
	o2 = o
	o2.Seed = 43
	if b4, _ := gen(o2); bytes.Equal(b1, b4) {
		t.Error("different seeds, same bytes")
	}
}

// runPprof runs `go tool pprof -top` and `-raw` (pprof, the binary
// gotool.Pprof finds) on a file and fails the test if pprof rejects it.
func runPprof(t *testing.T, pprof, file string, samples int) {
	t.Helper()
	if !gotool.UsesTool() {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := gotool.Raw(data)
		if err != nil {
			t.Errorf("pprof's parser: %s: %v", file, err)
		} else if samples > 0 && !strings.Contains(raw, "Samples:") {
			t.Errorf("pprof's parser: %s: no samples", file)
		}
		return
	}
	dir := t.TempDir()
	for _, mode := range []string{"-top", "-raw"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, pprof, mode, file)
		cmd.Dir = dir // no module, no local binaries to symbolize with
		cmd.Env = append(os.Environ(), "PPROF_BINARY_PATH="+dir, "PPROF_TMPDIR="+dir)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("go tool pprof %s %s: %v\n%s", mode, file, err, out)
			continue
		}
		want := "Showing nodes"
		if mode == "-raw" {
			want = "Samples:"
		}
		if samples > 0 && !bytes.Contains(out, []byte(want)) {
			t.Errorf("go tool pprof %s %s: no %q in output:\n%s", mode, file, want, out)
		}
	}
}

func TestPprofAcceptsFiles(t *testing.T) {
	pprof := ""
	if gotool.UsesTool() {
		var err error
		if pprof, err = gotool.Pprof(); err != nil {
			t.Fatal(err)
		}
	}
	type job struct {
		file    string
		samples int
	}
	var jobs []job
	fixtures, err := filepath.Glob("../../testdata/fuchsia/*.pb*")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range fixtures {
		abs, _ := filepath.Abs(f)
		jobs = append(jobs, job{abs, 1})
	}
	// Freshly generated files in every era and mode.
	dir := t.TempDir()
	h, err := Generate(Options{Seed: 11, Allocations: 800, Processes: 3, Kernel: true, EdgeCases: true})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := Generate(Options{Seed: 12, Allocations: 800})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range []Era{Era2023, EraWithTags, EraCurrent, EraNewest} {
		for _, tags := range []bool{false, true} {
			w := WriteOptions{Era: era, WithTags: tags}
			snaps := hs.Snapshots
			if era >= EraCurrent {
				w.MultiProcess, w.Symbolize, w.Symbolizer, snaps = true, tags, h.Symbols, h.Snapshots
			}
			f := filepath.Join(dir, fmt.Sprintf("%v-%v.pb", era, tags))
			data, err := ProfileBytes(snaps, w)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{f, 1})
		}
	}
	var wg sync.WaitGroup
	sem := make(chan bool, 4)
	for _, j := range jobs {
		wg.Add(1)
		go func(j job) {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			runPprof(t, pprof, j.file, j.samples)
		}(j)
	}
	wg.Wait()
}

func TestContentsDir(t *testing.T) {
	h, err := Generate(Options{Seed: 5, Allocations: 600, Processes: 2, Contents: true, UnreadablePermille: 50, EdgeCases: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, multi := range []bool{false, true} {
		snaps := h.Snapshots
		if !multi {
			snaps = snaps[:1]
		}
		dir := filepath.Join(t.TempDir(), "contents")
		prof := filepath.Join(t.TempDir(), "p.pb")
		if err := WriteSnapshotCommand(prof, dir, snaps, WriteOptions{Era: EraCurrent, MultiProcess: multi}); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]bool{}
		for _, e := range ents {
			files[e.Name()] = true
		}
		want, unreadable, empty := 0, 0, 0
		for _, s := range snaps {
			for i := range s.Allocations {
				a := &s.Allocations[i]
				name := ContentsFileName(s.ProcessKoid, a.Address, multi)
				if a.Contents == nil {
					unreadable++
					if files[name] {
						t.Errorf("unreadable block has a file %s", name)
					}
					continue
				}
				want++
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if uint64(len(got)) != a.Size || !bytes.Equal(got, a.Contents) {
					t.Fatalf("%s: %d bytes, size %d", name, len(got), a.Size)
				}
				if len(got) == 0 {
					empty++
				}
				if multi != strings.Contains(name, "-") || !strings.Contains(name, fmt.Sprintf("0x%x", a.Address)) {
					t.Errorf("file name %s", name)
				}
			}
		}
		if len(files) != want || unreadable == 0 || empty == 0 {
			t.Errorf("%d files for %d readable blocks (%d unreadable, %d empty)", len(files), want, unreadable, empty)
		}
		// --output-contents-dir forces --with-tags: the address label of
		// each readable block names its file (single process).
		data, _ := os.ReadFile(prof)
		p := decode(t, data)
		n := 0
		for _, s := range p.Sample {
			if a := s.Label["address"]; len(a) == 1 && !multi && files[a[0]] {
				n++
			}
			if multi && (len(s.Label["process_name"]) != 1 || len(s.NumLabel["process_koid"]) != 1) {
				t.Errorf("multi-process sample without process labels: %v", labelKeys(s))
			}
		}
		if !multi && n != want {
			t.Errorf("%d samples name a contents file, want %d", n, want)
		}
		// The directory must be empty.
		if err := WriteContentsDir(dir, snaps, multi); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("non-empty directory accepted: %v", err)
		}
	}
	// Contents without an address cannot be dumped.
	bad := FFXTestSnapshot()
	bad.Allocations[2].Contents = make([]byte, FFXAlloc3Size)
	if err := WriteContentsDir(filepath.Join(t.TempDir(), "x"), []*Snapshot{bad}, false); err == nil {
		t.Error("contents without address accepted")
	}
}

// blockIndex finds the block containing an address.
type blockIndex struct {
	start, end []uint64
}

func newBlockIndex(s *Snapshot) *blockIndex {
	type iv struct{ a, b uint64 }
	var ivs []iv
	for i := range s.Allocations {
		a := &s.Allocations[i]
		if a.HasAddress {
			ivs = append(ivs, iv{a.Address, a.Address + a.Size})
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].a < ivs[j].a })
	x := &blockIndex{}
	for _, v := range ivs {
		x.start = append(x.start, v.a)
		x.end = append(x.end, v.b)
	}
	return x
}

func (x *blockIndex) find(addr uint64) (uint64, bool) {
	i := sort.Search(len(x.start), func(i int) bool { return x.start[i] > addr }) - 1
	if i < 0 || addr >= x.end[i] {
		return 0, false
	}
	return x.start[i], true
}

func TestPointerDensity(t *testing.T) {
	for _, prog := range ProgramNames() {
		t.Run(prog, func(t *testing.T) {
			h, err := Generate(Options{Seed: 77, Allocations: 5000, Processes: 3, Programs: []string{prog, prog, prog}, Contents: true})
			if err != nil {
				t.Fatal(err)
			}
			var withContents, withPtr, ptrs, interior, tagged, mte int
			for _, s := range h.Snapshots {
				x := newBlockIndex(s)
				for i := range s.Allocations {
					a := &s.Allocations[i]
					if a.Contents == nil {
						continue
					}
					withContents++
					has := false
					for off := 0; off+8 <= len(a.Contents); off += 8 {
						w := binary.LittleEndian.Uint64(a.Contents[off:])
						v := w &^ (0xff << 56)
						start, ok := x.find(v)
						if !ok || start == a.Address {
							continue
						}
						has = true
						ptrs++
						if v != start {
							interior++
						}
						switch w >> 56 {
						case 0:
						case 0xb4:
							tagged++
						default:
							mte++
						}
					}
					if has {
						withPtr++
					}
				}
			}
			t.Logf("%s: %d/%d blocks with contents hold pointers to other blocks; %d pointers, %d interior, %d 0xb4-tagged, %d MTE-tagged",
				prog, withPtr, withContents, ptrs, interior, tagged, mte)
			if withPtr*100 < withContents*30 {
				t.Errorf("only %d of %d blocks with contents point to another block", withPtr, withContents)
			}
			if interior == 0 || tagged == 0 || mte == 0 {
				t.Errorf("want interior, 0xb4-tagged and MTE-tagged pointers: %d %d %d", interior, tagged, mte)
			}
		})
	}
}

func TestGeneratedInvariants(t *testing.T) {
	h, err := Generate(Options{Seed: 3, Allocations: 3000, Processes: 3, Kernel: true, Contents: true, EdgeCases: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Snapshots) != 4 {
		t.Fatalf("%d snapshots", len(h.Snapshots))
	}
	hooks := map[string]bool{
		"_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_allocate_hook::{closure#0}>":         true,
		"_core_rustc_static::hooks::with_profiler_and_call_site::<_core_rustc_static::hooks::__scudo_realloc_allocate_hook::{closure#0}>": true,
		"__sanitizer_fast_backtrace": true,
	}
	for _, s := range h.Snapshots[:3] {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if n := len(s.Allocations); n < 3000 || n > 3500 {
			t.Errorf("%s: %d allocations", s.ProcessName, n)
		}
		var last int64
		deep, realloc := 0, 0
		threads := map[Thread]bool{}
		for i := range s.Allocations {
			a := &s.Allocations[i]
			if !a.HasAddress || a.Thread == nil || !a.HasTimestamp || a.EffectiveCount() != 1 {
				t.Fatalf("%s: allocation %d lacks fields", s.ProcessName, i)
			}
			if len(a.Stack) > 64 {
				t.Fatalf("%d frames", len(a.Stack))
			}
			if len(a.Stack) == 64 {
				deep++
			}
			if a.Timestamp > 0 && a.Timestamp < last {
				t.Errorf("timestamps decrease at %d", i)
			}
			if a.Timestamp > 0 {
				last = a.Timestamp
			}
			threads[*a.Thread] = true
			if a.Address%16 != 0 && a.Size < 64<<10 {
				t.Errorf("block 0x%x not 16-aligned", a.Address)
			}
			// The leaf frame is the hook (or the backtrace function).
			r, frames := resolvePC(t, h, s, a.Stack[0])
			if r == nil || len(frames) == 0 || !hooks[frames[len(frames)-1].Function] {
				t.Fatalf("%s: leaf frame 0x%x is %v", s.ProcessName, a.Stack[0], frames)
			}
			if _, f := resolvePC(t, h, s, a.Stack[1]); len(f) > 0 && f[len(f)-1].Function == "__scudo_realloc_allocate_hook" {
				realloc++
			}
		}
		t.Logf("%s: %d regions, %d threads, %d stacks at 64 frames, %d reallocs", s.ProcessName, len(s.Regions), len(threads), deep, realloc)
		if len(threads) < 2 || deep == 0 {
			t.Errorf("%s: %d threads, %d deep stacks", s.ProcessName, len(threads), deep)
		}
	}
	k := h.Snapshots[3]
	if k.ProcessName != "kernel" || k.ProcessKoid != 1 || len(k.Regions) != 1 || k.Regions[0].Name != "" ||
		k.Regions[0].FileOffset != k.Regions[0].Address-k.Regions[0].Vaddr {
		t.Errorf("kernel snapshot %+v", k.Regions)
	}
	multi := 0
	for _, a := range k.Allocations {
		if a.HasAddress || a.Thread != nil || a.HasTimestamp || a.Count == 0 {
			t.Fatalf("kernel allocation %+v", a)
		}
		if a.Count > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Error("no kernel entry with count > 1")
	}
}

// resolvePC symbolizes a PC of snapshot s with the generated symbols.
func resolvePC(t *testing.T, h *Heap, s *Snapshot, pc uint64) (*Region, []Frame) {
	for i := range s.Regions {
		r := &s.Regions[i]
		if pc >= r.Address && pc < r.Limit() {
			f, err := h.Symbols.Resolve(r.BuildID, pc-(r.Address-r.Vaddr))
			if err != nil {
				return r, nil
			}
			return r, f
		}
	}
	return nil, nil
}

func TestSymbolized(t *testing.T) {
	h, err := Generate(Options{Seed: 5, Allocations: 2000, Programs: []string{"audio_core"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range []Era{EraCurrent, EraNewest} {
		p, data := profileOf(t, h.Snapshots, WriteOptions{Era: era, WithTags: true, Symbolize: true, Symbolizer: h.Symbols})
		checkSampleTypes(t, p, data)
		names := map[[2]string]bool{}
		for _, f := range p.Function {
			k := [2]string{f.Name, f.Filename}
			if names[k] {
				t.Errorf("function %v twice", k)
			}
			names[k] = true
			if f.SystemName != "" || f.StartLine != 0 {
				t.Errorf("function %+v sets fields ffx leaves empty", f)
			}
		}
		withLines := map[*profile.Mapping]bool{}
		inlined := 0
		for _, l := range p.Location {
			if len(l.Line) > 0 {
				withLines[l.Mapping] = true
			}
			if len(l.Line) > 1 {
				inlined++
			}
		}
		resolved, vendor := 0, false
		for _, m := range p.Mapping {
			flags := m.HasFunctions && m.HasFilenames && m.HasLineNumbers && m.HasInlineFrames
			if flags {
				resolved++
			}
			if withLines[m] && !flags {
				t.Errorf("mapping %s has symbolized locations but no has_* flags", m.File)
			}
			if m.File == "libvendor_dsp.so" {
				vendor = true
				if flags || withLines[m] {
					t.Errorf("prebuilt without symbols was resolved")
				}
			}
		}
		if len(p.Function) < 20 || inlined == 0 || resolved < 3 || !vendor {
			t.Errorf("%v: %d functions, %d inlined locations, %d resolved mappings, vendor %v", era, len(p.Function), inlined, resolved, vendor)
		}
	}
}

func TestFixturesUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFixtures(dir); err != nil {
		t.Fatal(err)
	}
	const committed = "../../testdata/fuchsia"
	var gen []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		gen = append(gen, rel)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil {
			t.Errorf("%s: not committed (run scripts/gen-fuchsia-fixtures.sh)", rel)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s: differs from what the generator makes (run scripts/gen-fuchsia-fixtures.sh)", rel)
		}
		if !strings.Contains(rel, string(filepath.Separator)) && info.Size() >= 100<<10 {
			t.Errorf("%s: %d bytes, fixtures must stay under 100 KB", rel, info.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.Walk(committed, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n++
		}
		return nil
	})
	if n != len(gen) {
		t.Errorf("testdata/fuchsia has %d files, the generator makes %d", n, len(gen))
	}
	// The contents directories stay small too.
	for _, f := range Fixtures() {
		if f.ContentsDir == "" {
			continue
		}
		var total int64
		filepath.Walk(filepath.Join(dir, f.ContentsDir), func(path string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				total += info.Size()
			}
			return nil
		})
		if total >= 100<<10 {
			t.Errorf("%s: %d bytes of contents", f.ContentsDir, total)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Options{Seed: int64(i), Allocations: 20000, Contents: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStreamFixturesUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := WriteStreamFixtures(dir); err != nil {
		t.Fatal(err)
	}
	const committed = "../../testdata/fuchsia-fidl"
	gen, _ := filepath.Glob(filepath.Join(dir, "*"))
	have, _ := filepath.Glob(filepath.Join(committed, "*"))
	if len(gen) != len(have) {
		t.Errorf("testdata/fuchsia-fidl has %d files, the generator makes %d", len(have), len(gen))
	}
	for _, path := range gen {
		name := filepath.Base(path)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("%s: not committed (run scripts/gen-fuchsia-fixtures.sh)", name)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s: differs from what the generator makes (run scripts/gen-fuchsia-fixtures.sh)", name)
		}
		if len(want) >= 100<<10 {
			t.Errorf("%s: %d bytes, fixtures must stay under 100 KB", name, len(want))
		}
	}
}

// TestStreamsReassemble checks that every stream fixture obeys the receive
// rules and holds what it was made from.
func TestStreamsReassemble(t *testing.T) {
	for _, fx := range StreamFixtures() {
		data, snaps, _, err := fx.Make()
		if err != nil {
			t.Fatal(err)
		}
		st, err := fidl.ReadStream(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		got, err := st.Reassemble()
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		if snaps == nil {
			continue
		}
		if len(got) != len(snaps) {
			t.Fatalf("%s: %d snapshots, want %d", fx.Name, len(got), len(snaps))
		}
		for k, s := range snaps {
			g := &got[k]
			if len(g.Allocations) != len(s.Allocations) || len(g.Regions) != len(s.Regions) {
				t.Errorf("%s: snapshot %d: %d allocations, %d regions; want %d, %d", fx.Name, k, len(g.Allocations), len(g.Regions), len(s.Allocations), len(s.Regions))
			}
			for i, ai := range g.Allocations {
				a, want := &st.Allocations[ai], &s.Allocations[i]
				if a.Size != want.Size || a.Address != want.Address || !slices.Equal(g.StackTraces[a.StackTraceKey], want.Stack) {
					t.Fatalf("%s: snapshot %d: allocation %d differs", fx.Name, k, i)
				}
				if want.Contents != nil && !bytes.Equal(g.Contents[a.Address], want.Contents) {
					t.Fatalf("%s: snapshot %d: allocation %d: contents differ", fx.Name, k, i)
				}
			}
		}
	}
}
