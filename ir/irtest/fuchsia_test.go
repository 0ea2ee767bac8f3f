package irtest_test

import (
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irtest"
)

var fuchsiaCases = []struct {
	name string
	opts irtest.Options
	fo   irtest.FuchsiaOptions
}{
	{"default", irtest.Options{}, irtest.FuchsiaOptions{}},
	{"everything", irtest.Options{MaxNodes: 30, Snapshots: 3, Strings: irtest.AllStrings}, irtest.FuchsiaEverything()},
	{"tags", irtest.Options{MaxNodes: 20, Snapshots: 1}, irtest.FuchsiaOptions{Tags: true, Symbolized: true}},
	{"merged multi-process", irtest.Options{MinNodes: 1, MaxNodes: 20, Snapshots: 4}, irtest.FuchsiaOptions{MultiProcess: true, Interleaved: true, Labels: true}},
	{"contents without edges", irtest.Options{MaxNodes: 20, Snapshots: 2}, irtest.FuchsiaOptions{Tags: true, Contents: true}},
	{"tiny", irtest.Options{MinNodes: 0, MaxNodes: 0, Snapshots: 2}, irtest.FuchsiaEverything()},
	{"stream", irtest.Options{MaxNodes: 30, Snapshots: 3, Strings: irtest.AllStrings}, irtest.FuchsiaStreamEverything()},
	{"stream single-process", irtest.Options{MaxNodes: 20, Snapshots: 1, Strings: irtest.AllStrings}, irtest.FuchsiaOptions{Stream: true, Contents: true}},
	{"stream one process of several", irtest.Options{MaxNodes: 20, Snapshots: 1}, irtest.FuchsiaOptions{Stream: true, MultiProcess: true}},
	{"stream ignoring profile options", irtest.Options{MaxNodes: 10, Snapshots: 2}, func() irtest.FuchsiaOptions {
		fo := irtest.FuchsiaEverything()
		fo.Stream = true
		return fo
	}()},
	{"stream tiny", irtest.Options{MinNodes: 0, MaxNodes: 0, Snapshots: 2}, irtest.FuchsiaStreamEverything()},
}

// TestRandomFuchsia: every generated file validates, is deterministic,
// and keeps the Fuchsia shape ir/fuchsia/section.go describes; the features asked
// for show up.
func TestRandomFuchsia(t *testing.T) {
	for _, tc := range fuchsiaCases {
		t.Run(tc.name, func(t *testing.T) {
			var edges, contents, extra, labels, interleaved, lines int
			var stream streamSeen
			for seed := int64(0); seed < 40; seed++ {
				f := irtest.RandomFuchsia(seed, tc.opts, tc.fo)
				if err := f.Validate(); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if d := ir.Diff(f, irtest.RandomFuchsia(seed, tc.opts, tc.fo), 5); len(d) > 0 {
					t.Fatalf("seed %d: not deterministic: %v", seed, d)
				}
				o := tc.opts
				o.Fuchsia = &tc.fo
				if d := ir.Diff(f, irtest.Random(seed, o), 5); len(d) > 0 {
					t.Fatalf("seed %d: Random with Options.Fuchsia differs from RandomFuchsia: %v", seed, d)
				}
				format := fuchsiair.Format
				if tc.fo.Stream {
					format = fuchsiair.FormatFIDL
				}
				if f.Format != format || fuchsiair.FileOf(f) == nil || len(f.Snapshots) != max(tc.opts.Snapshots, 1) {
					t.Fatalf("seed %d: not a Fuchsia file of %d snapshots", seed, max(tc.opts.Snapshots, 1))
				}
				x := fuchsiair.FileOf(f)
				if len(x.SampleTypes) > 2 {
					extra++
				}
				if len(x.SampleSnapshot) > 0 {
					interleaved++
				}
				if len(x.Locations.Function) > 0 {
					lines++
				}
				for k, s := range f.Snapshots {
					fs := fuchsiair.Of(s)
					if fs == nil || !slices.Equal(s.NodeKinds, fuchsiair.NodeKinds) || !slices.Equal(s.EdgeKinds, fuchsiair.EdgeKinds) {
						t.Fatalf("seed %d snapshot %d: section or kind tables missing", seed, k)
					}
					if s.Edges.Len() > 0 {
						edges++
					}
					if len(fs.Contents) > 0 {
						contents++
					}
					if len(fs.LabelKey) > 0 {
						labels++
					}
					if !tc.fo.MultiProcess && len(f.Snapshots) == 1 && (fs.HasProcessName || fs.HasProcessKoid) {
						t.Fatalf("seed %d: process labels in a single-process profile", seed)
					}
					if tc.fo.Stream != (fs.Stream != nil) {
						t.Fatalf("seed %d snapshot %d: stream details %v with Stream %v", seed, k, fs.Stream != nil, tc.fo.Stream)
					}
					for i := 0; i < s.Nodes.Len(); i++ {
						if !tc.fo.Stream && tc.fo.Tags != (fs.Flags[i]&fuchsiair.FlagAddress != 0) {
							t.Fatalf("seed %d snapshot %d node %d: flags %#x with tags %v", seed, k, i, fs.Flags[i], tc.fo.Tags)
						}
					}
					if st := fs.Stream; st != nil {
						streamFeatures(st, &stream)
					}
				}
			}
			fo := tc.fo
			for _, c := range []struct {
				asked bool
				got   int
				what  string
			}{
				{fo.DerivedEdges && tc.opts.MaxNodes > 0, edges, "derived edges"},
				{fo.Contents && tc.opts.MaxNodes > 0, contents, "contents"},
				{fo.ExtraSampleTypes && !fo.Stream, extra, "extra sample types"},
				{fo.Labels && !fo.Stream && tc.opts.MaxNodes > 0, labels, "labels"},
				{fo.Interleaved && !fo.Stream && tc.opts.Snapshots > 1 && tc.opts.MaxNodes > 0, interleaved, "interleaved samples"},
				{fo.Symbolized && !fo.Stream, lines, "symbolized locations"},
			} {
				if c.asked && c.got == 0 {
					t.Errorf("no file has %s", c.what)
				}
				if c.got > 0 && fo.Stream && c.what != "derived edges" && c.what != "contents" {
					t.Errorf("a stream has %s", c.what)
				}
			}
			if fo.Stream && tc.opts.MaxNodes > 0 {
				for what, n := range stream {
					needs := map[string]bool{
						"unknown SnapshotHeader fields": fo.MultiProcess || tc.opts.Snapshots > 1,
						"interleaved contents chunks":   fo.Contents,
						"contents chunks of no bytes":   fo.Contents,
					}
					if ok, listed := needs[what]; listed && !ok {
						continue
					}
					if n == 0 {
						t.Errorf("no stream has %s", what)
					}
				}
			}
		})
	}
}

// streamSeen counts the stream features that showed up.
type streamSeen map[string]int

// streamFeatures counts what st has of the shapes Stream asks for.
func streamFeatures(st *fuchsiair.Stream, seen *streamSeen) {
	if *seen == nil {
		*seen = streamSeen{}
	}
	m := *seen
	add := func(what string, ok bool) {
		m[what] += 0
		if ok {
			m[what]++
		}
	}
	batches := 0
	for _, r := range st.Records {
		if r == fuchsiair.RecordEndOfBatch {
			batches++
		}
	}
	add("several batches", batches > 1)
	interleaved, zeroStack := false, false
	last := map[uint32]int{}
	for c, k := range st.StackChunkStack {
		if p, ok := last[k]; ok && p != c-1 {
			interleaved = true
		}
		last[k] = c
		zeroStack = zeroStack || st.StackChunkSize[c] == 0
	}
	add("interleaved stack chunks", interleaved)
	add("stack chunks of no addresses", zeroStack)
	add("stacks of several chunks", len(st.StackChunkStack) > len(st.StackKey))
	interleaved, zeroContents := false, false
	last = map[uint32]int{}
	for c, node := range st.ContentsChunkNode {
		if p, ok := last[node]; ok && p != c-1 && node != fuchsiair.OrphanChunk {
			interleaved = true
		}
		last[node] = c
		zeroContents = zeroContents || st.ContentsChunkSize[c] == 0
	}
	add("interleaved contents chunks", interleaved)
	add("contents chunks of no bytes", zeroContents)
	add("orphan chunks", len(st.OrphanAddress) > 0)
	header := false
	for _, r := range st.UnknownRecord {
		header = header || r == fuchsiair.HeaderRecord
	}
	add("unknown fields", len(st.UnknownRecord) > 0)
	add("unknown SnapshotHeader fields", header)
	count, noAddress, vaddr, name := false, false, false, false
	for _, af := range st.AllocFields {
		count = count || af&fuchsiair.AllocCount != 0
		noAddress = noAddress || af&fuchsiair.AllocAddress == 0
	}
	for _, rf := range st.RegionFields {
		vaddr = vaddr || rf&fuchsiair.RegionVaddr != 0
		name = name || rf&fuchsiair.RegionName != 0
	}
	add("allocation counts", count)
	add("allocations without an address", noAddress)
	add("regions with a vaddr", vaddr)
	add("named regions", name)
}
