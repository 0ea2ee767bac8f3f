package fuchsiagen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/heapconv/heapconv/internal/fidl"
)

// StreamOptions say how WriteStream sends snapshots as the FIDL element
// stream a collector streams to ffx (docs/formats/fuchsia.md, part 2).
type StreamOptions struct {
	// MultiProcess is multi_process = true: each snapshot opens with a
	// SnapshotHeader batch. Without it there must be exactly one snapshot.
	MultiProcess bool
	// APILevel is the collector's API level: below 27 regions have no
	// vaddr and name, below 29 allocations have no count. 0 means the
	// newest (29).
	APILevel int
}

// Processes turns snapshots into what the collector holds (fidl.Process):
// regions in their order, thread and stack trace keys in order of first
// use (the instrumentation interns both; keys are its resource offsets,
// here small multiples of 16), block contents in allocation order.
func Processes(snaps []*Snapshot, o StreamOptions) ([]fidl.Process, error) {
	api := o.APILevel
	if api == 0 {
		api = 29
	}
	if api < 15 {
		return nil, fmt.Errorf("fuchsiagen: API level %d: the heapdump client API arrived at 15", api)
	}
	var procs []fidl.Process
	for _, s := range snaps {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		p := fidl.Process{Name: s.ProcessName, Koid: s.ProcessKoid}
		for _, r := range s.Regions {
			g := fidl.ExecutableRegion{Address: r.Address, Size: r.Size, FileOffset: r.FileOffset, BuildID: fidl.BuildID{Value: r.BuildID}}
			for _, ord := range []int{fidl.RegionAddress, fidl.RegionSize, fidl.RegionFileOffset, fidl.RegionBuildID} {
				g.Present.Set(ord)
			}
			if api >= 27 {
				g.Vaddr = r.Vaddr
				g.Present.Set(fidl.RegionVaddr)
				if r.Name != "" { // the kernel collector sends none
					g.Name = r.Name
					g.Present.Set(fidl.RegionName)
				}
			}
			p.Regions = append(p.Regions, g)
		}
		stackKey := map[string]uint64{}
		threadKey := map[Thread]uint64{}
		for i := range s.Allocations {
			a := &s.Allocations[i]
			fa := fidl.Allocation{Size: a.Size}
			fa.Present.Set(fidl.AllocationSize)
			k := string(u64sKey(a.Stack))
			key, ok := stackKey[k]
			if !ok {
				key = 0x1000 + 0x10*uint64(len(stackKey))
				stackKey[k] = key
				t := fidl.StackTrace{Key: key, ProgramAddresses: a.Stack}
				t.Present.Set(fidl.StackTraceKey)
				t.Present.Set(fidl.StackTraceProgramAddresses)
				p.StackTraces = append(p.StackTraces, t)
			}
			fa.StackTraceKey = key
			fa.Present.Set(fidl.AllocationStackTraceKey)
			if a.HasAddress {
				fa.Address = a.Address
				fa.Present.Set(fidl.AllocationAddress)
			}
			if a.HasTimestamp {
				fa.Timestamp = a.Timestamp
				fa.Present.Set(fidl.AllocationTimestamp)
			}
			if a.Thread != nil {
				key, ok := threadKey[*a.Thread]
				if !ok {
					key = 0x20 + 0x10*uint64(len(threadKey))
					threadKey[*a.Thread] = key
					t := fidl.ThreadInfo{Key: key, Koid: a.Thread.Koid, Name: a.Thread.Name}
					t.Present.Set(fidl.ThreadInfoKey)
					t.Present.Set(fidl.ThreadInfoKoid)
					t.Present.Set(fidl.ThreadInfoName)
					p.Threads = append(p.Threads, t)
				}
				fa.ThreadInfoKey = key
				fa.Present.Set(fidl.AllocationThreadInfoKey)
			}
			if a.Count != 0 {
				if api < 29 {
					if a.Count != 1 {
						return nil, fmt.Errorf("fuchsiagen: API level %d has no Allocation.count, but an allocation has count %d", api, a.Count)
					}
				} else {
					fa.Count = a.Count
					fa.Present.Set(fidl.AllocationCount)
				}
			}
			p.Allocations = append(p.Allocations, fa)
			if a.Contents != nil {
				b := fidl.BlockContents{Address: a.Address, Contents: a.Contents}
				b.Present.Set(fidl.BlockContentsAddress)
				b.Present.Set(fidl.BlockContentsContents)
				p.Contents = append(p.Contents, b)
			}
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// StreamBytes returns the container file (internal/fidl) of the stream
// the collector sends for snaps.
func StreamBytes(snaps []*Snapshot, o StreamOptions) ([]byte, error) {
	if !o.MultiProcess && len(snaps) != 1 {
		return nil, errors.New("fuchsiagen: a single-process stream holds one snapshot")
	}
	procs, err := Processes(snaps, o)
	if err != nil {
		return nil, err
	}
	st, err := fidl.Emit(procs, o.MultiProcess)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := st.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// StreamFixture is one committed file of testdata/fuchsia-fidl.
type StreamFixture struct {
	Name        string
	Description string
	// Make returns the file's bytes, and, for streams a collector sends,
	// the snapshots and options it was made from (nil for hand-made ones).
	Make func() ([]byte, []*Snapshot, StreamOptions, error)
}

func genStream(o Options, so StreamOptions) func() ([]byte, []*Snapshot, StreamOptions, error) {
	return func() ([]byte, []*Snapshot, StreamOptions, error) {
		h, err := Generate(o)
		if err != nil {
			return nil, nil, so, err
		}
		b, err := StreamBytes(h.Snapshots, so)
		return b, h.Snapshots, so, err
	}
}

// StreamFixtures lists the committed FIDL stream fixtures
// (scripts/gen-fuchsia-fixtures.sh writes them with
// `fuchsiagen -fidl-fixtures testdata/fuchsia-fidl`).
func StreamFixtures() []StreamFixture {
	return []StreamFixture{
		{
			Name:        "ffx-test.fidlstream",
			Description: "the current ffx pprof.rs test snapshot as a single-process stream (third allocation: no address, count 3)",
			Make: func() ([]byte, []*Snapshot, StreamOptions, error) {
				s := []*Snapshot{FFXTestSnapshot()}
				b, err := StreamBytes(s, StreamOptions{})
				return b, s, StreamOptions{}, err
			},
		},
		{
			Name:        "single-contents.fidlstream",
			Description: "generated audio_core heap, 250 blocks (max 2 KiB) with contents in 1 KiB chunks and edge cases; single-process, API level 29",
			Make:        genStream(Options{Seed: 3, Allocations: 250, Programs: []string{"audio_core"}, Contents: true, EdgeCases: true, MaxBlockSize: 2048}, StreamOptions{}),
		},
		{
			Name:        "multi-contents.fidlstream",
			Description: "generated multi-process stream (audio_core, netstack3, heapdump-example; 60 blocks each, max 1 KiB) with contents",
			Make:        genStream(Options{Seed: 6, Allocations: 60, Processes: 3, Programs: []string{"audio_core", "netstack3", "heapdump-example"}, Contents: true, MaxBlockSize: 1024}, StreamOptions{MultiProcess: true}),
		},
		{
			Name:        "multi-kernel.fidlstream",
			Description: "the kernel collector's snapshot (80 aggregated entries: count > 1, no address/thread/timestamp; a region without name, file_offset = start - rel_addr) as a multi-process stream",
			Make:        genStream(Options{Seed: 8, KernelOnly: true, KernelEntries: 80}, StreamOptions{MultiProcess: true}),
		},
		{
			Name:        "api15-single.fidlstream",
			Description: "generated netstack3 heap, 300 blocks, from a collector at API level 15 (no Allocation.count, no ExecutableRegion.vaddr or name)",
			Make:        genStream(Options{Seed: 2, Allocations: 300, Programs: []string{"netstack3"}}, StreamOptions{APILevel: 15}),
		},
		{
			Name:        "reassembly-edges.fidlstream",
			Description: "HAND-MADE, no collector sends it in this order: two processes whose chunks of stack traces and block contents interleave across batches, contents before their allocation, contents of no allocation (dropped by the receiver), an empty and an unused stack trace, unknown table fields (inline and out of line, on a SnapshotHeader too), a region without vaddr",
			Make: func() ([]byte, []*Snapshot, StreamOptions, error) {
				var b bytes.Buffer
				if _, err := ReassemblyEdgeStream().WriteTo(&b); err != nil {
					return nil, nil, StreamOptions{}, err
				}
				return b.Bytes(), nil, StreamOptions{}, nil
			},
		},
	}
}

// ReassemblyEdgeStream is the hand-made stream of reassembly-edges: every
// receive rule that reorders or joins elements, in one small file.
func ReassemblyEdgeStream() *fidl.Stream {
	s := fidl.NewStream(true)
	var e fidl.Element
	push := func(k fidl.Kind, fill func(*fidl.Element)) {
		e = fidl.Element{Kind: k}
		fill(&e)
		s.Append(&e)
	}
	header := func(name string, koid uint64, unknown []fidl.RawField) {
		push(fidl.KindSnapshotHeader, func(e *fidl.Element) {
			e.SnapshotHeader = fidl.SnapshotHeader{Present: 3, ProcessName: name, ProcessKoid: koid, Unknown: unknown}
		})
		s.EndBatch()
	}
	stack := func(key uint64, pcs ...uint64) {
		push(fidl.KindStackTrace, func(e *fidl.Element) {
			e.StackTrace = fidl.StackTrace{Present: 3, Key: key, ProgramAddresses: pcs}
		})
	}
	contents := func(addr uint64, data string) {
		push(fidl.KindBlockContents, func(e *fidl.Element) {
			e.BlockContents = fidl.BlockContents{Present: 3, Address: addr, Contents: []byte(data)}
		})
	}
	const (
		lib  = 0x2a0000010000
		main = 0x3b0000020000
	)
	header("edge-process", 4242, nil)
	// Batch 1: a first stack chunk, contents before their allocation.
	stack(0x1000, lib+0x104, lib+0x230)
	contents(0x7f0010, "\x20\x00\x01\x00\xab\x00\x00\x00")
	push(fidl.KindAllocation, func(e *fidl.Element) {
		e.Allocation = fidl.Allocation{Present: 0b111111, Address: 0x7f0010, Size: 16, StackTraceKey: 0x1000,
			Timestamp: 1_000_000, ThreadInfoKey: 0x20, Count: 1,
			Unknown: []fidl.RawField{{Ordinal: 9, Inline: true, Bytes: []byte{1, 2, 3, 4}}}}
	})
	s.EndBatch()
	// Batch 2: the thread (with an unknown out-of-line field), the rest of
	// the stack, contents of no allocation, a region without vaddr, the
	// second contents chunk, an allocation without address, an empty and
	// unused stack trace.
	push(fidl.KindThreadInfo, func(e *fidl.Element) {
		e.ThreadInfo = fidl.ThreadInfo{Present: 7, Key: 0x20, Koid: 5001, Name: "edge-worker",
			Unknown: []fidl.RawField{{Ordinal: 4, Bytes: []byte("futureXX")}}}
	})
	stack(0x1000, main+0x5f8)
	contents(0x900000, "orphan")
	push(fidl.KindExecutableRegion, func(e *fidl.Element) {
		e.ExecutableRegion = fidl.ExecutableRegion{Present: 0b101111, Address: lib, Size: 0x8000, FileOffset: 0x1000,
			BuildID: fidl.BuildID{Value: []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3}}, Name: "libedge.so"}
	})
	push(fidl.KindExecutableRegion, func(e *fidl.Element) {
		e.ExecutableRegion = fidl.ExecutableRegion{Present: 0b111111, Address: main, Size: 0x4000, FileOffset: 0x2000,
			BuildID: fidl.BuildID{Value: bytes.Repeat([]byte{0x5a}, 32)}, Vaddr: 0x2000, Name: "edge_bin"}
	})
	contents(0x7f0010, "\x00\x00\x7f\x00\x00\x00\x00\x00")
	push(fidl.KindAllocation, func(e *fidl.Element) {
		e.Allocation = fidl.Allocation{Present: 0b110110, Size: 96, StackTraceKey: 0x1000, ThreadInfoKey: 0x20, Count: 3}
	})
	stack(0x1010)
	s.EndBatch()
	s.EndBatch() // end of the first process
	header("second", 4343, []fidl.RawField{{Ordinal: 3, Inline: true, Bytes: []byte{0, 0, 0, 1}}})
	stack(0x1000, 0x1234)
	push(fidl.KindAllocation, func(e *fidl.Element) {
		e.Allocation = fidl.Allocation{Present: 0b000111, Address: 0x7f0010, Size: 8, StackTraceKey: 0x1000}
	})
	contents(0x7f0010, "\x10\x00\x7f\x00\x00\x00\x00\x00")
	s.EndBatch()
	s.EndBatch() // end of the second process
	s.EndBatch() // end of the stream
	return s
}

// WriteStreamFixtures writes every stream fixture and MANIFEST.txt into
// dir.
func WriteStreamFixtures(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var m bytes.Buffer
	m.WriteString(`# Fuchsia heapdump FIDL element streams (fuchsia.memory.heapdump.client SnapshotElement batches)
#
# No Fuchsia tool stores the raw stream, so the container is heapconv's own (internal/fidl's
# package doc). Every file here is written by internal/fuchsiagen: the snapshots of
# testdata/fuchsia's generator sent in the order, chunks and batches of the collector
# (fidl.Emit), plus one hand-made stream for the receive rules. Regenerate with
# scripts/gen-fuchsia-fixtures.sh (fuchsiagen -fidl-fixtures testdata/fuchsia-fidl);
# TestStreamFixturesUpToDate checks that these bytes are what the generator makes.
`)
	for _, f := range StreamFixtures() {
		b, _, _, err := f.Make()
		if err != nil {
			return fmt.Errorf("%s: %v", f.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), b, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&m, "\n%s\n    %s\n", f.Name, wrap(f.Description, 90, "    "))
	}
	return os.WriteFile(filepath.Join(dir, "MANIFEST.txt"), m.Bytes(), 0o644)
}
