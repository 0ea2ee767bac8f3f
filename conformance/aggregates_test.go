package conformance

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// A Fuchsia profile's sample may stand for several allocations (ffx
// without --with-tags merges the blocks of a stack; the kernel's collector
// sends aggregates). In a graph format an allocation is an object.

// objectsAndBytes is a class's objects and bytes.
type objectsAndBytes struct{ objects, bytes uint64 }

// profileClasses sums a Fuchsia file's allocations (the samples' counts)
// and bytes per class, from the Fuchsia section itself.
func profileClasses(f *ir.File, k int) map[string]objectsAndBytes {
	s := f.Snapshots[k]
	fs := fuchsiair.Of(s)
	out := map[string]objectsAndBytes{}
	for i := range s.Nodes.Len() {
		name := f.String(f.Classes.Name[s.Nodes.Class[i]-1])
		c := out[name]
		c.objects += fs.Count.At(i)
		c.bytes += s.Nodes.SelfSize.At(i)
		out[name] = c
	}
	return out
}

// graphClasses counts a graph heap's objects (its nodes, but those a
// writer added) and bytes per class.
func graphClasses(f *ir.File) map[string]objectsAndBytes {
	s := f.Snapshots[0]
	synthetic := ir.SyntheticNodes(f, s)
	out := map[string]objectsAndBytes{}
	for i := range s.Nodes.Len() {
		if synthetic[i] {
			continue
		}
		name := analysis.ClassName(f, s, i)
		c := out[name]
		c.objects++
		c.bytes += s.Nodes.SelfSize.At(i)
		out[name] = c
	}
	return out
}

// TestAggregatedSamples: ffx's own test profile merges stack B's four
// blocks (49,200 bytes) into one sample. Converted to V8, Dart and MoarVM
// it has four objects of that class, 49,200 bytes together, as DevTools'
// loader shows them; the loss report says that their sizes are an even
// split; and converted back to a profile, every class has its allocations
// and bytes again, one sample each.
func TestAggregatedSamples(t *testing.T) {
	t.Parallel()
	fuchsia := formatByName(fuchsiair.Format)
	src := read(t, fuchsia, loadFixture(t, filepath.Join(moduleRoot, "testdata", "fuchsia", "ffx-test-current-agg.pb")))
	want := profileClasses(src, 0)
	var sizes []objectsAndBytes
	for _, c := range want {
		sizes = append(sizes, c)
	}
	if len(want) != 2 || !(sizes[0] == objectsAndBytes{4, 49200} || sizes[1] == objectsAndBytes{4, 49200}) {
		t.Fatalf("the fixture has %v; want stack B's 4 blocks of 49,200 bytes and stack A's one", want)
	}
	o := newOracle(t.TempDir())
	for _, target := range []string{v8ir.Format, dartir.Format, moarvmir.Format} {
		t.Run(target, func(t *testing.T) {
			fm := formatByName(target)
			out, loss := write(t, fm, src)
			if l, ok := loss.Get(ir.LossAggregates); !ok || l.Count != 1 || !strings.Contains(l.What, "4 objects") {
				t.Errorf("the loss report does not name the one sample made 4 objects: %v", loss)
			}
			back := read(t, fm, out)
			if got := graphClasses(back); !maps.Equal(got, want) {
				t.Errorf("objects and bytes per class %v, want %v", got, want)
			}
			// Back to a profile: each object a sample of its own, the
			// class's allocations and bytes what they were.
			prof, _ := write(t, fuchsia, back)
			again := read(t, fuchsia, prof)
			if got := profileClasses(again, 0); !maps.Equal(got, want) {
				t.Errorf("converted back to a profile: %v, want %v", got, want)
			}
			if n := again.Snapshots[0].Nodes.Len(); n != 5 {
				t.Errorf("converted back to a profile: %d samples, want the 5 allocations", n)
			}
			if target != v8ir.Format {
				return
			}
			path := o.file(t, "ffx-test-current-agg", out)
			o.expect("ffx-test-current-agg", func(t *testing.T, sum func(string) *summary) {
				s := sum(path)
				if !loaded(t, s) {
					return
				}
				for name, w := range want {
					if c := s.Classes[name]; c.Count != int64(w.objects) || c.Self != int64(w.bytes) {
						t.Errorf("DevTools shows class %q as %d objects of %d bytes, want %d of %d", name, c.Count, c.Self, w.objects, w.bytes)
					}
				}
			})
		})
	}
	t.Run("devtools", o.run)
}

// TestAggregatedKernel: the kernel collector's 80 aggregates are 52,311
// allocations, and a V8 file has that many objects, class by class.
func TestAggregatedKernel(t *testing.T) {
	src := read(t, formatByName(fuchsiair.Format), loadFixture(t, filepath.Join(moduleRoot, "testdata", "fuchsia", "gen-newest-kernel-multi.pb.gz")))
	want := profileClasses(src, 0)
	var objects uint64
	for _, c := range want {
		objects += c.objects
	}
	if n := src.Snapshots[0].Nodes.Len(); n != 80 || objects != 52311 {
		t.Fatalf("the fixture has %d samples of %d allocations; want 80 of 52,311", n, objects)
	}
	out, _ := write(t, formatByName(v8ir.Format), src)
	if got := graphClasses(read(t, formatByName(v8ir.Format), out)); !maps.Equal(got, want) {
		t.Errorf("objects and bytes per class %v, want %v", got, want)
	}
}

// hostileProfile is a profile of two samples in one mapping: count
// allocations of size bytes, and 3 of 30 bytes.
func hostileProfile(t *testing.T, count, size int64) []byte {
	t.Helper()
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, File: "libfoo.so", BuildID: "abcd"}
	loc := func(id, addr uint64) *profile.Location { return &profile.Location{ID: id, Mapping: m, Address: addr} }
	a, b := loc(1, 0x1100), loc(2, 0x1200)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "objects", Unit: "count"}, {Type: "allocated", Unit: "bytes"}},
		Mapping:    []*profile.Mapping{m},
		Location:   []*profile.Location{a, b},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{a}, Value: []int64{count, size}},
			{Location: []*profile.Location{b}, Value: []int64{3, 30}},
		},
	}
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAggregatedHostileCount: a count is a number in the input. A sample
// of 4 KiB claiming 2^60 allocations (or just more than a snapshot is
// expanded to) stays one object, which the loss report names, while the
// other sample is expanded; nothing allocates what the count claims.
func TestAggregatedHostileCount(t *testing.T) {
	fuchsia := formatByName(fuchsiair.Format)
	for _, count := range []int64{1 << 60, int64(ir.ExpansionLimit(2))} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			src := read(t, fuchsia, hostileProfile(t, count, 4096))
			var objects uint64
			for _, c := range analysis.ClassStats(src, src.Snapshots[0]) {
				objects += c.Count
			}
			if objects != uint64(count)+3 {
				t.Errorf("info's classes count %d objects, want %d", objects, count+3)
			}
			for _, target := range []string{v8ir.Format, dartir.Format, moarvmir.Format} {
				fm := formatByName(target)
				out, loss := write(t, fm, src)
				capped, _ := loss.Get(ir.LossAggregatesCapped)
				expanded, _ := loss.Get(ir.LossAggregates)
				if capped.Count != 1 || expanded.Count != 1 {
					t.Errorf("%s: loss report %v; want the hostile sample capped and the other expanded", target, loss)
				}
				var objects uint64
				for _, c := range graphClasses(read(t, fm, out)) {
					objects += c.objects
				}
				if objects != 4 {
					t.Errorf("%s: %d objects, want 1 + 3", target, objects)
				}
			}
		})
	}
}
