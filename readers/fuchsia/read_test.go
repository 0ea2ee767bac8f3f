package fuchsia_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/internal/gotool"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/readers/fuchsia"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
)

func roundTrip(t testing.TB, data []byte, f *ir.File, noGzip bool) []byte {
	t.Helper()
	var out bytes.Buffer
	loss, err := wfuchsia.Write(&out, f, wfuchsia.Options{NoGzip: noGzip})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range loss {
		if l.Kind != ir.LossDerivedEdges && l.Kind != fuchsiair.LossContents {
			t.Errorf("unexpected loss: %v", l)
		}
	}
	if err := sameProfile(parse(t, data), parse(t, out.Bytes())); err != nil {
		t.Fatalf("rewritten profile differs: %v", err)
	}
	return out.Bytes()
}

// TestFixtures reads every fixture of the generator, writes it back and
// compares, and has go tool pprof read the output.
func TestFixtures(t *testing.T) {
	for k, fx := range fuchsiagen.Fixtures() {
		t.Run(fx.Name, func(t *testing.T) {
			snaps, wo, err := fx.Make()
			if err != nil {
				t.Fatal(err)
			}
			data, err := fuchsiagen.ProfileBytes(snaps, wo)
			if err != nil {
				t.Fatal(err)
			}
			f, err := fuchsia.ReadBytes(data, fuchsia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if fuchsiair.FileOf(f).Gzip != fuchsia.IsGzip(data) {
				t.Errorf("gzip flag %v", fuchsiair.FileOf(f).Gzip)
			}
			nodes := 0
			for _, s := range f.Snapshots {
				nodes += s.Nodes.Len()
			}
			if p := parse(t, data); nodes != len(p.Sample) {
				t.Errorf("%d nodes for %d samples", nodes, len(p.Sample))
			}
			if wo.MultiProcess && len(f.Snapshots) != len(snaps) {
				t.Errorf("%d snapshots for %d processes", len(f.Snapshots), len(snaps))
			}
			out := roundTrip(t, data, f, k%2 == 0)
			// Reading the output gives the same IR again.
			g, err := fuchsia.ReadBytes(out, fuchsia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out2 := roundTrip(t, out, g, k%2 == 0)
			if !bytes.Equal(out, out2) {
				t.Errorf("write(read(write(x))) != write(x)")
			}
			if k < 4 || strings.Contains(fx.Name, "multi") || strings.Contains(fx.Name, "symbolized") {
				top := gotool.RunPprof(t, out, "-top", "-sample_index=allocated")
				if gotool.UsesTool() && !strings.Contains(top, "flat%") {
					t.Errorf("pprof -top:\n%s", top)
				}
				gotool.RunPprof(t, out, "-raw")
			}
		})
	}
}

// TestFFXUnitSnapshot checks the values of ffx's own pprof.rs test.
func TestFFXUnitSnapshot(t *testing.T) {
	data, err := fuchsiagen.ProfileBytes([]*fuchsiagen.Snapshot{fuchsiagen.FFXTestSnapshot()},
		fuchsiagen.WriteOptions{Era: fuchsiagen.EraCurrent, WithTags: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fuchsia.ReadBytes(data, fuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Snapshots) != 1 {
		t.Fatalf("%d snapshots", len(f.Snapshots))
	}
	s := f.Snapshots[0]
	fx := fuchsiair.Of(s)
	if s.Nodes.Len() != 3 {
		t.Fatalf("%d nodes", s.Nodes.Len())
	}
	want := []struct {
		addr, size, count uint64
		ts                int64
		thread            string
		koid              uint64
	}{
		{0x611000, 0x1800, 1, 8777777777778, "thread-1", 1234},
		{0x624000, 0x30, 1, 9333333333333, "thread-2", 5678},
		{0, 0xC000, 3, 9876543211111, "thread-3", 9999},
	}
	for i, w := range want {
		if s.Nodes.ID.At(i) != w.addr || s.Nodes.SelfSize.At(i) != w.size || fx.Count.At(i) != w.count || fx.Timestamp[i] != w.ts {
			t.Errorf("node %d: id %#x size %#x count %d ts %d", i, s.Nodes.ID.At(i), s.Nodes.SelfSize.At(i), fx.Count.At(i), fx.Timestamp[i])
		}
		th := fx.Thread[i] - 1
		if f.Strings[fx.ThreadName[th]] != w.thread || fx.ThreadKoid[th] != w.koid || fx.ThreadBare[th] {
			t.Errorf("node %d: thread %q %d", i, f.Strings[fx.ThreadName[th]], fx.ThreadKoid[th])
		}
		if (fx.Flags[i]&fuchsiair.FlagAddress != 0) != (w.addr != 0) {
			t.Errorf("node %d: flags %#x", i, fx.Flags[i])
		}
	}
	m := &fuchsiair.FileOf(f).Mappings
	if m.Len() != 2 || m.Start[0] != 0x2000 || m.Limit[0] != 0x3000 || m.Offset[0] != 0x1000 ||
		f.Strings[m.BuildID[0]] != "112233441122334411223344" || f.Strings[m.File[0]] != "map-1" {
		t.Errorf("mappings: %+v", m)
	}
	// Addresses 0 and 0x5123 lie in no mapping.
	lc := &fuchsiair.FileOf(f).Locations
	for i := 0; i < lc.Len(); i++ {
		if (lc.Address[i] == 0 || lc.Address[i] == 0x5123) != (lc.Mapping[i] == 0) {
			t.Errorf("location %#x: mapping %d", lc.Address[i], lc.Mapping[i])
		}
	}
	// Unsymbolized: every node is a root, its site named by where the
	// frame is. Past the frame the stacks share (0x2500), node 0's site is
	// 0x8900, in map-2 (0x8000, file offset 0); node 1's is 0x0, in no
	// mapping: the bare program counter.
	if len(s.Roots) != 3 || f.String(s.Nodes.Name[0]) != "map-2+0x900" || f.String(s.Nodes.Name[1]) != "0x0" {
		t.Errorf("roots %v, names %q, %q", s.Roots, f.String(s.Nodes.Name[0]), f.String(s.Nodes.Name[1]))
	}
}

// refEdges computes the pointer edges of a generated snapshot
// independently: sorted starts and sort.Search.
func refEdges(s *fuchsiagen.Snapshot) map[[3]uint64]bool {
	type blk struct{ start, end uint64 }
	var bs []blk
	for _, a := range s.Allocations {
		if a.HasAddress {
			bs = append(bs, blk{a.Address, a.Address + max(a.Size, 1)})
		}
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].start < bs[j].start })
	out := map[[3]uint64]bool{}
	for _, a := range s.Allocations {
		for off := 0; off+8 <= len(a.Contents); off += 8 {
			v := binary.LittleEndian.Uint64(a.Contents[off:]) &^ (0xFF << 56)
			k := sort.Search(len(bs), func(i int) bool { return bs[i].start > v }) - 1
			if k >= 0 && v < bs[k].end && bs[k].start != a.Address {
				out[[3]uint64{a.Address, uint64(off), bs[k].start}] = true
			}
		}
	}
	return out
}

func TestContentsScan(t *testing.T) {
	// Each allocation is a file written, read and written again: on a busy
	// disk a thousand cost seconds of system time, and 400 give the scan
	// the same cases, unreadable blocks included (checked below).
	allocs := sampling.Count(1000, 400)
	sampling.Logf(t, allocs, 1000, "allocations per heap")
	for _, multi := range []bool{false, true} {
		procs := 1
		if multi {
			procs = 2
		}
		h := generate(t, fuchsiagen.Options{Seed: 7, Allocations: allocs, Processes: procs, Contents: true, EdgeCases: true})
		wo := fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true, MultiProcess: multi}
		data, err := fuchsiagen.ProfileBytes(h.Snapshots, wo)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "contents")
		if err := fuchsiagen.WriteContentsDir(dir, h.Snapshots, multi); err != nil {
			t.Fatal(err)
		}
		f, err := fuchsia.ReadBytes(data, fuchsia.Options{ContentsDir: dir, ScanPointers: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Snapshots) != procs {
			t.Fatalf("%d snapshots", len(f.Snapshots))
		}
		for k, s := range f.Snapshots {
			gs := h.Snapshots[k]
			fx := fuchsiair.Of(s)
			if !fx.DerivedEdges {
				t.Fatal("no derived edges")
			}
			got := map[[3]uint64]bool{}
			withContents := 0
			for i := 0; i < s.Nodes.Len(); i++ {
				if b, ok := fx.ContentsOf(i); ok {
					withContents++
					if !bytes.Equal(b, gs.Allocations[i].Contents) {
						t.Fatalf("node %d: contents differ", i)
					}
				} else if gs.Allocations[i].Contents != nil {
					t.Fatalf("node %d: contents missing", i)
				}
				lo, hi := s.Nodes.EdgeRange(i)
				for e := lo; e < hi; e++ {
					var off uint64
					name := f.String(s.Edges.Name[e])
					if _, err := fmtSscanf(name, &off); err != nil {
						t.Fatalf("edge name %q", name)
					}
					tgt := s.Edges.Target[e]
					got[[3]uint64{s.Nodes.ID.At(i), off, s.Nodes.ID.At(int(tgt))}] = true
					v := binary.LittleEndian.Uint64(gs.Allocations[i].Contents[off:]) &^ (0xFF << 56)
					if (v == s.Nodes.ID.At(int(tgt))) != (s.Edges.Kind[e] == fuchsiair.Pointer) {
						t.Fatalf("edge %d: kind %d for pointer %#x to %#x", e, s.Edges.Kind[e], v, s.Nodes.ID.At(int(tgt)))
					}
				}
			}
			want := refEdges(gs)
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("snapshot %d: %d edges, want %d", k, len(got), len(want))
			}
			for e := range want {
				if !got[e] {
					t.Fatalf("missing edge %x", e)
				}
			}
			t.Logf("snapshot %d: %d nodes, %d with contents, %d edges, %d roots", k, s.Nodes.Len(), withContents, s.Edges.Len(), len(s.Roots))
			if withContents == s.Nodes.Len() {
				t.Errorf("snapshot %d: every block has contents, so the missing ones go unchecked", k)
			}
			// Roots: exactly the nodes nobody else points to.
			pointed := map[uint32]bool{}
			for i := 0; i < s.Nodes.Len(); i++ {
				lo, hi := s.Nodes.EdgeRange(i)
				for _, tg := range s.Edges.Target[lo:hi] {
					if int(tg) != i {
						pointed[tg] = true
					}
				}
			}
			if len(s.Roots)+len(pointed) != s.Nodes.Len() {
				t.Errorf("%d roots + %d pointed-to != %d nodes", len(s.Roots), len(pointed), s.Nodes.Len())
			}
		}
		// Writing keeps the profile and the contents.
		var out bytes.Buffer
		dir2 := filepath.Join(t.TempDir(), "out")
		loss, err := wfuchsia.Write(&out, f, wfuchsia.Options{ContentsDir: dir2})
		if err != nil {
			t.Fatal(err)
		}
		edges := 0
		for _, s := range f.Snapshots {
			edges += s.Edges.Len()
		}
		if l, _ := loss.Get(ir.LossDerivedEdges); l.Count != int64(edges) || !strings.Contains(l.What, "heuristic") {
			t.Errorf("loss report (want the %d heuristic edges):\n%v", edges, loss)
		}
		if err := sameProfile(parse(t, data), parse(t, out.Bytes())); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadDir(dir)
		b, _ := os.ReadDir(dir2)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%d contents files written for %d", len(b), len(a))
		}
		for _, e := range a {
			x, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			y, err := os.ReadFile(filepath.Join(dir2, e.Name()))
			if err != nil || !bytes.Equal(x, y) {
				t.Fatalf("%s: contents differ (%v)", e.Name(), err)
			}
		}
	}
}

func fmtSscanf(name string, off *uint64) (int, error) {
	if !strings.HasPrefix(name, "+0x") {
		return 0, errors.New("no +0x")
	}
	var v uint64
	for _, c := range name[3:] {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + uint64(c-'a'+10)
		default:
			return 0, errors.New("bad hex")
		}
	}
	*off = v
	return 1, nil
}

func TestContentsWrongSize(t *testing.T) {
	h := generate(t, fuchsiagen.Options{Seed: 3, Allocations: 50, Contents: true, UnreadablePermille: -1})
	data, err := fuchsiagen.ProfileBytes(h.Snapshots, fuchsiagen.WriteOptions{Era: fuchsiagen.EraCurrent, WithTags: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	if err := fuchsiagen.WriteContentsDir(dir, h.Snapshots, false); err != nil {
		t.Fatal(err)
	}
	a := h.Snapshots[0].Allocations[5]
	name := fuchsiagen.ContentsFileName(0, a.Address, false)
	if err := os.WriteFile(filepath.Join(dir, name), append(a.Contents, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = fuchsia.ReadBytes(data, fuchsia.Options{ContentsDir: dir})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, name)) {
		t.Fatalf("error %v does not name %s", err, name)
	}
	// A missing file is an unreadable block.
	os.Remove(filepath.Join(dir, name))
	f, err := fuchsia.ReadBytes(data, fuchsia.Options{ContentsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fuchsiair.Of(f.Snapshots[0]).ContentsOf(5); ok {
		t.Error("block 5 has contents")
	}
}

func TestSymbolizedSites(t *testing.T) {
	for _, fx := range fuchsiagen.Fixtures() {
		if !strings.Contains(fx.Name, "symbolized") {
			continue
		}
		snaps, wo, err := fx.Make()
		if err != nil {
			t.Fatal(err)
		}
		data, err := fuchsiagen.ProfileBytes(snaps, wo)
		if err != nil {
			t.Fatal(err)
		}
		f, err := fuchsia.ReadBytes(data, fuchsia.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < f.Classes.Len(); k++ {
			name := f.String(f.Classes.Name[k])
			if fuchsiair.IsAllocatorFrame(name) || strings.Contains(name, "scudo") || strings.Contains(name, "hook") {
				t.Errorf("allocation site %q is an allocator frame", name)
			}
		}
		if f.Classes.Len() < 5 {
			t.Errorf("only %d allocation sites", f.Classes.Len())
		}
	}
}

func TestNotAProfile(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("hello"), {0x1f, 0x8b, 0, 0}, {0x0a, 0x02, 0x08}} {
		if _, err := fuchsia.ReadBytes(in, fuchsia.Options{}); err == nil {
			t.Errorf("%q read", in)
		}
	}
}

// generate runs the generator.
func generate(t testing.TB, o fuchsiagen.Options) *fuchsiagen.Heap {
	t.Helper()
	h, err := fuchsiagen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestFixtureFiles reads the committed fixture files (with their contents
// directories) and writes them back.
func TestFixtureFiles(t *testing.T) {
	dir := "../../testdata/fuchsia"
	n := 0
	for _, fx := range fuchsiagen.Fixtures() {
		data, err := os.ReadFile(filepath.Join(dir, fx.Name))
		if os.IsNotExist(err) {
			continue // a fixture generated, not committed
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		opts := fuchsia.Options{}
		if fx.ContentsDir != "" {
			opts.ContentsDir, opts.ScanPointers = filepath.Join(dir, fx.ContentsDir), true
		}
		f, err := fuchsia.ReadBytes(data, opts)
		if err != nil {
			t.Errorf("%s: %v", fx.Name, err)
			continue
		}
		roundTrip(t, data, f, false)
	}
	if n < 10 {
		t.Fatalf("only %d fixture files in %s", n, dir)
	}
}

// TestUnsymbolizedSites checks the allocation sites of unsymbolized
// profiles against symbolized ones of the same heaps, for every program of
// the generator on both architectures: the sites must tell the allocations
// apart at least half as well as the symbolized ones do, and for C the
// frame an unsymbolized stack is named by must be neither an allocator
// frame (by the symbolized function names) nor one before the symbolized
// site. It logs how often the frame is the symbolized site's.
func TestUnsymbolizedSites(t *testing.T) {
	for _, arch := range []string{"arm64", "x64"} {
		for _, prog := range fuchsiagen.ProgramNames() {
			h := generate(t, fuchsiagen.Options{Seed: 11, Allocations: 300, Programs: []string{prog}, Arch: arch})
			wo := fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true} // symbolized as return addresses
			plain, err := fuchsiagen.ProfileBytes(h.Snapshots, wo)
			if err != nil {
				t.Fatal(err)
			}
			wo.Symbolize, wo.Symbolizer = true, h.Symbols
			sym, err := fuchsiagen.ProfileBytes(h.Snapshots, wo)
			if err != nil {
				t.Fatal(err)
			}
			fp, err := fuchsia.ReadBytes(plain, fuchsia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fsym, err := fuchsia.ReadBytes(sym, fuchsia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sp, ss := fp.Snapshots[0], fsym.Snapshots[0]
			lc := &fuchsiair.FileOf(fsym).Locations
			allocator := func(l uint32) bool {
				for _, fn := range lc.Function[lc.FirstLine[l]:lc.FirstLine[l+1]] {
					if !fuchsiair.IsAllocatorFrame(fsym.Strings[fuchsiair.FileOf(fsym).Functions.Name[fn-1]]) {
						return false
					}
				}
				return lc.FirstLine[l] < lc.FirstLine[l+1]
			}
			bad, exact := 0, 0
			classes, symClasses := map[uint32]bool{}, map[uint32]bool{}
			for i := 0; i < ss.Nodes.Len(); i++ {
				stack := fuchsiair.Of(ss).StackOf(int(fuchsiair.Of(ss).Stack[i]))
				site := -1 // the symbolized site's frame
				for j, l := range stack {
					if !allocator(l) && lc.FirstLine[l] < lc.FirstLine[l+1] {
						site = j
						break
					}
				}
				got := -1
				for j, l := range stack {
					if fuchsiair.FileOf(fsym).AddressName(fsym.Strings, int(l)) == fp.Strings[sp.Nodes.Name[i]] {
						got = j
						break
					}
				}
				classes[sp.Nodes.Class[i]] = true
				symClasses[ss.Nodes.Class[i]] = true
				switch {
				case got == site:
					exact++
				case got < 0 || site >= 0 && got < site || allocator(stack[got]):
					bad++
					if bad <= 2 {
						t.Logf("%s/%s node %d: named by frame %d, the symbolized site is frame %d", arch, prog, i, got, site)
					}
				}
			}
			t.Logf("%s/%s: %d of %d nodes named by the symbolized site's frame, %d by an allocator frame or one before the site; %d classes (symbolized: %d)",
				arch, prog, exact, sp.Nodes.Len(), bad, len(classes), len(symClasses))
			// C allocates through malloc alone: the hooks and libc.so are
			// the whole allocator, and no site may fall inside it. (C++'s
			// operator new and Rust's shims are found by how many
			// allocations funnel through them, which is a guess.)
			if prog == "heapdump-example" && bad > 0 {
				t.Errorf("%s/%s: %d of %d nodes named by an allocator frame or one before the allocation site", arch, prog, bad, sp.Nodes.Len())
			}
			if 2*len(classes) < len(symClasses) {
				t.Errorf("%s/%s: %d classes, the symbolized profile has %d", arch, prog, len(classes), len(symClasses))
			}
		}
	}
}

// TestCallSiteClasses reads the heap of fuchsiagen.CallSites, whose
// blocks come from four allocation sites, unsymbolized and symbolized:
// unsymbolized, each block is named by its site's frame as module+offset
// (the frames of libc.so and of heapdump's instrumentation are the
// allocator's, and the frames past the site, up to __libc_start_main,
// are its callers'), whether the stacks start with the hook or in Scudo
// and whether the instrumentation library is mapped or not; symbolized,
// by its site's function. Either way the blocks of a site form one class
// of their own.
func TestCallSiteClasses(t *testing.T) {
	for _, shape := range []struct{ hooks, instrumentation bool }{{false, true}, {false, false}, {true, true}} {
		snap := fuchsiagen.CallSitesSnapshot(shape.hooks, shape.instrumentation)
		// The site of each block, found in its stack, and the name a
		// symbolizer gives its frame: the module and the offset in the
		// module's file.
		var prog fuchsiagen.Region
		for _, r := range snap.Regions {
			if r.Name == fuchsiagen.CallSitesProgram {
				prog = r
			}
		}
		siteOf := make([]int, len(snap.Allocations))
		for i, a := range snap.Allocations {
			siteOf[i] = -1
			for k, site := range fuchsiagen.CallSites {
				if slices.Contains(a.Stack, site.Return) {
					siteOf[i] = k
				}
			}
		}
		for _, symbolize := range []bool{false, true} {
			wo := fuchsiagen.WriteOptions{Era: fuchsiagen.EraNewest, WithTags: true}
			if symbolize {
				wo.Symbolize, wo.Symbolizer = true, fuchsiagen.CallSitesSymbols()
			}
			data, err := fuchsiagen.ProfileBytes([]*fuchsiagen.Snapshot{snap}, wo)
			if err != nil {
				t.Fatal(err)
			}
			f, err := fuchsia.ReadBytes(data, fuchsia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := f.Snapshots[0]
			what := fmt.Sprintf("hooks %v, instrumentation mapped %v, symbolized %v", shape.hooks, shape.instrumentation, symbolize)
			if s.Nodes.Len() != len(snap.Allocations) {
				t.Fatalf("%s: %d nodes for %d blocks", what, s.Nodes.Len(), len(snap.Allocations))
			}
			classOfSite := map[int]uint32{}
			for i := 0; i < s.Nodes.Len(); i++ {
				site := fuchsiagen.CallSites[siteOf[i]]
				want := site.Function
				if !symbolize {
					want = fmt.Sprintf("%s+0x%x", fuchsiagen.CallSitesProgram, site.Return-prog.Address+prog.FileOffset)
				}
				name, class, className := f.String(s.Nodes.Name[i]), s.Nodes.Class[i], ""
				if class > 0 { // 1 + the class's index
					className = f.String(f.Classes.Name[class-1])
				}
				if name != want || className != want {
					t.Errorf("%s: block %d (site %s) named %q, class %q; want %q", what, i, site.Function, name, className, want)
				}
				if c, ok := classOfSite[siteOf[i]]; ok && c != class {
					t.Errorf("%s: the blocks of %s are in classes %d and %d", what, site.Function, c, class)
				}
				classOfSite[siteOf[i]] = class
			}
			if f.Classes.Len() != len(fuchsiagen.CallSites) {
				t.Errorf("%s: %d classes for %d sites", what, f.Classes.Len(), len(fuchsiagen.CallSites))
			}
		}
	}
}
