package fuchsiagen

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The fake snapshots of ffx's own unit tests
// (src/developer/ffx/plugins/profile/heapdump/common/src/pprof.rs),
// with the exact values the tests use.

// Values of the ffx pprof.rs tests.
const (
	FFXMap1Address    = 0x2000
	FFXMap1Size       = 0x1000
	FFXMap1FileOffset = 0x1000
	FFXMap1Vaddr      = 0x2000
	FFXMap1BuildID    = "112233441122334411223344"
	FFXMap1Name       = "map-1"
	FFXMap2Address    = 0x8000
	FFXMap2Size       = 0x2000
	FFXMap2FileOffset = 0
	FFXMap2Vaddr      = 0x3000
	FFXMap2BuildID    = "556677885566778855667788"
	FFXMap2Name       = "map-2"
	FFXLoc1           = 0x2500 // in MAP_1
	FFXLoc2           = 0x8900 // in MAP_2
	FFXLoc3           = 0x9100 // in MAP_2
	FFXLoc4           = 0      // in no mapping
	FFXLoc5           = 0x5123 // in no mapping
	FFXAlloc1Address  = 0x611000
	FFXAlloc1Size     = 0x1800
	FFXAlloc1TS       = 8777777777778
	FFXAlloc2Address  = 0x624000
	FFXAlloc2Size     = 0x30
	FFXAlloc2TS       = 9333333333333
	FFXAlloc3Address  = 0x756000 // only in the with-tags era test
	FFXAlloc3Size     = 0xC000
	FFXAlloc3Count    = 3 // current test: no address, count 3
	FFXAlloc3TS       = 9876543211111
	FFXExtraLabelKey  = "extralabel"
	FFXExtraLabelNum  = 123
	FFXExtraLabelStr  = "testvalue"
)

// The stacks of the ffx tests (leaf first).
var (
	FFXStackA = []uint64{FFXLoc1, FFXLoc2, FFXLoc3}
	FFXStackB = []uint64{FFXLoc1, FFXLoc4, FFXLoc5}
	FFXStackC = []uint64{FFXLoc2, FFXLoc3}
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func ffxRegions(named bool) []Region {
	r := []Region{
		{Address: FFXMap1Address, Size: FFXMap1Size, FileOffset: FFXMap1FileOffset, BuildID: mustHex(FFXMap1BuildID)},
		{Address: FFXMap2Address, Size: FFXMap2Size, FileOffset: FFXMap2FileOffset, BuildID: mustHex(FFXMap2BuildID)},
	}
	if named {
		r[0].Vaddr, r[0].Name = FFXMap1Vaddr, FFXMap1Name
		r[1].Vaddr, r[1].Name = FFXMap2Vaddr, FFXMap2Name
	}
	return r
}

// FFXTestSnapshot is generate_fake_snapshot() of the current pprof.rs:
// MAP_1 and MAP_2 with names and vaddrs; 0x611000 (0x1800 bytes, stack A,
// thread-1[1234], 8777777777778 ns), 0x624000 (0x30 bytes, stack B,
// thread-2[5678], 9333333333333 ns) and an aggregate without address
// (0xC000 bytes, count 3, stack B, thread-3[9999], 9876543211111 ns).
// Aggregated it gives A → [1, 0x1800] and B → [4, 0xC030].
func FFXTestSnapshot() *Snapshot {
	t1, t2, t3 := &Thread{"thread-1", 1234}, &Thread{"thread-2", 5678}, &Thread{"thread-3", 9999}
	return &Snapshot{
		Regions: ffxRegions(true),
		Allocations: []Allocation{
			{Address: FFXAlloc1Address, HasAddress: true, Size: FFXAlloc1Size, Count: 1, Stack: FFXStackA, Thread: t1, Timestamp: FFXAlloc1TS, HasTimestamp: true},
			{Address: FFXAlloc2Address, HasAddress: true, Size: FFXAlloc2Size, Count: 1, Stack: FFXStackB, Thread: t2, Timestamp: FFXAlloc2TS, HasTimestamp: true},
			{Size: FFXAlloc3Size, Count: FFXAlloc3Count, Stack: FFXStackB, Thread: t3, Timestamp: FFXAlloc3TS, HasTimestamp: true},
		},
	}
}

// FFXTestSnapshotWithTags is the with-tags era's fake snapshot: the same
// regions without name and vaddr, and three addressed blocks (the third at
// 0x756000, 0xC000 bytes, stack B). Aggregated: A → [1, 0x1800],
// B → [2, 0xC030].
func FFXTestSnapshotWithTags() *Snapshot {
	s := FFXTestSnapshot()
	s.Regions = ffxRegions(false)
	for i := range s.Allocations {
		s.Allocations[i].Count = 0
	}
	s.Allocations[2].Address, s.Allocations[2].HasAddress = FFXAlloc3Address, true
	return s
}

// FFXTestSnapshot2023 is the initial export's fake snapshot: the regions
// without name and vaddr and two blocks (0x611000 with stack A, 0x624000
// with stack B), no thread or timestamp.
func FFXTestSnapshot2023() *Snapshot {
	return &Snapshot{
		Regions: ffxRegions(false),
		Allocations: []Allocation{
			{Address: FFXAlloc1Address, HasAddress: true, Size: FFXAlloc1Size, Stack: FFXStackA},
			{Address: FFXAlloc2Address, HasAddress: true, Size: FFXAlloc2Size, Stack: FFXStackB},
		},
	}
}

// FFXTestAggregatedSnapshot is generate_fake_aggregated_snapshot(): the
// current test's three allocations without address, thread or timestamp
// (counts 1, 1, 3), so that with tags the only label is `bytes`.
func FFXTestAggregatedSnapshot() *Snapshot {
	s := FFXTestSnapshot()
	for i := range s.Allocations {
		a := &s.Allocations[i]
		a.Address, a.HasAddress, a.Thread, a.Timestamp, a.HasTimestamp = 0, false, nil, 0, false
	}
	return s
}

// FFXTestTwoSnapshots is generate_two_fake_snapshots() with the extra
// labels of test_build_profile_from_two_snapshots: the first snapshot has
// MAP_1 and one aggregate of 0x1800 bytes on stack B, labelled
// extralabel=123 (a number); the second has MAP_2 and one of 0x30 bytes on
// stack C, labelled extralabel="testvalue". Write it with WithTags.
func FFXTestTwoSnapshots() []*Snapshot {
	r := ffxRegions(true)
	return []*Snapshot{
		{
			Regions:     r[:1],
			Allocations: []Allocation{{Size: FFXAlloc1Size, Count: 1, Stack: FFXStackB}},
			ExtraLabels: []ExtraLabel{{Key: FFXExtraLabelKey, Num: FFXExtraLabelNum, IsNum: true}},
		},
		{
			Regions:     r[1:],
			Allocations: []Allocation{{Size: FFXAlloc2Size, Count: 1, Stack: FFXStackC}},
			ExtraLabels: []ExtraLabel{{Key: FFXExtraLabelKey, Str: FFXExtraLabelStr}},
		},
	}
}

// Fixture is one committed file of testdata/fuchsia.
type Fixture struct {
	// Name is the profile's file name.
	Name string
	// ContentsDir is the name of its contents directory, or "".
	ContentsDir string
	// Description says what the file is.
	Description string
	// Command is the fuchsiagen command line that makes the same files.
	Command string
	// Make returns the snapshots and how to write them.
	Make func() ([]*Snapshot, WriteOptions, error)
}

func genFixture(o Options, w WriteOptions) func() ([]*Snapshot, WriteOptions, error) {
	return func() ([]*Snapshot, WriteOptions, error) {
		h, err := Generate(o)
		if err != nil {
			return nil, w, err
		}
		if w.Symbolize {
			w.Symbolizer = h.Symbols
		}
		return h.Snapshots, w, nil
	}
}

func fixedFixture(s []*Snapshot, w WriteOptions) func() ([]*Snapshot, WriteOptions, error) {
	return func() ([]*Snapshot, WriteOptions, error) { return s, w, nil }
}

// Fixtures lists the committed fixtures (scripts/gen-fuchsia-fixtures.sh
// writes them with `fuchsiagen -fixtures testdata/fuchsia`).
func Fixtures() []Fixture {
	return []Fixture{
		{
			Name:        "ffx-test-2023.pb",
			Description: "ffx pprof.rs test snapshot of the initial 2023 export (2 blocks; labels address, bytes; no mapping filename), uncompressed",
			Command:     "fuchsiagen -fixture ffx-test-2023 -era 2023",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshot2023()}, WriteOptions{Era: Era2023}),
		},
		{
			Name:        "ffx-test-withtags-era-tags.pb",
			Description: "ffx pprof.rs test snapshot of the with-tags era (3 blocks), --with-tags: labels address, bytes, timestamp, thread; value [1, size]",
			Command:     "fuchsiagen -fixture ffx-test-withtags -era withtags -with-tags",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshotWithTags()}, WriteOptions{Era: EraWithTags, WithTags: true}),
		},
		{
			Name:        "ffx-test-withtags-era-agg.pb",
			Description: "the same, aggregated: A -> [1, 0x1800], B -> [2, 0xC030], no labels",
			Command:     "fuchsiagen -fixture ffx-test-withtags -era withtags",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshotWithTags()}, WriteOptions{Era: EraWithTags}),
		},
		{
			Name:        "ffx-test-current-tags.pb",
			Description: "current ffx pprof.rs test snapshot (third allocation: no address, count 3), --with-tags, uncompressed",
			Command:     "fuchsiagen -fixture ffx-test -era current -with-tags",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: EraCurrent, WithTags: true}),
		},
		{
			Name:        "ffx-test-current-agg.pb",
			Description: "the same, aggregated: samples sorted by location ids, A -> [1, 0x1800], B -> [4, 0xC030]",
			Command:     "fuchsiagen -fixture ffx-test -era current",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: EraCurrent}),
		},
		{
			Name:        "ffx-test-newest-tags.pb.gz",
			Description: "current ffx pprof.rs test snapshot, --with-tags, gzipped like the newest ffx",
			Command:     "fuchsiagen -fixture ffx-test -era newest -with-tags",
			Make:        fixedFixture([]*Snapshot{FFXTestSnapshot()}, WriteOptions{Era: EraNewest, WithTags: true}),
		},
		{
			Name:        "ffx-test-aggregated-snapshot-tags.pb",
			Description: "ffx pprof.rs aggregated snapshot (no address, thread or timestamp), --with-tags: the only label is bytes",
			Command:     "fuchsiagen -fixture ffx-test-aggregated -era current -with-tags",
			Make:        fixedFixture([]*Snapshot{FFXTestAggregatedSnapshot()}, WriteOptions{Era: EraCurrent, WithTags: true}),
		},
		{
			Name:        "ffx-test-two-snapshots.pb",
			Description: "ffx pprof.rs two-snapshot test, --with-tags: extralabel=123 (number) and extralabel=\"testvalue\"; mapping and location ids continue",
			Command:     "fuchsiagen -fixture ffx-test-two -era current -with-tags",
			Make:        fixedFixture(FFXTestTwoSnapshots(), WriteOptions{Era: EraCurrent, WithTags: true}),
		},
		{
			Name:        "gen-2023.pb",
			Description: "generated audio_core (C++) heap, 300 blocks, initial 2023 export (hash order)",
			Command:     "fuchsiagen -seed 1 -allocs 300 -programs audio_core -era 2023",
			Make:        genFixture(Options{Seed: 1, Allocations: 300, Programs: []string{"audio_core"}}, WriteOptions{Era: Era2023}),
		},
		{
			Name:        "gen-withtags-era-tags.pb",
			Description: "generated netstack3 (Rust) heap, 300 blocks, with-tags era, --with-tags",
			Command:     "fuchsiagen -seed 2 -allocs 300 -programs netstack3 -era withtags -with-tags",
			Make:        genFixture(Options{Seed: 2, Allocations: 300, Programs: []string{"netstack3"}}, WriteOptions{Era: EraWithTags, WithTags: true}),
		},
		{
			Name:        "gen-withtags-era-agg.pb",
			Description: "the same heap, with-tags era, aggregated",
			Command:     "fuchsiagen -seed 2 -allocs 300 -programs netstack3 -era withtags",
			Make:        genFixture(Options{Seed: 2, Allocations: 300, Programs: []string{"netstack3"}}, WriteOptions{Era: EraWithTags}),
		},
		{
			Name:        "gen-current-tags.pb",
			ContentsDir: "gen-current-tags.contents",
			Description: "generated audio_core heap, 250 blocks (max 2 KiB) with contents (pointers, some 0xb4-tagged; ~0.5% unreadable) and edge cases (zero-size block, negative timestamp, thread name with brackets, 0 frame, PC outside every region); current era, --output-contents-dir (forces --with-tags)",
			Command:     "fuchsiagen -seed 3 -allocs 250 -programs audio_core -contents -edge -max-block 2048 -era current -o gen-current-tags.pb -contents-dir gen-current-tags.contents",
			Make:        genFixture(Options{Seed: 3, Allocations: 250, Programs: []string{"audio_core"}, Contents: true, EdgeCases: true, MaxBlockSize: 2048}, WriteOptions{Era: EraCurrent, WithTags: true}),
		},
		{
			Name:        "gen-current-agg.pb",
			Description: "generated netstack3 heap, 600 blocks, current era, aggregated",
			Command:     "fuchsiagen -seed 4 -allocs 600 -programs netstack3 -era current",
			Make:        genFixture(Options{Seed: 4, Allocations: 600, Programs: []string{"netstack3"}}, WriteOptions{Era: EraCurrent}),
		},
		{
			Name:        "gen-newest-symbolized.pb.gz",
			Description: "generated audio_core heap, 400 blocks, newest era, --with-tags --symbolize (functions, inlined lines, has_* on resolved mappings; libvendor_dsp.so unresolved), gzipped",
			Command:     "fuchsiagen -seed 5 -allocs 400 -programs audio_core -era newest -with-tags -symbolize",
			Make:        genFixture(Options{Seed: 5, Allocations: 400, Programs: []string{"audio_core"}}, WriteOptions{Era: EraNewest, WithTags: true, Symbolize: true}),
		},
		{
			Name:        "gen-newest-multi.pb.gz",
			ContentsDir: "gen-newest-multi.contents",
			Description: "generated multi-process snapshot (audio_core, netstack3, heapdump-example; 100 blocks each, max 1 KiB) with contents files named <koid>-0x<addr>; newest era, --multi-process --output-contents-dir",
			Command:     "fuchsiagen -seed 6 -allocs 100 -procs 3 -programs audio_core,netstack3,heapdump-example -contents -max-block 1024 -era newest -multi -o gen-newest-multi.pb.gz -contents-dir gen-newest-multi.contents",
			Make:        genFixture(Options{Seed: 6, Allocations: 100, Processes: 3, Programs: []string{"audio_core", "netstack3", "heapdump-example"}, Contents: true, MaxBlockSize: 1024}, WriteOptions{Era: EraNewest, WithTags: true, MultiProcess: true}),
		},
		{
			Name:        "gen-newest-multi-agg.pb.gz",
			Description: "generated multi-process snapshot (3 processes, 200 blocks each), newest era, --multi-process --symbolize, aggregated (labels process_name, process_koid only)",
			Command:     "fuchsiagen -seed 7 -allocs 200 -procs 3 -era newest -multi -symbolize",
			Make:        genFixture(Options{Seed: 7, Allocations: 200, Processes: 3}, WriteOptions{Era: EraNewest, MultiProcess: true, Symbolize: true}),
		},
		{
			Name:        "gen-newest-kernel-multi.pb.gz",
			Description: "kernel collector snapshot (process kernel, koid 1; 80 aggregated entries: count > 1, no address/thread/timestamp; region without name, file_offset = start - rel_addr), newest era, --multi-process --with-tags",
			Command:     "fuchsiagen -seed 8 -kernel-only -kernel-entries 80 -era newest -multi -with-tags",
			Make:        genFixture(Options{Seed: 8, KernelOnly: true, KernelEntries: 80}, WriteOptions{Era: EraNewest, MultiProcess: true, WithTags: true}),
		},
		{
			Name:        "gen-newest-multi-with-kernel.pb.gz",
			Description: "SYNTHETIC mix no single ffx call can write (the kernel has its own collector): 2 user processes (80 blocks each, per-block samples) and the kernel's 30 aggregated entries in one multi-process profile, newest era, --with-tags; for readers that must handle both kinds of samples at once",
			Command:     "fuchsiagen -seed 13 -allocs 80 -procs 2 -kernel -kernel-entries 30 -era newest -multi -with-tags",
			Make:        genFixture(Options{Seed: 13, Allocations: 80, Processes: 2, Kernel: true, KernelEntries: 30}, WriteOptions{Era: EraNewest, MultiProcess: true, WithTags: true}),
		},
		{
			Name:        "gen-current-kernel-agg.pb",
			Description: "kernel collector snapshot (60 entries) taken without --multi-process (--by-koid 1), current era, aggregated, --symbolize",
			Command:     "fuchsiagen -seed 9 -kernel-only -kernel-entries 60 -era current -symbolize",
			Make:        genFixture(Options{Seed: 9, KernelOnly: true, KernelEntries: 60}, WriteOptions{Era: EraCurrent, Symbolize: true}),
		},
		{
			Name:        "gen-current-x64-tags.pb",
			Description: "generated heapdump-example (C) heap on x64 (unaligned return addresses, 4 KiB pages), 200 blocks, current era, --with-tags",
			Command:     "fuchsiagen -seed 10 -allocs 200 -programs heapdump-example -arch x64 -era current -with-tags",
			Make:        genFixture(Options{Seed: 10, Allocations: 200, Programs: []string{"heapdump-example"}, Arch: "x64"}, WriteOptions{Era: EraCurrent, WithTags: true}),
		},
	}
}

// WriteFixtures writes every fixture and MANIFEST.txt into dir, replacing
// existing contents directories.
func WriteFixtures(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range Fixtures() {
		snaps, w, err := f.Make()
		if err != nil {
			return fmt.Errorf("%s: %v", f.Name, err)
		}
		cdir := ""
		if f.ContentsDir != "" {
			cdir = filepath.Join(dir, f.ContentsDir)
			if err := os.RemoveAll(cdir); err != nil {
				return err
			}
		}
		if err := WriteSnapshotCommand(filepath.Join(dir, f.Name), cdir, snaps, w); err != nil {
			return fmt.Errorf("%s: %v", f.Name, err)
		}
	}
	return os.WriteFile(filepath.Join(dir, "MANIFEST.txt"), Manifest(), 0o644)
}

// Manifest is the text of testdata/fuchsia/MANIFEST.txt.
func Manifest() []byte {
	var b bytes.Buffer
	b.WriteString(`# Fuchsia heapdump fixtures (pprof profiles as written by ffx profile heapdump)
#
# No public ffx output exists (see docs/formats/fuchsia.md), so every file here is
# written by internal/fuchsiagen, which reproduces what each ffx generation writes field
# for field (docs/formats/fuchsia.md, part 1), encoded with github.com/google/pprof/profile.
# Regenerate with scripts/gen-fuchsia-fixtures.sh (fuchsiagen -fixtures testdata/fuchsia);
# TestFixturesUpToDate checks that these bytes are what the generator makes.
#
# Eras: 2023 = gnoliyil/fuchsia@1ab08c2b, withtags = misttech/mist-os@051562f9,
# current = misttech/fuchsia@ac198577 (uncompressed), newest = chenhunghan/fuchsia-mirror@b9d16653 (gzip).
# Files are equal to ffx's output once decoded; the bytes differ (label order, string-table
# order, packed fields, deflate), see internal/fuchsiagen/doc.go. ffx-test-* reproduce the fake
# snapshots of ffx's pprof.rs unit tests with their exact values.
# A <name>.contents/ directory is the --output-contents-dir of the profile next to it:
# one file per readable block, named 0x<addr> (or <koid>-0x<addr> with --multi-process),
# exactly the block's size; unreadable blocks have no file.
`)
	for _, f := range Fixtures() {
		fmt.Fprintf(&b, "\n%s\n", f.Name)
		if f.ContentsDir != "" {
			fmt.Fprintf(&b, "%s/\n", f.ContentsDir)
		}
		fmt.Fprintf(&b, "    %s\n", wrap(f.Description, 90, "    "))
		cmd := f.Command
		if !strings.Contains(cmd, " -o ") {
			cmd += " -o " + f.Name
		}
		fmt.Fprintf(&b, "    made by: %s\n", cmd)
	}
	return b.Bytes()
}

func wrap(s string, width int, indent string) string {
	var out, line []string
	n := 0
	for _, w := range strings.Fields(s) {
		if n > 0 && n+1+len(w) > width {
			out = append(out, strings.Join(line, " "))
			line, n = nil, 0
		}
		if n > 0 {
			n++
		}
		line = append(line, w)
		n += len(w)
	}
	if len(line) > 0 {
		out = append(out, strings.Join(line, " "))
	}
	return strings.Join(out, "\n"+indent)
}
