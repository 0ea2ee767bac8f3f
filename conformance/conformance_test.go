package conformance

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/devtools"
	"github.com/heapconv/heapconv/ir/irtest"
)

// moduleRoot is where fixture globs are rooted (tests run in conformance/).
const moduleRoot = ".."

// sizes are the node-count ranges every random case runs at, with the
// seeds run at each.
var sizes = []struct {
	name     string
	min, max int
	seeds    []int64
}{
	{"tiny", 1, 12, []int64{1, 2, 3}},
	{"mid", 20, 400, []int64{4, 5}},
	{"big", 2000, 3000, []int64{6}},
}

// devtoolsSeed reports whether DevTools' loader opens what a random or
// foreign case of that size and seed wrote: for every seed in an
// exhaustive run, for the first seed of each size by default. Every seed's
// output is still written, read back and checked in Go; the loader is the
// slow part (a Node worker per file), and the seeds of one size give it
// files of one shape.
func devtoolsSeed(sz int, seed int64) bool {
	return sampling.Exhaustive() || seed == sizes[sz].seeds[0]
}

// devtoolsFixtures returns which of a format's n fixtures (in the glob's
// order) have DevTools' loader open what the suite makes of them: all in
// an exhaustive run, about half by default, spread from the first to the
// last. The others are read, written and checked in Go all the same; the
// loader takes about half a second for a fixture-sized file.
func devtoolsFixtures(n int) map[int]bool {
	m := map[int]bool{}
	for _, i := range sampling.Spread(n, sampling.Count(n, (n+1)/2)) {
		m[i] = true
	}
	return m
}

// TestConformance runs every format of the table through the same checks,
// then loads every V8 file it wrote with Chrome DevTools' loader.
func TestConformance(t *testing.T) {
	t.Parallel()
	o := newOracle(t.TempDir())
	for _, fm := range table {
		t.Run(fm.name, func(t *testing.T) {
			if fm.fixtures != "" {
				t.Run("fixtures", func(t *testing.T) { testFixtures(t, fm, o) })
			}
			t.Run("random", func(t *testing.T) { testRandom(t, fm, o) })
			if fm.write != nil && !fm.lossless {
				t.Run("foreign", func(t *testing.T) { testForeign(t, fm, o) })
			}
		})
	}
	t.Run("devtools", o.run)
}

// TestTableMatchesRegistry: every format of heapconv.Formats has a table
// entry, and the entries agree with the registry.
func TestTableMatchesRegistry(t *testing.T) {
	for _, f := range heapconv.Formats() {
		i := slices.IndexFunc(table, func(e format) bool { return e.name == f.Name })
		switch {
		case i < 0:
			t.Errorf("%s: the registry reads it but the conformance table has no entry", f.Name)
		default:
			e := table[i]
			if e.write == nil {
				t.Errorf("%s: the registry writes it but the table has no writer", f.Name)
			}
			// The registry calls the IR not byte-exact (a hand-made stream
			// may chunk differently); the table means that what the
			// encoder wrote is re-encoded identically, which holds.
			if f.ByteExact != e.byteExact && f.Name != ir.FormatIR {
				t.Errorf("%s: registry ByteExact %v, table byteExact %v", f.Name, f.ByteExact, e.byteExact)
			}
		}
	}
}

// loadFixture reads a fixture, decompressing .zst in memory.
func loadFixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".mvmheap.gz") { // stored gzipped; MoarVM writes them plain
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if strings.HasSuffix(path, ".zst") {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		if data, err = dec.DecodeAll(data, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return data
}

func fixtureName(path string) string {
	b := filepath.Base(path)
	b = strings.TrimSuffix(strings.TrimSuffix(b, ".zst"), ".mvmheap.gz")
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// write runs fm's writer into memory.
func write(t *testing.T, fm format, f *ir.File) ([]byte, ir.LossReport) {
	t.Helper()
	var b bytes.Buffer
	loss, err := fm.write(&b, f)
	if err != nil {
		t.Fatalf("%s writer: %v", fm.name, err)
	}
	if fm.pprofOutput {
		pprofRaw(t, b.Bytes()) // go tool pprof must read every profile written
	}
	return b.Bytes(), loss
}

// read runs fm's reader and validates the result.
func read(t *testing.T, fm format, data []byte) *ir.File {
	t.Helper()
	f, err := fm.read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s reader: %v", fm.name, err)
	}
	if err := f.Validate(); err != nil {
		t.Fatalf("%s reader returned an invalid file: %v", fm.name, err)
	}
	return f
}

// irRoundTrip checks (b): the IR encoding, plain and zstd, gives back an
// ir.Diff-equal file, and encoding is deterministic.
func irRoundTrip(t *testing.T, f *ir.File) {
	t.Helper()
	var first []byte
	for _, z := range []bool{false, true} {
		var b bytes.Buffer
		var err error
		if z {
			err = irstream.EncodeZstd(&b, f)
		} else {
			err = irstream.Encode(&b, f)
		}
		if err != nil {
			t.Fatalf("encode (zstd %v): %v", z, err)
		}
		if !z {
			first = slices.Clone(b.Bytes())
		}
		g, err := irstream.Decode(&b)
		if err != nil {
			t.Fatalf("decode (zstd %v): %v", z, err)
		}
		if d := ir.Diff(f, g, 10); len(d) > 0 {
			t.Fatalf("IR round trip (zstd %v) differs:\n%s", z, strings.Join(d, "\n"))
		}
		if !z {
			var again bytes.Buffer
			if err := irstream.Encode(&again, g); err != nil {
				t.Fatal(err)
			}
			irtest.SameBytes(t, "re-encoding the decoded file", again.Bytes(), first)
		}
	}
}

// graphDiff compares two files snapshot by snapshot with ir.GraphDiff.
func graphDiff(a, b *ir.File) []string {
	if len(a.Snapshots) != len(b.Snapshots) {
		return []string{fmt.Sprintf("snapshot count %d != %d", len(a.Snapshots), len(b.Snapshots))}
	}
	var out []string
	for i := range a.Snapshots {
		for _, d := range ir.GraphDiff(a, a.Snapshots[i], b, b.Snapshots[i], 10) {
			out = append(out, fmt.Sprintf("snapshot %d: %s", i, d))
		}
	}
	return out
}

// v8SectionDiff compares what a V8 section holds beyond the graph.
func v8SectionDiff(a, b *v8ir.Snapshot) []string {
	var out []string
	if (a == nil) != (b == nil) {
		return []string{fmt.Sprintf("V8 section present %v != %v", a != nil, b != nil)}
	}
	if a == nil {
		return nil
	}
	if !a.Header.Equal(&b.Header) {
		out = append(out, fmt.Sprintf("header %s != %s", a.Header.String(), b.Header.String()))
	}
	keys := func(v *v8ir.Snapshot) string {
		var s []string
		for _, k := range v.Keys {
			if k.Value != nil {
				s = append(s, k.Name+"="+k.Value.String())
			} else {
				s = append(s, k.Name)
			}
		}
		return strings.Join(s, ",")
	}
	if keys(a) != keys(b) {
		out = append(out, fmt.Sprintf("keys %s != %s", keys(a), keys(b)))
	}
	cols := func(what string, x, y []v8ir.Field) {
		if len(x) != len(y) {
			out = append(out, fmt.Sprintf("%s columns %d != %d", what, len(x), len(y)))
			return
		}
		for i := range x {
			if x[i].Name != y[i].Name || !x[i].Values.Equal(&y[i].Values) {
				out = append(out, fmt.Sprintf("%s column %q differs at %d", what, x[i].Name, x[i].Values.FirstDiff(&y[i].Values)))
			}
		}
	}
	cols("node", a.NodeExtra, b.NodeExtra)
	cols("edge", a.EdgeExtra, b.EdgeExtra)
	for _, c := range []struct {
		name string
		x, y *ir.Uints
	}{{"trace_function_infos", &a.TraceFunctionInfos, &b.TraceFunctionInfos}, {"trace_tree", &a.TraceTree, &b.TraceTree},
		{"samples", &a.Samples, &b.Samples}, {"locations", &a.Locations, &b.Locations}} {
		if !c.x.Equal(c.y) {
			out = append(out, fmt.Sprintf("%s differs at %d", c.name, c.x.FirstDiff(c.y)))
		}
	}
	return out
}

// testFixtures runs (a), (b) and the DevTools checks on each fixture.
func testFixtures(t *testing.T, fm format, o *oracle) {
	paths, err := filepath.Glob(filepath.Join(moduleRoot, fm.fixtures))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no fixtures match %s", fm.fixtures)
	}
	type counted struct {
		path         string
		nodes, edges uint64
	}
	var sources []counted
	dev := devtoolsFixtures(len(paths))
	for i, path := range paths {
		name := fixtureName(path)
		o := o
		if !dev[i] {
			o = o.skipping()
		}
		t.Run(name, func(t *testing.T) {
			data := loadFixture(t, path)
			f := read(t, fm, data)
			t.Run("ir", func(t *testing.T) { irRoundTrip(t, f) })
			var srcPath string
			if fm.v8Output {
				srcPath = o.file(t, name+"-source", data)
				jsonPath := srcPath
				if jsonPath == "" { // not for DevTools: for JSON.parse only
					jsonPath = o.skipOf.keep(t, name+"-source", data)
				}
				sum := analysis.Summarize(f, f.Snapshots[0], 0)
				sources = append(sources, counted{jsonPath, sum.Nodes, sum.Edges})
			}
			if fm.write != nil {
				t.Run("rewrite", func(t *testing.T) {
					out, loss := write(t, fm, f)
					// A writer that upgrades an old version (MoarVM 2 to 3)
					// computes what the new one requires (totals, metadata,
					// highscores), and says so; it must lose none.
					added := func(kind string) bool {
						return kind == ir.LossTotals || kind == moarvmir.LossMetadata || kind == moarvmir.LossHighscores
					}
					if len(loss) > 0 && !slices.ContainsFunc(loss.Kinds(), func(k string) bool { return !added(k) }) &&
						totalsKept(f, read(t, fm, out)) {
						t.Logf("added: %v", loss)
					} else if len(loss) > 0 {
						t.Errorf("writing what was read lost data:\n%v", loss)
					}
					if fm.byteExact {
						irtest.SameBytes(t, "rewritten fixture", out, data)
					}
					if fm.sameFile != nil {
						fm.sameFile(t, out, data)
					}
					back := read(t, fm, out)
					if fm.byteExact {
						if d := ir.Diff(f, back, 10); len(d) > 0 {
							t.Errorf("re-read differs:\n%s", strings.Join(d, "\n"))
						}
					} else if d := graphDiff(f, back); len(d) > 0 {
						t.Errorf("re-read graph differs:\n%s", strings.Join(d, "\n"))
					}
					if fm.v8Output {
						outPath := o.file(t, name+"-rewritten", out)
						o.expect(fm.name+"/"+name+"/rewritten", func(t *testing.T, sum func(string) *summary) {
							want, got := sum(srcPath), sum(outPath)
							if !loaded(t, want) || !loaded(t, got) {
								return
							}
							sameSummary(t, got, want)
						})
					}
				})
			}
			for i := range f.Snapshots {
				t.Run(fmt.Sprintf("to-v8/snapshot%d", i), func(t *testing.T) { testToV8(t, fm, name, f, i, srcPath, o) })
			}
		})
	}
	if fm.v8Output {
		// `heapconv info --json` counts (analysis.Summarize) against a plain
		// JSON.parse of each fixture.
		t.Run("json-parse-counts", func(t *testing.T) {
			if len(sources) != len(paths) {
				t.Fatalf("only %d of %d fixtures were read", len(sources), len(paths))
			}
			var files []string
			for _, s := range sources {
				files = append(files, s.path)
			}
			for i, c := range parseCounts(t, files) {
				s := sources[i]
				if uint64(c.NodeCount) != s.nodes || uint64(c.EdgeCount) != s.edges ||
					uint64(c.NodeRows) != s.nodes || uint64(c.EdgeRows) != s.edges {
					t.Errorf("%s: analysis.Summarize says %d nodes %d edges; JSON.parse says node_count %d edge_count %d, "+
						"nodes.length/fields %d, edges.length/fields %d", filepath.Base(s.path), s.nodes, s.edges,
						c.NodeCount, c.EdgeCount, c.NodeRows, c.EdgeRows)
				}
			}
		})
	}
}

// sameSummary requires two DevTools summaries to be equal.
func sameSummary(t *testing.T, got, want *summary) {
	t.Helper()
	if got.NodeCount != want.NodeCount || got.EdgeCount != want.EdgeCount || got.RootIndex != want.RootIndex ||
		got.TotalSize != want.TotalSize {
		t.Errorf("DevTools: nodes %d edges %d root %d total %.0f; source has %d %d %d %.0f", got.NodeCount, got.EdgeCount,
			got.RootIndex, got.TotalSize, want.NodeCount, want.EdgeCount, want.RootIndex, want.TotalSize)
	}
	if len(got.Classes) != len(want.Classes) {
		t.Errorf("DevTools: %d classes, source has %d", len(got.Classes), len(want.Classes))
	}
	for name, w := range want.Classes {
		if g, ok := got.Classes[name]; !ok || g != w {
			t.Errorf("DevTools class %q: %+v, source has %+v", name, g, w)
		}
	}
}

// stripV8 returns snapshot i of f as a file without V8 section, as if it
// came from another format.
func stripV8(f *ir.File, i int) *ir.File {
	g, err := f.Select(i)
	if err != nil {
		panic(err)
	}
	s := *g.Snapshots[0]
	s.Sections = slices.DeleteFunc(slices.Clone(s.Sections), func(x ir.Section) bool { return x.SectionName() == v8ir.SectionName })
	g.Snapshots = []*ir.Snapshot{&s}
	return g
}

// testToV8 converts one snapshot of a fixture to V8 through Convert (the
// path every non-V8 format takes to DevTools), checks the conversion, and
// has DevTools load it. For V8 fixtures the V8 section is stripped first,
// and DevTools' Summary must match the source's class by class.
func testToV8(t *testing.T, fm format, name string, f *ir.File, i int, srcPath string, o *oracle) {
	src := stripV8(f, i)
	conv, loss, err := devtools.Convert(src)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	switch {
	case dartir.Of(src.Snapshots[0]) != nil:
		checkDartConverted(t, src, conv)
	case moarvmir.FileOf(src) != nil:
		// ir/devtools' TestMoarVMSamples checks every snapshot of these
		// files node by node (mvmCheck).
	default:
		// A sample of several allocations is that many objects
		// (ir.ExpandObjects), node for node.
		expanded, _ := ir.ExpandObjects(src)
		checkConverted(t, expanded, conv, loss)
	}
	out := convertAndCheck(t, src, conv)
	path := o.file(t, fmt.Sprintf("%s-%s-snapshot%d-converted", fm.name, name, i), out)
	n, m := int64(conv.Snapshots[0].Nodes.Len()), int64(conv.Snapshots[0].Edges.Len())
	o.expect(fmt.Sprintf("%s/%s/snapshot%d/converted", fm.name, name, i), func(t *testing.T, sum func(string) *summary) {
		got := sum(path)
		if !loaded(t, got) {
			return
		}
		if got.NodeCount != n || got.EdgeCount != m {
			t.Errorf("DevTools: %d nodes %d edges; we wrote %d and %d", got.NodeCount, got.EdgeCount, n, m)
		}
		// What `heapconv info --as v8` predicts of the source is the
		// Summary of the converted file: DevTools must show just that.
		compareSummary(t, got, conv)
		if dartir.Of(src.Snapshots[0]) != nil {
			compareDartRetained(t, got, src, conv)
		}
		if moarvmir.FileOf(src) != nil {
			compareMoarVMSummary(t, got, conv)
		}
		if srcPath == "" {
			return
		}
		want := sum(srcPath)
		if !loaded(t, want) {
			return
		}
		compareConvertedClasses(t, got, want)
	})
}

// convertAndCheck writes src with writers/v8 (which converts it), checks
// the bytes equal those of the Convert result written directly, reads them
// back with the V8 reader and compares the graph; it returns the bytes.
func convertAndCheck(t *testing.T, src, conv *ir.File) []byte {
	t.Helper()
	v8 := formatByName(v8ir.Format)
	out, _ := write(t, v8, src)
	direct, _ := write(t, v8, conv)
	irtest.SameBytes(t, "Write(f) vs Write(Convert(f))", out, direct)
	back := read(t, v8, out)
	if d := graphDiff(conv, back); len(d) > 0 {
		t.Errorf("converted graph read back differs:\n%s", strings.Join(d, "\n"))
	}
	return out
}

func formatByName(name string) format {
	for _, f := range table {
		if f.name == name {
			return f
		}
	}
	panic("no table entry for " + name)
}

// locationKey matches the class keys summary.js uses when DevTools splits a
// class by allocation location: "scriptId,line,col,Name" or ",Name".
var locationKey = regexp.MustCompile(`^(\d+,\d+,\d+)?,`)

// byClassName merges location-split rows into one row per class name.
func byClassName(s *summary) map[string]classAgg {
	out := map[string]classAgg{}
	for k, v := range s.Classes {
		name := locationKey.ReplaceAllString(k, "")
		a := out[name]
		a.Count += v.Count
		a.Self += v.Self
		out[name] = a
	}
	return out
}

// compareConvertedClasses compares DevTools' Summary of a fixture whose V8
// section was dropped before writing with the source's, by count and self
// size per class. Two things a V8 section carries change class rows, and
// the comparison undoes exactly those:
//   - locations: DevTools splits an object class by allocation location;
//     rows are merged per class name;
//   - detachedness: DevTools shows a detached native node as
//     "Detached <name>"; without the column its class is "<name>". Such rows
//     are merged into "<name>" and logged.
func compareConvertedClasses(t *testing.T, got, want *summary) {
	t.Helper()
	g, w := byClassName(got), byClassName(want)
	var detached []string
	for name, a := range w {
		if base, ok := strings.CutPrefix(name, "Detached "); ok {
			if _, plain := g[name]; !plain {
				b := w[base]
				b.Count += a.Count
				b.Self += a.Self
				w[base] = b
				delete(w, name)
				detached = append(detached, fmt.Sprintf("%s (%d nodes)", name, a.Count))
			}
		}
	}
	sort.Strings(detached)
	if len(detached) > 0 {
		t.Logf("classes DevTools names \"Detached …\" only with the detachedness column: %s", strings.Join(detached, ", "))
	}
	var names []string
	for n := range w {
		names = append(names, n)
	}
	for n := range g {
		if _, ok := w[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	bad := 0
	for _, n := range names {
		a, b := g[n], w[n]
		if a.Count != b.Count || a.Self != b.Self {
			bad++
			t.Errorf("class %q: converted count %d self %d; source count %d self %d", n, a.Count, a.Self, b.Count, b.Self)
		}
	}
	if bad == 0 {
		t.Logf("%d classes agree in count and self size", len(names))
	}
}

// testRandom runs (b) and (c) on random graphs the format holds.
func testRandom(t *testing.T, fm format, o *oracle) {
	if len(fm.holds) == 0 {
		t.Fatal("the table entry lists no random graphs the format holds")
	}
	for _, gc := range fm.holds {
		for szi, sz := range sizes {
			for _, seed := range sz.seeds {
				name := fmt.Sprintf("%s/%s/seed%d", gc.name, sz.name, seed)
				o := o
				if !devtoolsSeed(szi, seed) {
					o = o.skipping()
				}
				t.Run(name, func(t *testing.T) {
					opts := gc.opts
					opts.MinNodes, opts.MaxNodes = sz.min, sz.max
					f := irtest.Random(seed, opts)
					irRoundTrip(t, f)
					if fm.write == nil {
						return
					}
					if fm.derives {
						first, _ := write(t, fm, f)
						f = read(t, fm, first)
						irRoundTrip(t, f)
					}
					out, loss := write(t, fm, f)
					back := read(t, fm, out)
					if fm.lossless {
						if d := ir.Diff(f, back, 10); len(d) > 0 {
							t.Fatalf("read back differs:\n%s", strings.Join(d, "\n"))
						}
					} else {
						if d := graphDiff(f, back); len(d) > 0 {
							t.Fatalf("read back graph differs (loss report:\n%v\n):\n%s", loss, strings.Join(d, "\n"))
						}
						for i, s := range f.Snapshots {
							if v8ir.Of(s) != nil {
								if d := v8SectionDiff(v8ir.Of(s), v8ir.Of(back.Snapshots[i])); len(d) > 0 {
									t.Fatalf("snapshot %d: V8 section read back differs:\n%s", i, strings.Join(d, "\n"))
								}
							}
							if d := dartSectionDiff(f, s, back, back.Snapshots[i]); len(d) > 0 {
								t.Fatalf("snapshot %d: Dart section read back differs:\n%s", i, strings.Join(d, "\n"))
							}
						}
						if moarvmir.FileOf(f) != nil || fuchsiair.FileOf(f) != nil {
							// These sections hold everything: the whole file
							// comes back, but for the reader's description.
							g := *f
							g.FormatVersion = back.FormatVersion
							if d := ir.Diff(&g, back, 10); len(d) > 0 {
								t.Fatalf("MoarVM file read back differs:\n%s", strings.Join(d, "\n"))
							}
						}
					}
					if fm.byteExact {
						again, _ := write(t, fm, back)
						irtest.SameBytes(t, "writing the read-back file", again, out)
					}
					if fm.sameFile != nil {
						again, _ := write(t, fm, back)
						fm.sameFile(t, again, out)
					}
					if fm.v8Output {
						expectCounts(t, o, fm.name+"/random/"+name, out, back)
					}
					if s := f.Snapshots[0]; len(f.Snapshots) == 1 && (dartir.Of(s) != nil || moarvmir.Of(s) != nil) && s.Nodes.Len() > 0 {
						// Dart heaps go to DevTools through their own reshaping.
						testToV8(t, fm, "random-"+strings.ReplaceAll(name, "/", "-"), f, 0, "", o)
					}
				})
			}
		}
	}
}

// expectCounts registers a V8 file with DevTools, expecting it to load
// with the node and edge counts of f.
func expectCounts(t *testing.T, o *oracle, name string, data []byte, f *ir.File) {
	t.Helper()
	path := o.file(t, name, data)
	n, m := int64(f.Snapshots[0].Nodes.Len()), int64(f.Snapshots[0].Edges.Len())
	o.expect(name, func(t *testing.T, sum func(string) *summary) {
		got := sum(path)
		if !loaded(t, got) {
			return
		}
		if got.NodeCount != n || got.EdgeCount != m {
			t.Errorf("DevTools: %d nodes %d edges; we wrote %d and %d", got.NodeCount, got.EdgeCount, n, m)
		}
	})
}

// foreignCases are random graphs beyond what most formats hold exactly:
// every writer must still write them, and its reader read them back.
var foreignCases = []genCase{
	{"everything", irtest.Everything(0, 0)},
	{"custom-kinds", irtest.Options{Kinds: irtest.KindsCustom, IDs: irtest.IDsAny, GCRoots: true, Strings: irtest.AllStrings}},
	{"root-first-gc-roots", irtest.Options{RootFirst: true, GCRoots: true, ExternalSizes: true, Values: true}},
}

// testForeign writes random graphs the format cannot hold exactly. The
// writer must succeed and the reader must read the result back. A V8 writer
// converts them (devtools.Convert); the conversion is checked node by
// node and DevTools must load the file.
func testForeign(t *testing.T, fm format, o *oracle) {
	cases := append(slices.Clone(foreignCases), genCase{"empty", irtest.Options{MinNodes: 0, MaxNodes: 0}})
	for _, gc := range cases {
		for szi, sz := range sizes {
			if gc.name == "empty" && sz.name != "tiny" {
				continue
			}
			for _, seed := range sz.seeds {
				name := fmt.Sprintf("%s/%s/seed%d", gc.name, sz.name, seed)
				o := o
				if !devtoolsSeed(szi, seed) {
					o = o.skipping()
				}
				t.Run(name, func(t *testing.T) {
					opts := gc.opts
					opts.MinNodes, opts.MaxNodes = sz.min, sz.max
					if gc.name == "empty" {
						opts.MinNodes, opts.MaxNodes = 0, 0
					}
					if fm.oneSnapshot {
						opts.Snapshots = 1
					}
					f := irtest.Random(seed, opts)
					out, _ := write(t, fm, f)
					back := read(t, fm, out)
					if !fm.oneSnapshot && len(back.Snapshots) != len(f.Snapshots) {
						t.Fatalf("%d snapshots written, %d read back", len(f.Snapshots), len(back.Snapshots))
					}
					if !fm.v8Output {
						return
					}
					conv, loss, err := devtools.Convert(f)
					if err != nil {
						t.Fatalf("Convert: %v", err)
					}
					checkConverted(t, f, conv, loss)
					direct := convertAndCheck(t, f, conv)
					irtest.SameBytes(t, "table writer vs writers/v8", out, direct)
					expectCounts(t, o, fm.name+"/foreign/"+name, out, conv)
				})
			}
		}
	}
}

// checkConverted checks devtools.Convert's output against its one-snapshot
// source: synthetic nodes in front exactly when the source's root is not
// node 0 or it has GC roots (a root, "(GC roots)" and one node per root
// category), every source
// node and edge after them with kinds, names, sizes and targets kept (a
// string's contents cut to 1024 UTF-16 units unless V8 cut them, and the
// cuts counted in the loss report; every other name whole; sizes capped at
// 2^32-1), ids unique, odd and below 2^32 (the source's when they already
// are), and the external sizes summed into extra_native_bytes.
func checkConverted(t *testing.T, srcFile, out *ir.File, loss ir.LossReport) {
	t.Helper()
	s, c := srcFile.Snapshots[0], out.Snapshots[0]
	n, m := s.Nodes.Len(), s.Edges.Len()
	var cats []uint32
	members := map[uint32][]uint32{}
	for _, r := range s.Roots {
		if _, ok := members[r.Category]; !ok {
			cats = append(cats, r.Category)
		}
		members[r.Category] = append(members[r.Category], r.Node)
	}
	synthNodes, synthEdges := 0, 0
	if s.Root != 0 || len(s.Roots) > 0 {
		synthNodes = 1
		if s.Root != ir.NoNode {
			synthEdges++
		}
		if len(cats) > 0 {
			synthNodes += 1 + len(cats)
			synthEdges += 1 + len(cats) + len(s.Roots)
		}
	}
	shift := uint32(synthNodes)
	if c.Nodes.Len() != n+synthNodes || c.Edges.Len() != m+synthEdges {
		t.Fatalf("converted graph has %d nodes %d edges; want %d+%d and %d+%d synthetic", c.Nodes.Len(), c.Edges.Len(),
			n, synthNodes, m, synthEdges)
	}
	if c.Root != 0 || v8ir.Of(c) == nil {
		t.Fatalf("converted root %d, V8 section %v", c.Root, v8ir.Of(c) != nil)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	// Synthetic nodes.
	targets := func(i int) []uint32 {
		lo, hi := c.Nodes.EdgeRange(i)
		return slices.Clone(c.Edges.Target[lo:hi])
	}
	for i := 0; i < synthNodes; i++ {
		if k := c.NodeKindName(i); k != ir.KindSynthetic {
			t.Errorf("synthetic node %d has kind %q", i, k)
		}
	}
	if synthNodes > 0 {
		if name := out.String(c.Nodes.Name[0]); name != "" {
			t.Errorf("synthetic root named %q", name)
		}
		root := targets(0)
		if s.Root != ir.NoNode && !slices.Contains(root, s.Root+shift) {
			t.Errorf("synthetic root's edges %v miss the source root %d", root, s.Root+shift)
		}
		if len(cats) > 0 {
			if !slices.Contains(root, 1) || out.String(c.Nodes.Name[1]) != "(GC roots)" {
				t.Errorf("no (GC roots) node under the root: edges %v, node 1 %q", root, out.String(c.Nodes.Name[1]))
			}
			for j, cat := range cats {
				node := 2 + j
				if got, want := out.String(c.Nodes.Name[node]), "("+srcFile.String(cat)+")"; got != want {
					t.Errorf("category node %d named %q, want %q", node, got, want)
				}
				var want []uint32
				for _, mem := range members[cat] {
					want = append(want, mem+shift)
				}
				if got := targets(node); !slices.Equal(got, want) {
					t.Errorf("category %q: edges to %v, want %v", srcFile.String(cat), got, want)
				}
			}
		}
	}
	// Source nodes and edges.
	bad := 0
	errorf := func(format string, args ...any) {
		bad++
		if bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	cuts := 0 // string nodes whose contents are cut
	for i := 0; i < n; i++ {
		j := i + synthNodes
		if a, b := s.NodeKindName(i), c.NodeKindName(j); a != b {
			errorf("node %d: kind %q became %q", i, a, b)
		}
		name := srcFile.String(s.Nodes.Name[i])
		if name == "" && len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
			name = srcFile.String(srcFile.Classes.Name[s.Nodes.Class[i]-1])
		}
		if isString(s.NodeKindName(i)) && srcFile.Format != v8ir.Format {
			if cut := cutContents(name); cut != name {
				name = cut
				cuts++
			}
		}
		if got := out.String(c.Nodes.Name[j]); got != name {
			errorf("node %d: name %q became %q", i, name, got)
		}
		if a, b := min(s.Nodes.SelfSize.At(i), math.MaxUint32), c.Nodes.SelfSize.At(j); a != b {
			errorf("node %d: self size %d became %d", i, a, b)
		}
		lo, hi := s.Nodes.EdgeRange(i)
		clo, chi := c.Nodes.EdgeRange(j)
		if hi-lo != chi-clo {
			errorf("node %d: %d edges became %d", i, hi-lo, chi-clo)
			continue
		}
		for e := lo; e < hi; e++ {
			ce := clo + e - lo
			if a, b := s.EdgeKindOf(e).Name, c.EdgeKindOf(ce).Name; a != b {
				errorf("edge %d: kind %q became %q", e, a, b)
			}
			want := srcFile.EdgeName(s, e)
			if got := out.EdgeName(c, ce); got != want {
				errorf("edge %d: name %q became %q", e, want, got)
			}
			if a, b := s.Edges.Target[e]+shift, c.Edges.Target[ce]; a != b {
				errorf("edge %d: target %d (+%d) became %d", e, s.Edges.Target[e], shift, b)
			}
		}
	}
	if l, _ := loss.Get(ir.LossTruncatedNames); l.Count != int64(cuts) {
		errorf("%d string nodes' contents cut; the loss report says %d: %v", cuts, l.Count, l)
	}
	// Ids.
	keep := true
	seen := map[uint64]bool{}
	for i := 0; i < n; i++ {
		id := s.Nodes.ID.At(i)
		if id%2 == 0 || id >= math.MaxUint32-2*uint64(shift)-2 || seen[id] {
			keep = false
		}
		seen[id] = true
	}
	clear(seen)
	for j := 0; j < c.Nodes.Len(); j++ {
		id := c.Nodes.ID.At(j)
		if id%2 == 0 || id > math.MaxUint32 || seen[id] {
			errorf("converted node %d: id %d is not unique, odd and below 2^32", j, id)
		}
		seen[id] = true
		if keep && j >= synthNodes && id != s.Nodes.ID.At(j-synthNodes) {
			errorf("node %d: id %d became %d although it was a valid V8 id", j-synthNodes, s.Nodes.ID.At(j-synthNodes), id)
		}
	}
	// External sizes go to extra_native_bytes.
	ext := s.Nodes.ExternalSize.Sum()
	for _, tot := range s.Totals {
		if tot.Name == "extra_native_bytes" || tot.Name == "external_size" {
			ext = satAdd(ext, tot.Value)
		}
	}
	var got uint64
	for _, tot := range c.Totals {
		if tot.Name == "extra_native_bytes" {
			got = tot.Value
		}
	}
	if got != ext {
		errorf("extra_native_bytes %d; the source's external sizes and totals add up to %d", got, ext)
	}
	if bad > 10 {
		t.Errorf("... %d differences in all", bad)
	}
}

// totalsKept reports whether every snapshot of back has the totals of a's.
func totalsKept(a, back *ir.File) bool {
	if len(a.Snapshots) != len(back.Snapshots) {
		return false
	}
	for k, s := range a.Snapshots {
		for _, t := range s.Totals {
			if !slices.Contains(back.Snapshots[k].Totals, t) {
				return false
			}
		}
	}
	return true
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// isString reports whether nodes of a kind are V8 strings, named by their
// contents.
func isString(kind string) bool {
	return kind == ir.KindString || kind == ir.KindConcatenatedString || kind == ir.KindSlicedString
}

// cutContents cuts a WTF-8 string to at most 1024 UTF-16 units at a code
// point boundary (V8's --heap-snapshot-string-limit, which Convert applies
// to the contents of strings).
func cutContents(s string) string {
	units := 0
	for i := 0; i < len(s); {
		r, size := ir.DecodeWTF8(s[i:])
		u := 1
		if r > 0xFFFF {
			u = 2
		}
		if units+u > devtools.MaxStringUnits {
			return s[:i]
		}
		units += u
		i += size
	}
	return s
}
