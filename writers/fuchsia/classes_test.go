package fuchsia_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	rdart "github.com/heapconv/heapconv/readers/dart"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	"github.com/heapconv/heapconv/writers/fuchsia"
)

// tally is the objects and bytes of one class.
type tally struct{ objects, bytes uint64 }

// classTally sums the objects of snapshot s per class, told apart by name
// and library as ir.ClassLabels tells them; synthetic nodes are not
// objects, and a Fuchsia sample counts its blocks.
func classTally(f *ir.File, s *ir.Snapshot) map[string]tally {
	out := map[string]tally{}
	synthetic := ir.SyntheticNodes(f, s) // what Convert does not write
	for i := range s.Nodes.Len() {
		if synthetic[i] {
			continue
		}
		key := analysis.ClassName(f, s, i)
		if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
			key += "\x00" + ir.ClassLibrary(f, int(s.Nodes.Class[i]-1))
		} else {
			key += "\x00"
		}
		t := out[key]
		t.objects++
		if fuchsiair.Of(s) != nil { // a sample may stand for several blocks
			t.objects += fuchsiair.Of(s).Count.At(i) - 1
		}
		t.bytes += s.Nodes.SelfSize.At(i)
		out[key] = t
	}
	return out
}

// sameClasses fails when a graph heap written by write and read back by
// read does not have the same objects and bytes per class, snapshot by
// snapshot.
func sameClasses(t *testing.T, f *ir.File, write func(io.Writer, *ir.File) (ir.LossReport, error), read func([]byte) (*ir.File, error)) {
	t.Helper()
	var out bytes.Buffer
	loss, err := write(&out, f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := read(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Snapshots) != len(f.Snapshots) {
		t.Fatalf("%d snapshots read back, %d written", len(g.Snapshots), len(f.Snapshots))
	}
	for k, s := range f.Snapshots {
		want, got := classTally(f, s), classTally(g, g.Snapshots[k])
		if len(got) != len(want) {
			t.Errorf("snapshot %d: %d classes read back, %d written", k, len(got), len(want))
		}
		bad := 0
		for c, w := range want {
			if got[c] != w {
				if bad++; bad <= 3 {
					t.Errorf("snapshot %d: class %q: %d objects of %d bytes read back, %d of %d written",
						k, c, got[c].objects, got[c].bytes, w.objects, w.bytes)
				}
			}
		}
		if bad > 0 {
			t.Logf("%d classes differ; loss report:\n%v", bad, loss)
		}
	}
}

func writePprof(w io.Writer, f *ir.File) (ir.LossReport, error) {
	return fuchsia.Write(w, f, fuchsia.Options{})
}

func readPprof(data []byte) (*ir.File, error) { return rfuchsia.ReadBytes(data, rfuchsia.Options{}) }

func readFIDL(data []byte) (*ir.File, error) {
	return rfuchsia.ReadFIDL(bytes.NewReader(data), rfuchsia.Options{Size: int64(len(data))})
}

// readFixture reads a fixture of the module's testdata, zstd-compressed
// when it ends in .zst.
func readFixture(t *testing.T, path string, read func(io.Reader) (*ir.File, error)) *ir.File {
	t.Helper()
	data, err := os.ReadFile("../../testdata/" + path)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = bytes.NewReader(data)
	if strings.HasSuffix(path, ".zst") {
		zr, err := zstd.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	f, err := read(r)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFIDLGraphClasses writes graph heaps as FIDL streams: reading one back
// gives every object its class (the stream has no function names: the
// classes travel in the regions). Profiles, which have them, too.
func TestFIDLGraphClasses(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(t *testing.T) *ir.File
	}{
		{"v8-node20", func(t *testing.T) *ir.File {
			return readFixture(t, "v8/node20.heapsnapshot.zst", func(r io.Reader) (*ir.File, error) { return rv8.Read(r, rv8.Options{}) })
		}},
		{"moarvm-3snap", func(t *testing.T) *ir.File {
			return readFixture(t, "moarvm/nqp-3snap.mvmheap", func(r io.Reader) (*ir.File, error) { return rmoarvm.Read(r, rmoarvm.Options{}) })
		}},
		{"random", func(*testing.T) *ir.File {
			return irtest.Random(5, irtest.Options{MinNodes: 300, MaxNodes: 600, Snapshots: 2, Classes: true})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.f(t)
			t.Run("fidl", func(t *testing.T) { sameClasses(t, f, fuchsia.WriteFIDL, readFIDL) })
			t.Run("pprof", func(t *testing.T) { sameClasses(t, f, writePprof, readPprof) })
			// The profile read back, sent as a stream.
			t.Run("pprof-fidl", func(t *testing.T) {
				var out bytes.Buffer
				if _, err := writePprof(&out, f); err != nil {
					t.Fatal(err)
				}
				g, err := readPprof(out.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				loss := func(w io.Writer, g *ir.File) (ir.LossReport, error) {
					l, err := fuchsia.WriteFIDL(w, g)
					if l.Has(ir.LossClasses) || l.Has(ir.LossAllocationStacks) {
						t.Errorf("classes named by class mappings reported lost:\n%v", l)
					}
					return l, err
				}
				sameClasses(t, g, loss, readFIDL)
			})
		})
	}
}

// TestClassQualifiers writes heaps whose classes share names — Dart's Node
// of package:myapp and of package:graph_kit, MoarVM types of one name and
// several REPRs — as profiles and streams: reading them back gives as many
// classes, with their libraries, and the same objects in each.
func TestClassQualifiers(t *testing.T) {
	var dart bytes.Buffer
	if _, err := dartgen.Generate(&dart, dartgen.Options{Seed: 3, Objects: 3000}); err != nil {
		t.Fatal(err)
	}
	df, err := rdart.Read(bytes.NewReader(dart.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mf := readFixture(t, "moarvm/nqp-1snap.mvmheap", func(r io.Reader) (*ir.File, error) { return rmoarvm.Read(r, rmoarvm.Options{}) })
	for _, c := range []struct {
		name  string
		f     *ir.File
		clash string // a class name two classes of f have
	}{
		{"dart", df, "Node"},
		{"moarvm", mf, "EXPORTHOW"},
	} {
		// The heap must have the clash the test is about, with objects in
		// both classes.
		libs := map[string]bool{}
		for _, s := range c.f.Snapshots {
			for key := range classTally(c.f, s) {
				if name, lib, _ := strings.Cut(key, "\x00"); name == c.clash {
					libs[lib] = true
				}
			}
		}
		if len(libs) < 2 {
			t.Fatalf("%s: the objects of %q are of %d libraries, want 2 or more", c.name, c.clash, len(libs))
		}
		t.Run(c.name+"/pprof", func(t *testing.T) { sameClasses(t, c.f, writePprof, readPprof) })
		t.Run(c.name+"/fidl", func(t *testing.T) { sameClasses(t, c.f, fuchsia.WriteFIDL, readFIDL) })
	}
}

// TestFIDLClassFunctions reads a converted graph heap's stream and writes
// it as a profile: its class frames are symbolized by their classes, as
// in the profile written from the heap, for pprof's views.
func TestFIDLClassFunctions(t *testing.T) {
	f := readFixture(t, "v8/small/compact.heapsnapshot", func(r io.Reader) (*ir.File, error) { return rv8.Read(r, rv8.Options{}) })
	var stream, prof bytes.Buffer
	if _, err := fuchsia.WriteFIDL(&stream, f); err != nil {
		t.Fatal(err)
	}
	g, err := readFIDL(stream.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	loss, err := writePprof(&prof, g)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(bytes.NewReader(prof.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	var want []string
	for i := range s.Nodes.Len() {
		if s.NodeKindName(i) != ir.KindSynthetic {
			want = append(want, analysis.ClassName(f, s, i))
		}
	}
	if len(p.Sample) != len(want) {
		t.Fatalf("%d samples for %d objects", len(p.Sample), len(want))
	}
	for k, smp := range p.Sample {
		if ls := smp.Location[0].Line; len(ls) != 1 || ls[0].Function.Name != want[k] {
			t.Fatalf("sample %d: leaf lines %v, want the class %q", k, ls, want[k])
		}
	}
	// Only the stream's own details, which a profile has no place for.
	if len(loss) != 1 || loss[0].Kind != fuchsiair.LossStream {
		t.Errorf("a stream-read profile written as a profile loses:\n%v", loss)
	}
}

// TestPprofClassMappings checks that a profile written from a graph heap
// keeps its classes through pprof's own rewriting (go tool pprof -proto
// merges its input: mappings of the same size, offset and build id
// become one), even for classes without a name or of the same length.
func TestPprofClassMappings(t *testing.T) {
	f := irtest.Random(9, irtest.Options{MinNodes: 200, MaxNodes: 300, Classes: true})
	empty := uint32(len(f.Strings))
	f.Strings = append(f.Strings, "", "Aa", "Bb")
	for k := range f.Classes.Name {
		f.Classes.Name[k], f.Classes.Library[k] = empty+uint32(k%3), empty
	}
	merged := func(w io.Writer, f *ir.File) (ir.LossReport, error) {
		var out bytes.Buffer
		loss, err := writePprof(&out, f)
		if err != nil {
			return nil, err
		}
		p, err := profile.Parse(&out)
		if err != nil {
			return nil, err
		}
		if p, err = profile.Merge([]*profile.Profile{p}); err != nil {
			return nil, err
		}
		return loss, p.Write(w)
	}
	sameClasses(t, f, merged, readPprof)
}
