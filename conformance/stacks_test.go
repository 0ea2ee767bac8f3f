package conformance

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"

	"github.com/google/pprof/profile"
)

// TestFuchsiaStacksInDevTools: a Fuchsia heapdump converted to V8 carries
// every block's allocation stack as V8's allocation traces, and DevTools
// shows each block's stack: the frames of its Fuchsia stack, innermost
// first (a symbolized location's inlined functions each a frame; an
// unsymbolized one its module and offset), under DevTools' "(root)".
func TestFuchsiaStacksInDevTools(t *testing.T) {
	t.Parallel()
	o := newOracle(t.TempDir())
	v8 := formatByName(v8ir.Format)
	for _, glob := range []string{"testdata/fuchsia/*.pb*", "testdata/fuchsia-fidl/*.fidlstream"} {
		paths, err := filepath.Glob(filepath.Join(moduleRoot, glob))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		fm := formatByName(fuchsiair.Format)
		if strings.HasSuffix(glob, ".fidlstream") {
			fm = formatByName(fuchsiair.FormatFIDL)
		}
		for _, path := range paths {
			f := read(t, fm, loadFixture(t, path))
			for k := range f.Snapshots {
				name := fmt.Sprintf("%s-%d", fixtureName(path), k)
				t.Run(name, func(t *testing.T) {
					src, err := f.Select(k)
					if err != nil {
						t.Fatal(err)
					}
					out, loss := write(t, v8, src)
					got := read(t, v8, out)
					// Each allocation of a sample is an object with the
					// sample's stack (ir.ExpandObjects).
					expanded, _ := ir.ExpandObjects(src)
					want := expectedStacks(expanded)
					checkTraces(t, got, want)
					for _, kind := range []string{ir.LossTimestamps, ir.LossThreads} {
						if !loss.Has(kind) && hasFlagOrThread(src, kind) {
							t.Errorf("the loss report does not name %s: %v", kind, loss)
						}
					}
					path := o.file(t, name, out)
					o.expect(name, func(t *testing.T, sum func(string) *summary) {
						s := sum(path)
						if !loaded(t, s) {
							return
						}
						if len(s.Stacks) == 0 && len(want) > 0 {
							t.Fatal("DevTools shows no allocation stack")
						}
						byID := nodeIndexByID(got)
						for id, frames := range s.Stacks {
							n, err := strconv.ParseUint(id, 10, 64)
							if err != nil {
								t.Fatal(err)
							}
							i := byID[n] - syntheticFront(got)
							compareFrames(t, fmt.Sprintf("node %d (id %s)", i, id), frames, append(want[i], "(root)"))
						}
					})
				})
			}
		}
	}
	t.Run("devtools", o.run)
}

// hasFlagOrThread reports whether src has what the kind names.
func hasFlagOrThread(src *ir.File, kind string) bool {
	fs := fuchsiair.Of(src.Snapshots[0])
	if kind == ir.LossThreads {
		for _, th := range fs.Thread {
			if th > 0 {
				return true
			}
		}
		return false
	}
	for _, fl := range fs.Flags {
		if fl&fuchsiair.FlagTimestamp != 0 {
			return true
		}
	}
	return false
}

// expectedStacks lists each node's frames, innermost first, by function
// name (or program address when unsymbolized), read from the Fuchsia
// section directly.
func expectedStacks(f *ir.File) [][]string {
	s := f.Snapshots[0]
	fs, lc := fuchsiair.Of(s), &fuchsiair.FileOf(f).Locations
	out := make([][]string, s.Nodes.Len())
	for i := range out {
		if fs.Stacks() == 0 {
			continue
		}
		for _, l := range fs.StackOf(int(fs.Stack[i])) {
			lo, hi := lc.FirstLine[l], lc.FirstLine[l+1]
			if lo == hi {
				out[i] = append(out[i], fmt.Sprintf("%#x", lc.Address[l]))
				continue
			}
			for k := lo; k < hi; k++ {
				out[i] = append(out[i], f.String(fuchsiair.FileOf(f).Functions.Name[lc.Function[k]-1]))
			}
		}
	}
	return out
}

// compareFrames checks frames shown against the expected names: a
// symbolized frame starts with its function's name, an unsymbolized one
// names the module and offset of its address, which the test cannot
// compute without the mapping, so only its presence is checked.
func compareFrames(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d frames, want %d:\n got  %q\n want %q", what, len(got), len(want), got, want)
		return
	}
	for j := range want {
		if strings.HasPrefix(want[j], "0x") {
			if !strings.Contains(got[j], "+0x") && !strings.HasPrefix(got[j], want[j]+" ") {
				t.Errorf("%s frame %d: %q, want the address %s or a module offset", what, j, got[j], want[j])
			}
			continue
		}
		if !strings.HasPrefix(got[j], want[j]+" ") {
			t.Errorf("%s frame %d: %q, want function %q", what, j, got[j], want[j])
		}
	}
}

// checkTraces checks, for every node, the V8 file's own traces (read back
// by the V8 reader, through v8ir.Traces) against the Fuchsia stacks: the
// trace node's path up to the root names the stack's frames.
func checkTraces(t *testing.T, got *ir.File, want [][]string) {
	t.Helper()
	traces := v8ir.Of(got.Snapshots[0]).Traces(got)
	if traces == nil {
		t.Fatal("the V8 file has no allocation traces")
	}
	shift := syntheticFront(got)
	bad := 0
	for i, frames := range want {
		stack := traces.Stack(traces.NodeIDs.At(i + shift))
		if len(stack) != len(frames) {
			if bad++; bad <= 5 {
				t.Errorf("node %d: %d frames, want %q", i, len(stack), frames)
			}
			continue
		}
		for j, w := range frames {
			if !strings.HasPrefix(w, "0x") && stack[j].Function != w {
				if bad++; bad <= 5 {
					t.Errorf("node %d frame %d: %q, want %q", i, j, stack[j].Function, w)
				}
			}
		}
	}
}

// syntheticFront counts the synthetic nodes a conversion put in front.
func syntheticFront(f *ir.File) int {
	s := f.Snapshots[0]
	n := 0
	for n < s.Nodes.Len() && s.NodeKindName(n) == ir.KindSynthetic {
		n++
	}
	return n
}

// nodeIndexByID maps node ids to node indices.
func nodeIndexByID(f *ir.File) map[uint64]int {
	s := f.Snapshots[0]
	m := make(map[uint64]int, s.Nodes.Len())
	for i := range s.Nodes.Len() {
		m[s.Nodes.ID.At(i)] = i
	}
	return m
}

// TestV8TracesToPprof: a V8 snapshot taken with allocation tracking,
// written as a pprof profile, keeps each object's allocation stack as its
// sample's stack, under its class frame: what `go tool pprof` reads, but
// for heapconv's class frames (marked by their mappings' build ids), is
// the V8 stack, function by function, with files and lines.
func TestV8TracesToPprof(t *testing.T) {
	v8, fuchsia := formatByName(v8ir.Format), formatByName(fuchsiair.Format)
	src := read(t, v8, loadFixture(t, filepath.Join(moduleRoot, "testdata", "v8", "node26-tracking.heapsnapshot.zst")))
	traces := v8ir.Of(src.Snapshots[0]).Traces(src)
	if traces == nil {
		t.Fatal("the tracking fixture has no allocation traces")
	}
	// What the stacks should be, as pprof prints a stack (innermost
	// first, "function file:line"), counted.
	want := map[string]int{}
	s := src.Snapshots[0]
	for i := range s.Nodes.Len() {
		if s.NodeKindName(i) == ir.KindSynthetic {
			continue
		}
		var frames []string
		for _, fr := range traces.Stack(traces.NodeIDs.At(i)) {
			frames = append(frames, fmt.Sprintf("%s %s:%d", fr.Function, fr.File, fr.Line))
		}
		want[strings.Join(frames, " < ")]++
	}
	if len(want) < 2 {
		t.Fatalf("the fixture's objects have %d distinct stacks", len(want))
	}
	out, _ := write(t, fuchsia, src)
	p, err := profile.ParseData(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, smp := range p.Sample {
		var frames []string
		for _, loc := range smp.Location {
			if loc.Mapping != nil && strings.HasPrefix(loc.Mapping.BuildID, fuchsiair.ClassBuildID) {
				continue // heapconv's class frames (the object's, its dominators')
			}
			for _, ln := range loc.Line {
				frames = append(frames, fmt.Sprintf("%s %s:%d", ln.Function.Name, ln.Function.Filename, ln.Line))
			}
		}
		got[strings.Join(frames, " < ")] += int(smp.Value[0])
	}
	for stack, n := range want {
		if got[stack] != n {
			t.Errorf("%d objects allocated at %q; the profile has %d", n, stack, got[stack])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct stacks in the profile, %d in the snapshot", len(got), len(want))
	}
}
