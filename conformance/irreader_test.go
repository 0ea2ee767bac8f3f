package conformance

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// irreaderDir is the Node project holding the second IR reader, written
// from ir/SPEC.md alone (irreader/irread.js).
const irreaderDir = "irreader"

// irCol is one column's figures: its value count and the sum of its
// values (signed columns decoded), a decimal string.
type irCol struct {
	Count int    `json:"count"`
	Sum   string `json:"sum"`
}

// irCols are columns by section (the name up to the first dot), then name.
type irCols map[string]map[string]irCol

type irSnapFigures struct {
	Nodes        int    `json:"nodes"`
	Edges        int    `json:"edges"`
	Values       int    `json:"values"`
	Roots        int    `json:"roots"`
	SelfSize     string `json:"self_size"`
	ExternalSize string `json:"external_size"`
	Classes      int    `json:"classes"`
	// Base and Based: how the stream stores the snapshot (SPEC.md,
	// Snapshots stored against a base): its base's index (-1 none) and
	// the columns stored against it. They are the stream's, not the
	// model's: the expected ones are read from the stream's records
	// (streamBases); the columns' figures are the model's whatever they
	// are.
	Base  int      `json:"base"`
	Based []string `json:"based"`
	// Sections hold every column but node.base, which is the stream's.
	Sections irCols `json:"sections"`
}

// irFigures is irread.js's line for one file.
type irFigures struct {
	File        string          `json:"file"`
	Error       string          `json:"error"`
	Version     int             `json:"version"`
	Series      bool            `json:"series"`
	Strings     int             `json:"strings"`
	Classes     int             `json:"classes"`
	Records     map[string]int  `json:"records"`
	FileColumns irCols          `json:"file_columns"`
	Snapshots   []irSnapFigures `json:"snapshots"`
}

// irInput is one file the test encodes and has the second reader read.
type irInput struct {
	name string
	f    *ir.File
	path string
}

// TestIRReader checks ir/SPEC.md with a second implementation: every
// fixture of every format (and the fixtures' variants with Fuchsia contents
// and derived edges, every older IR version's sample, and random files with
// every feature of every section) is read with heapconv, encoded as IR and
// read by conformance/irreader/irread.js, which was written from the spec
// alone. Its figures — counts, size sums, and every column's length and
// sum — must be the ones computed here from the ir.File, and together the
// inputs must exercise every column the spec names. Snapshots the encoder
// stores against a base (a series of three real snapshots of one Node
// process among the inputs) must come out as the model holds them. Streams
// that break the spec must be refused by both readers.
func TestIRReader(t *testing.T) {
	t.Parallel()
	irreaderProject.require(t)
	dir := t.TempDir()
	inputs := irReaderInputs(t)

	// Encode (in parallel: reading and encoding the big fixtures dominates),
	// and read back how the stream stores each snapshot.
	var wg sync.WaitGroup
	errs := make([]error, len(inputs))
	bases := make([][]streamBase, len(inputs))
	for i := range inputs {
		in := &inputs[i]
		in.path = filepath.Join(dir, fmt.Sprintf("%03d-%s.heapir", i, sanitize(in.name)))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var buf bytes.Buffer
			if err := irstream.Encode(&buf, in.f); err != nil {
				errs[i] = fmt.Errorf("%s: encode: %v", in.name, err)
				return
			}
			var err error
			if bases[i], err = streamBases(buf.Bytes()); err != nil {
				errs[i] = fmt.Errorf("%s: reading the stream's snapshot records: %v", in.name, err)
				return
			}
			errs[i] = os.WriteFile(in.path, buf.Bytes(), 0o644)
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The real series of one process must be stored against bases: each
	// snapshot but the first against the one before, with based columns
	// (so that this test cannot stop exercising them unnoticed).
	leak := slices.IndexFunc(inputs, func(in irInput) bool { return in.name == leakSeriesName })
	if leak < 0 {
		t.Fatalf("no input %s", leakSeriesName)
	}
	if b := bases[leak]; len(b) != 3 || b[0].base != -1 || b[1].base != 0 || b[2].base != 1 || len(b[1].based) == 0 || len(b[2].based) == 0 {
		t.Fatalf("%s: the stream stores its snapshots against bases %+v, want snapshots 1 and 2 against 0 and 1, with based columns", leakSeriesName, b)
	}

	paths := make([]string, len(inputs))
	for i := range inputs {
		paths[i] = inputs[i].path
	}
	got, stderr := runIRReader(t, paths)
	seen := map[string]bool{}
	for i, in := range inputs {
		g := got[i]
		if g.Error != "" {
			t.Errorf("%s: irread.js refused heapconv's IR: %s", in.name, g.Error)
			continue
		}
		want := irExpected(in.f, bases[i])
		for _, d := range irFiguresDiff(want, g) {
			t.Errorf("%s: %s", in.name, d)
		}
		for _, cols := range g.FileColumns {
			for name := range cols {
				seen[name] = true
			}
		}
		for _, s := range g.Snapshots {
			for _, cols := range s.Sections {
				for name := range cols {
					seen[name] = true
				}
			}
		}
	}
	if t.Failed() && stderr != "" {
		t.Logf("irread.js stderr:\n%s", stderr)
	}
	// Every column of the spec, with values, somewhere.
	var missing []string
	for _, name := range specColumns(t) {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no input exercises these columns of ir/SPEC.md: %s", strings.Join(missing, ", "))
	}

	t.Run("refuses", func(t *testing.T) { testIRReaderRefuses(t) })
}

// specSections are every registered section with every column it can
// declare (the Fuchsia snapshot section with its stream details); the
// V8 section's node and edge fields are the fixtures' own.
var specSections = []ir.Section{&v8ir.Snapshot{}, &dartir.Snapshot{}, &moarvmir.File{}, &moarvmir.Snapshot{},
	&fuchsiair.File{}, &fuchsiair.Snapshot{Stream: &fuchsiair.Stream{}}}

// specColumns are the columns ir/SPEC.md names: the core's and every
// section's (plus V8's extra node fields of the fixtures).
func specColumns(t *testing.T) []string {
	f := &ir.File{Snapshots: []*ir.Snapshot{{}}}
	var names, sections []string
	for _, b := range []*ir.Bindings{ir.FileBindings(f), ir.SnapshotBindings(f.Snapshots[0])} {
		for _, c := range b.Columns() {
			names = append(names, c.Decl.Name)
		}
	}
	for _, x := range specSections {
		sections = append(sections, x.SectionName())
		for _, c := range ir.SectionBindings(x).Columns() {
			names = append(names, c.Decl.Name)
		}
	}
	slices.Sort(sections)
	if !slices.Equal(sections, ir.SectionNames()) {
		t.Fatalf("sections %v registered, %v listed here", ir.SectionNames(), sections)
	}
	return append(names, "v8.node.trace_node_id", "v8.node.detachedness")
}

// irReaderInputs reads every fixture of every format in the table (and
// the IR format's older-version samples), the Fuchsia fixtures with
// contents and derived edges, the samples, and random files with every
// feature, in parallel.
func irReaderInputs(t *testing.T) []irInput {
	type job struct {
		name, path string
		opts       *heapconv.ReadOptions
	}
	var jobs []job
	addGlob := func(prefix, glob string, opts *heapconv.ReadOptions) {
		paths, err := filepath.Glob(filepath.Join(moduleRoot, glob))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		for _, p := range paths {
			jobs = append(jobs, job{prefix + "/" + filepath.Base(p), p, opts})
		}
	}
	for _, fm := range table {
		for _, glob := range []string{fm.fixtures, fm.damage} {
			if glob != "" {
				addGlob(fm.name, glob, nil)
			}
		}
	}
	addGlob("samples", "testdata/samples/*", nil)
	addGlob("v8-small", "testdata/v8/small/*.heapsnapshot", nil)
	// Contents, derived edges and roots: the profiles with a contents
	// directory and the FIDL streams, read with pointer scanning.
	contents, err := filepath.Glob(filepath.Join(moduleRoot, "testdata", "fuchsia", "*.contents"))
	if err != nil || len(contents) == 0 {
		t.Fatal("no Fuchsia fixture with a contents directory")
	}
	for _, cdir := range contents {
		base := strings.TrimSuffix(filepath.Base(cdir), ".contents")
		profiles, _ := filepath.Glob(filepath.Join(filepath.Dir(cdir), base+".pb*"))
		if len(profiles) != 1 {
			t.Fatalf("%s: %d profiles next to it", cdir, len(profiles))
		}
		jobs = append(jobs, job{"fuchsia-contents/" + base, profiles[0], &heapconv.ReadOptions{ContentsDir: cdir, ScanPointers: true}})
	}
	addGlob("fuchsia-fidl-scanned", "testdata/fuchsia-fidl/*.fidlstream", &heapconv.ReadOptions{ScanPointers: true})

	inputs := make([]irInput, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, j := range jobs {
		wg.Add(1)
		go func(i int, j job) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f, err := heapconv.ReadFile(j.path, j.opts)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %v", j.path, err)
				return
			}
			inputs[i] = irInput{name: j.name, f: f}
		}(i, j)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	// Random files with every feature of every section.
	v8 := withV8(irtest.Options{Kinds: irtest.KindsMixed, IDs: irtest.IDsAny, BigSizes: true, Values: true, Classes: true,
		Strings: irtest.AllStrings, Snapshots: 2, GCRoots: true, Totals: true, ExternalSizes: true}, v8Everything)
	fuchsia := irtest.FuchsiaEverything()
	gen := []struct {
		name string
		opts irtest.Options
	}{
		{"everything", irtest.Everything(0, 0)},
		{"v8-everything", v8},
		{"dart-everything", irtest.Options{Strings: irtest.AllStrings, MaxOutDegree: 12, Dart: &irtest.DartOptions{
			Hashes: true, Padding: true, ZeroRefs: true, External: true, Data: true}}},
		{"dart-2020", irtest.Options{Dart: &irtest.DartOptions{OldRoot: true, ZeroRefs: true, Data: true}}},
		{"moarvm", irtest.Options{Snapshots: 3, MoarVM: &irtest.MoarVMOptions{BadRefs: true}}},
		{"moarvm-v2", irtest.Options{Snapshots: 2, MoarVM: &irtest.MoarVMOptions{V2: true, NoPID: true}}},
		{"moarvm-recovered", irtest.Options{Snapshots: 2, MoarVM: &irtest.MoarVMOptions{Recovery: true}}},
		{"fuchsia-everything", irtest.Options{Snapshots: 3, Strings: irtest.AllStrings, Fuchsia: &fuchsia}},
		{"fuchsia-stream", irtest.Options{Snapshots: 3, Fuchsia: &irtest.FuchsiaOptions{Stream: true, MultiProcess: true,
			Contents: true, DerivedEdges: true}}},
		{"fuchsia-stream-single", irtest.Options{Fuchsia: &irtest.FuchsiaOptions{Stream: true, Contents: true}}},
	}
	for _, g := range gen {
		for _, seed := range []int64{1, 2, 3} {
			inputs = append(inputs, irInput{name: fmt.Sprintf("random-%s-%d", g.name, seed), f: irtest.Random(seed, g.opts)})
		}
	}
	return append(append(inputs, seriesInputs(t, inputs)...), leakSeries(t))
}

// leakSeriesName names the input leakSeries makes.
const leakSeriesName = "series-v8-leak"

// leakSeries is a series of three real V8 snapshots of one Node process
// (testdata/v8/leak.js, which TestDiffFindsNodeLeak runs too): most of
// the heap persists from one to the next, so that heapconv stores the
// second and third against the one before (SPEC.md, Snapshots stored
// against a base), with the V8 node ids matching their nodes.
func leakSeries(t *testing.T) irInput {
	t.Helper()
	dir := t.TempDir()
	script, err := filepath.Abs(filepath.Join(moduleRoot, "testdata/v8/leak.js"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("node leak.js: %v\n%s", err, out)
	}
	var files []*ir.File
	for k := 1; k <= 3; k++ {
		f, err := heapconv.ReadFile(filepath.Join(dir, fmt.Sprintf("s%d.heapsnapshot", k)), nil)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	f, err := ir.JoinSeries(files...)
	if err != nil {
		t.Fatalf("%s: %v", leakSeriesName, err)
	}
	return irInput{name: leakSeriesName, f: f}
}

// seriesInputs joins inputs of one format and variant into series
// (ir.JoinSeries, SPEC.md "Series"): V8 files of Node 22 (a real one and
// small ones, which share strings), Dart files (whose sections have
// columns of the class and field tables, and string columns), and random
// V8 files of two snapshots each, with classes.
func seriesInputs(t *testing.T, inputs []irInput) []irInput {
	byName := map[string]*ir.File{}
	for _, in := range inputs {
		byName[in.name] = in.f
	}
	joins := []struct {
		name  string
		parts []string
		// variant, if set, is every part's FormatVersion (the random
		// files' names their seed: one series holds one variant).
		variant string
	}{
		{"series-v8-node22", []string{"v8/node22.heapsnapshot.zst", "v8-small/rows.heapsnapshot", "ir/v1-rows.heapir"}, ""},
		{"series-v8-twice", []string{"v8-small/compact.heapsnapshot", "v8-small/compact.heapsnapshot"}, ""},
		{"series-dart", []string{"dart/flutter-vm-3k.dartheap.zst", "dart/synthetic_vm_layout.dartheap", "samples/flutter-counter.dartheap.zst"}, ""},
		{"series-random-dart", []string{"random-dart-everything-1", "random-dart-everything-2", "random-dart-everything-3"}, ""},
		{"series-random-v8", []string{"random-v8-everything-1", "random-v8-everything-2", "random-v8-everything-3"}, "irtest"},
	}
	var out []irInput
	for _, j := range joins {
		var files []*ir.File
		for _, p := range j.parts {
			f := byName[p]
			if f == nil {
				t.Fatalf("%s: no input %s", j.name, p)
			}
			if j.variant != "" {
				g := *f // JoinSeries changes no file; neither does this
				g.FormatVersion = j.variant
				f = &g
			}
			files = append(files, f)
		}
		f, err := ir.JoinSeries(files...)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		if !f.IsSeries() {
			t.Fatalf("%s: JoinSeries made no series", j.name)
		}
		out = append(out, irInput{name: j.name, f: f})
	}
	return out
}

// runIRReader runs irread.js on the files (two processes, one per core)
// and returns its lines in file order, and its standard error.
func runIRReader(t *testing.T, paths []string) ([]irFigures, string) {
	t.Helper()
	const procs = 2
	outs := make([][]irFigures, procs)
	stderrs := make([]string, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		var part []string
		for i := p; i < len(paths); i += procs {
			part = append(part, paths[i])
		}
		if len(part) == 0 {
			continue
		}
		wg.Add(1)
		go func(p int, part []string) {
			defer wg.Done()
			outs[p], stderrs[p], errs[p] = irReaderRun(part)
		}(p, part)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := make([]irFigures, len(paths))
	for i := range paths {
		got[i] = outs[i%procs][i/procs]
		if got[i].File != paths[i] {
			t.Fatalf("irread.js line %d is for %q, want %q", i, got[i].File, paths[i])
		}
	}
	return got, strings.Join(stderrs, "")
}

// irReaderRun runs irread.js once on files; exit status 1 (a refused file)
// is not an error: the lines say which.
func irReaderRun(files []string) ([]irFigures, string, error) {
	cmd := exec.Command("node", append([]string{filepath.Join(irreaderDir, "irread.js")}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		return nil, stderr.String(), fmt.Errorf("node irread.js: %v\n%s", err, stderr.String())
	}
	var out []irFigures
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var f irFigures
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, stderr.String(), fmt.Errorf("irread.js printed %q: %v", sc.Text(), err)
		}
		out = append(out, f)
	}
	if len(out) != len(files) {
		return nil, stderr.String(), fmt.Errorf("irread.js printed %d lines for %d files\n%s", len(out), len(files), stderr.String())
	}
	return out, stderr.String(), nil
}

// irExpected computes from the model what irread.js must report for f
// encoded as IR: the record counts, and every declared column's length and
// sum as the model holds it (through the declarations' bindings, not the
// encoder); and how the stream stores each snapshot, as bases (read from
// the stream by streamBases) says.
func irExpected(f *ir.File, bases []streamBase) irFigures {
	want := irFigures{Version: ir.Version, Series: f.IsSeries(), Strings: len(f.Strings), Classes: f.Classes.Len(), FileColumns: irCols{}}
	want.Records = map[string]int{"file": 1, "end": 1}
	if n := (len(f.Strings) + 16383) / 16384; n > 0 {
		want.Records["strings"] = n
	}
	if len(f.Snapshots) > 0 {
		want.Records["snapshot"] = len(f.Snapshots)
	}
	scope := func(c irCols, core *ir.Bindings, sections []ir.Section) {
		all := []*ir.Bindings{core}
		for _, x := range sections {
			want.Records["section "+x.SectionName()]++
			all = append(all, ir.SectionBindings(x))
		}
		for _, b := range all {
			for i := range b.Columns() {
				c.column(&b.Columns()[i])
			}
		}
	}
	scope(want.FileColumns, ir.FileBindings(f), f.Sections)
	for k, s := range f.Snapshots {
		sc := irCols{}
		scope(sc, ir.SnapshotBindings(s), s.Sections)
		nd, ed, v := &s.Nodes, &s.Edges, &s.Values
		b := streamBase{base: -1}
		if k < len(bases) {
			b = bases[k]
		}
		want.Snapshots = append(want.Snapshots, irSnapFigures{
			Nodes: nd.Len(), Edges: ed.Len(), Values: v.Len(), Roots: len(s.Roots),
			SelfSize: uintsSum(&nd.SelfSize).String(), ExternalSize: uintsSum(&nd.ExternalSize).String(),
			Classes: f.Classes.Len(), Base: b.base, Based: b.based, Sections: sc,
		})
	}
	return want
}

// streamBase is what a snapshot record says of the snapshot's base (SPEC.md,
// Snapshots stored against a base): the base's index (-1 without), and the
// names of the columns stored against it.
type streamBase struct {
	base  int
	based []string
}

// streamBases reads an encoded stream's snapshot records (skipping every
// other record) and returns what each says of its base.
func streamBases(data []byte) ([]streamBase, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	if err := dec.Skip(); err != nil { // the header
		return nil, err
	}
	var out []streamBase
	for {
		n, err := dec.DecodeArrayLen()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		typ, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		if typ != "snapshot" {
			for range n - 1 {
				if err := dec.Skip(); err != nil {
					return nil, err
				}
			}
			continue
		}
		fields, err := dec.DecodeMap()
		if err != nil {
			return nil, err
		}
		if err := dec.Skip(); err != nil { // the declarations
			return nil, err
		}
		b := streamBase{base: -1}
		if x, ok := fields["base"]; ok {
			v := reflect.ValueOf(x)
			if !v.CanInt() {
				return nil, fmt.Errorf("snapshot %d: base %v is not an integer", len(out), x)
			}
			b.base = int(v.Int())
		}
		if x, ok := fields["based"]; ok {
			for _, name := range x.([]any) {
				b.based = append(b.based, name.(string))
			}
		}
		out = append(out, b)
	}
}

// column records a column present: its values as the stream holds them
// (counts for a count column), signed ones decoded.
func (c irCols) column(col *ir.Column) {
	if !col.Present() {
		return
	}
	s, b := new(big.Int), new(big.Int)
	for i := range col.Len() {
		u := col.At(i)
		if col.Decl.Type == ir.TypeInt {
			b.SetInt64(int64(u>>1) ^ -int64(u&1))
		} else {
			b.SetUint64(u)
		}
		s.Add(s, b)
	}
	c.add(col.Decl.Name, col.Len(), s)
}

// add records a column of n values summing to sum; a column of no values
// is absent (nothing is written for it).
func (c irCols) add(name string, n int, sum *big.Int) {
	if n == 0 {
		return
	}
	sec, _, _ := strings.Cut(name, ".")
	if c[sec] == nil {
		c[sec] = map[string]irCol{}
	}
	c[sec][name] = irCol{Count: n, Sum: sum.String()}
}

func uintsSum(u *ir.Uints) *big.Int {
	s, b := new(big.Int), new(big.Int)
	for i := 0; i < u.Len(); i++ {
		s.Add(s, b.SetUint64(u.At(i)))
	}
	return s
}

// irFiguresDiff lists how got differs from want. Record counts are
// compared for every record type but col and zeros, whose numbers depend
// on how the encoder chunks and stores each column.
func irFiguresDiff(want, got irFigures) []string {
	var d []string
	if got.Series != want.Series {
		d = append(d, fmt.Sprintf("series %v, want %v", got.Series, want.Series))
	}
	if got.Version != want.Version || got.Strings != want.Strings || got.Classes != want.Classes {
		d = append(d, fmt.Sprintf("version/strings/classes %d/%d/%d, want %d/%d/%d",
			got.Version, got.Strings, got.Classes, want.Version, want.Strings, want.Classes))
	}
	rec := map[string]int{}
	for k, v := range got.Records {
		if k != "col" && k != "zeros" {
			rec[k] = v
		}
	}
	if fmt.Sprint(rec) != fmt.Sprint(want.Records) {
		d = append(d, fmt.Sprintf("records %v, want %v", rec, want.Records))
	}
	d = append(d, irColsDiff("file columns", want.FileColumns, got.FileColumns)...)
	if len(got.Snapshots) != len(want.Snapshots) {
		return append(d, fmt.Sprintf("%d snapshots, want %d", len(got.Snapshots), len(want.Snapshots)))
	}
	for k, w := range want.Snapshots {
		g := got.Snapshots[k]
		if g.Nodes != w.Nodes || g.Edges != w.Edges || g.Values != w.Values || g.Roots != w.Roots || g.Classes != w.Classes {
			d = append(d, fmt.Sprintf("snapshot %d: nodes/edges/values/roots/classes %d/%d/%d/%d/%d, want %d/%d/%d/%d/%d", k,
				g.Nodes, g.Edges, g.Values, g.Roots, g.Classes, w.Nodes, w.Edges, w.Values, w.Roots, w.Classes))
		}
		if g.SelfSize != w.SelfSize || g.ExternalSize != w.ExternalSize {
			d = append(d, fmt.Sprintf("snapshot %d: self/external size %s/%s, want %s/%s", k, g.SelfSize, g.ExternalSize, w.SelfSize, w.ExternalSize))
		}
		if g.Base != w.Base || !slices.Equal(g.Based, w.Based) {
			d = append(d, fmt.Sprintf("snapshot %d: base %d, based %q; the stream says base %d, based %q", k, g.Base, g.Based, w.Base, w.Based))
		}
		d = append(d, irColsDiff(fmt.Sprintf("snapshot %d", k), w.Sections, g.Sections)...)
	}
	return d
}

func irColsDiff(where string, want, got irCols) []string {
	flat := func(c irCols) map[string]irCol {
		m := map[string]irCol{}
		for sec, cols := range c {
			for name, v := range cols {
				if s, _, _ := strings.Cut(name, "."); s != sec {
					name += " (in section " + sec + ")"
				}
				m[name] = v
			}
		}
		return m
	}
	w, g := flat(want), flat(got)
	names := map[string]bool{}
	for k := range w {
		names[k] = true
	}
	for k := range g {
		names[k] = true
	}
	var sorted []string
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var d []string
	for _, k := range sorted {
		if w[k] != g[k] {
			d = append(d, fmt.Sprintf("%s: column %s: %+v, want %+v", where, k, g[k], w[k]))
		}
	}
	return d
}

// testIRReaderRefuses crafts streams that break ir/SPEC.md, and a few that
// it allows which a reader might refuse: both readers must agree with the
// spec on each.
func testIRReaderRefuses(t *testing.T) {
	type rec = []any
	u32s := func(v ...uint32) []byte {
		b := make([]byte, 0, 4*len(v))
		for _, x := range v {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return b
	}
	decls := func(b *ir.Bindings, skip ...string) []any {
		var out []any
		for _, c := range b.Columns() {
			if !c.Optional && !slices.Contains(skip, c.Decl.Name) {
				d := c.Decl
				out = append(out, []any{d.Name, string(d.Type), d.Table, d.Of})
			}
		}
		return out
	}
	empty := &ir.File{Snapshots: []*ir.Snapshot{{}}}
	fileDecls, snapDecls := decls(ir.FileBindings(empty)), decls(ir.SnapshotBindings(empty.Snapshots[0]))
	file := func(kv ...any) rec {
		m := map[string]any{"format": "x", "strings": 1, "classes": 0, "snapshots": 1}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return rec{"file", m, fileDecls}
	}
	snapWith := func(d []any, kv ...any) rec {
		m := map[string]any{"name": 0, "node_kinds": []any{"a"}, "edge_kinds": []any{[]any{"e", false}},
			"root": -1, "nodes": 2, "edges": 1, "values": 0, "roots": 0}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return rec{"snapshot", m, d}
	}
	snap := func(kv ...any) rec { return snapWith(snapDecls, kv...) }
	section := func(scope int, name string, fields map[string]any, d ...[]any) rec {
		ds := []any{}
		for _, x := range d {
			ds = append(ds, x)
		}
		return rec{"section", scope, name, 1, fields, ds}
	}
	nodes := []rec{
		{"col", 0, "node.kind", 1, []byte{0, 0}}, {"col", 0, "edge.kind", 1, []byte{0}},
		{"zeros", 0, "node.name", 2}, {"zeros", 0, "node.id", 2}, {"zeros", 0, "node.self_size", 2},
		{"col", 0, "node.edge_count", 4, u32s(1, 0)}, {"zeros", 0, "edge.name", 1}, {"col", 0, "edge.target", 4, u32s(1)},
	}
	end := rec{"end", map[string]any{"strings": 1, "snapshots": 1}}
	stream := func(version int, recs ...rec) []byte {
		var b bytes.Buffer
		enc := msgpack.NewEncoder(&b)
		enc.UseCompactInts(true)
		for _, r := range append([]rec{{"heapir", version}}, recs...) {
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	// body is a valid stream of one snapshot of two nodes and an edge,
	// with the snapshot's sections and further column records.
	body := func(sections []rec, extra ...rec) []rec {
		out := append([]rec{file(), {"strings", []any{""}}, snap()}, sections...)
		out = append(out, nodes...)
		return append(append(out, extra...), end)
	}
	replace := func(recs []rec, i int, r rec) []rec {
		out := append([]rec(nil), recs...)
		out[i] = r
		return out
	}
	v := ir.Version
	ok := body(nil)
	unknown := section(0, "zzz.later", map[string]any{"any": []any{1, "x", nil}}, []any{"zzz.n", "uint", "node", ""})
	raw := func(b ...byte) msgpack.RawMessage { return b }
	zzz := func(d ...[]any) rec { return section(0, "zzz.later", map[string]any{}, d...) }

	// Series (SPEC.md, The core's columns, Series and Validation): the
	// snapshot record declares origin.string and origin.class. seriesRecs
	// is a stream of the strings "" and "a", one class (named "a", of
	// library "", no fields) and one snapshot declaring decls, whose two
	// nodes are named names (nil: both ""), with the snapshot's sections
	// and further column records (its origin's).
	originString := []any{"origin.string", "string", "origin.string", ""}
	originClass := []any{"origin.class", "index", "origin.class", "class"}
	seriesDecls := append(slices.Clone(snapDecls), originString, originClass)
	seriesRecs := func(d []any, names []byte, sections []rec, extra ...rec) []rec {
		out := []rec{file("strings", 2, "classes", 1), {"strings", []any{"", "a"}},
			{"col", -1, "class.name", 1, []byte{1}}, {"col", -1, "class.library", 1, []byte{0}},
			{"col", -1, "class.field_count", 1, []byte{0}}, snapWith(d)}
		out = append(out, sections...)
		if names != nil {
			out = append(out, replace(nodes, 2, rec{"col", 0, "node.name", 1, names})...)
		} else {
			out = append(out, nodes...)
		}
		return append(append(out, extra...), rec{"end", map[string]any{"strings": 2, "snapshots": 1}})
	}
	origin := func(strs ...uint32) rec { return rec{"col", 0, "origin.string", 4, u32s(strs...)} }
	originClasses := func(cls ...uint32) rec { return rec{"col", 0, "origin.class", 4, u32s(cls...)} }
	seriesOK := seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0, 1), originClasses(0))
	// Two snapshots: the first of a series, the second declaring d.
	twoSnapshots := func(d []any, extra ...rec) []byte {
		recs := slices.Clone(seriesOK[:len(seriesOK)-1])
		recs[0] = file("strings", 2, "classes", 1, "snapshots", 2)
		recs = append(recs, snapWith(d, "nodes", 0, "edges", 0))
		recs = append(recs, extra...)
		return stream(v, append(recs, rec{"end", map[string]any{"strings": 2, "snapshots": 2}})...)
	}
	// A series' snapshot section's column of the class table (SPEC.md,
	// Series): two classes, the origin lists class 0 and string 1 only
	// (the snapshot's name, its nodes' names and class 0's name and
	// library are string 1; its edge is of an indexed kind); zzz.k, a
	// string column of the class table, holds vals.
	classColumn := func(vals ...byte) []byte {
		return stream(v, append([]rec{file("strings", 2, "classes", 2), {"strings", []any{"", "a"}},
			{"col", -1, "class.name", 1, []byte{1, 1}}, {"col", -1, "class.library", 1, []byte{1, 1}},
			{"col", -1, "class.field_count", 1, []byte{0, 0}},
			snapWith(seriesDecls, "name", 1, "edge_kinds", []any{[]any{"e", true}}), zzz([]any{"zzz.k", "string", "class", ""})},
			append(replace(nodes, 2, rec{"col", 0, "node.name", 1, []byte{1, 1}}),
				origin(1), originClasses(0), rec{"col", 0, "zzz.k", 1, vals}, rec{"end", map[string]any{"strings": 2, "snapshots": 1}})...)...)
	}

	// Snapshots stored against a base (SPEC.md, Snapshots stored against
	// a base). Snapshot 0 (base0) has two nodes, of ids 7 and 9, sizes 16
	// and 32 and zzz.n 5 and 6 (a section's column), and an edge from node
	// 0 to node 1. Snapshot 1 (snap1, base1) is stored against it: three
	// nodes, node.base 2, 0, 1 (node 0 is the base's node 1, node 1 is
	// new, node 2 is the base's node 0), and an edge of node 1 and one of
	// node 2. Its based columns: node.id 9, 11, 7, the differences 0, 11,
	// 0 (zigzag 0, 22, 0) stored delta-coded and split (0, 44, 43 in two
	// planes); node.self_size 32, 0, 16 and zzz.n 6, 0, 5 as zeros records
	// (the base values); edge.target 2, 0: the second edge's base value is
	// the target of the base's node 0's edge, the base's node 1, which is
	// node 0 here (a reader that did not translate it would read 1).
	nodeBase := []any{"node.base", "uint", "node", ""}
	zzzN := []any{"zzz.n", "uint", "node", ""}
	base0 := []rec{snap(), zzz(zzzN),
		{"col", 0, "node.kind", 1, []byte{0, 0}}, {"col", 0, "edge.kind", 1, []byte{0}},
		{"zeros", 0, "node.name", 2}, {"col", 0, "node.id", 1, []byte{7, 9}}, {"col", 0, "node.self_size", 1, []byte{16, 32}},
		{"col", 0, "node.edge_count", 4, u32s(1, 0)}, {"zeros", 0, "edge.name", 1}, {"col", 0, "edge.target", 4, u32s(1)},
		{"col", 0, "zzz.n", 1, []byte{5, 6}}}
	basedNames := []any{"node.id", "node.self_size", "edge.target", "zzz.n"}
	baseDecls := append([]any{nodeBase}, snapDecls...)
	snap1 := func(d []any, kv ...any) rec {
		return snapWith(d, append([]any{"nodes", 3, "edges", 2, "base", 0, "based", basedNames}, kv...)...)
	}
	base1 := []rec{section(1, "zzz.later", map[string]any{}, zzzN), {"col", 1, "node.base", 1, []byte{2, 0, 1}},
		{"col", 1, "node.kind", 1, []byte{0, 0, 0}}, {"col", 1, "edge.kind", 1, []byte{0, 0}}, {"zeros", 1, "node.name", 3},
		{"col", 1, "node.id", 2, 3, []byte{0, 44, 43, 0, 0, 0}}, {"zeros", 1, "node.self_size", 3},
		{"col", 1, "node.edge_count", 4, u32s(0, 1, 1)}, {"zeros", 1, "edge.name", 2}, {"col", 1, "edge.target", 1, []byte{4, 0}},
		{"zeros", 1, "zzz.n", 3}}
	// plain1 is snapshot 1's columns stored as they are.
	plain1 := []rec{base1[0], base1[2], base1[3], base1[4], {"col", 1, "node.id", 1, []byte{9, 11, 7}},
		{"col", 1, "node.self_size", 1, []byte{32, 0, 16}}, base1[7], base1[8], {"col", 1, "edge.target", 1, []byte{2, 0}},
		{"col", 1, "zzz.n", 1, []byte{6, 0, 5}}}
	based := func(version int, r0 []rec, s1 rec, r1 []rec) []byte {
		out := append([]rec{file("snapshots", 2), {"strings", []any{""}}}, r0...)
		out = append(append(append(out, s1), r1...), rec{"end", map[string]any{"strings": 1, "snapshots": 2}})
		return stream(version, out...)
	}
	// keyTwice returns snapshot record r with its fields written as a map
	// that has, after them, the key k again (of value x): a Go map cannot
	// hold a key twice, so the map is encoded here.
	keyTwice := func(r rec, k string, x any) rec {
		m := r[1].(map[string]any)
		var b bytes.Buffer
		enc := msgpack.NewEncoder(&b)
		enc.UseCompactInts(true)
		keys := slices.Sorted(maps.Keys(m))
		err := enc.EncodeMapLen(len(keys) + 1)
		for _, key := range keys {
			err = errors.Join(err, enc.EncodeString(key), enc.Encode(m[key]))
		}
		if err = errors.Join(err, enc.EncodeString(k), enc.Encode(x)); err != nil {
			t.Fatal(err)
		}
		return rec{r[0], raw(b.Bytes()...), r[2]}
	}
	// move returns recs with record i moved to position j.
	move := func(recs []rec, i, j int) []rec {
		r := recs[i]
		return slices.Insert(slices.Delete(slices.Clone(recs), i, i+1), j, r)
	}
	// Edge names of an indexed kind, 32-bit: the base's 2^32-1, the
	// second edge's stored difference d.
	indexed := []any{[]any{"e", true}}
	bigName0 := replace(replace(base0, 0, snap("edge_kinds", indexed)), 8, rec{"col", 0, "edge.name", 4, u32s(0xFFFFFFFF)})
	bigName1 := func(d uint64) []byte {
		return based(v, bigName0, snap1(baseDecls, "edge_kinds", indexed, "based", append(slices.Clone(basedNames), "edge.name")),
			replace(base1, 8, rec{"col", 1, "edge.name", 8, binary.LittleEndian.AppendUint64(make([]byte, 8), d)}))
	}
	cases := []struct {
		name    string
		data    []byte
		refused bool
		// byName: refused by what the section's name means, so that a
		// reader that knows no section accepts it.
		byName bool
	}{
		{"valid", stream(v, ok...), false, false},
		{"missing-keys-are-zero", stream(v, rec{"file", map[string]any{"strings": 1, "snapshots": 1}, fileDecls},
			rec{"strings", []any{""}}, rec{"snapshot", map[string]any{"node_kinds": []any{"a"}}, snapDecls}, end), false, false},
		{"unknown-core-keys-skipped", stream(v, append([]rec{file("zzz", []any{1, "x"})}, ok[1:]...)...), false, false},
		{"unknown-section-kept", stream(v, body([]rec{unknown}, rec{"col", 0, "zzz.n", 1, []byte{4, 5}})...), false, false},
		{"newer-version", stream(v+1, ok...), true, false},
		{"version-7", stream(7, ok...), false, false}, // version 8 is version 7 and series
		{"version-0", stream(0, ok...), true, false},
		{"unknown-record", stream(v, body(nil, rec{"frobnicate", map[string]any{}})...), true, false},
		{"undeclared-column", stream(v, body(nil, rec{"col", 0, "node.colour", 1, []byte{0, 0}})...), true, false},
		{"unknown-column-type", stream(v, body([]rec{section(0, "zzz.later", map[string]any{}, []any{"zzz.n", "float", "node", ""})})...), true, false},
		{"index-without-its-table", stream(v, body([]rec{section(0, "zzz.later", map[string]any{}, []any{"zzz.n", "index", "node", ""})})...), true, false},
		{"column-declared-twice", stream(v, body([]rec{section(0, "zzz.later", map[string]any{}, []any{"node.id", "uint", "node", ""})})...), true, false},
		{"known-section-unknown-field", stream(v, body([]rec{section(0, "dart", map[string]any{"colour": 1})})...), true, true},
		{"core-column-of-another-type", stream(v, replace(ok, 2, snapWith(append(decls(ir.SnapshotBindings(empty.Snapshots[0]), "node.name"),
			[]any{"node.name", "uint", "node", ""})))...), true, false},
		{"core-column-not-declared", stream(v, replace(ok, 2, snapWith(decls(ir.SnapshotBindings(empty.Snapshots[0]), "node.id")))...), true, false},
		{"zeros-for-root-column", stream(v, append([]rec{file(), {"strings", []any{""}}, snap("roots", 1)},
			append(nodes, rec{"zeros", 0, "root.node", 1}, rec{"zeros", 0, "root.category", 1}, end)...)...), true, false},
		{"zeros-for-a-first-column", stream(v, append([]rec{file(), {"strings", []any{""}}, snap()},
			append([]rec{{"zeros", 0, "node.kind", 2}}, nodes[1:]...)...)...), true, false},
		{"mixed-zeros-and-col", stream(v, append(append([]rec{}, ok[:6]...),
			append([]rec{{"zeros", 0, "node.id", 1}, {"col", 0, "node.id", 1, []byte{7}}}, ok[7:]...)...)...), true, false},
		{"value-node-not-increasing", stream(v, append([]rec{file(), {"strings", []any{""}}, snap("values", 2)},
			append(nodes, rec{"col", 0, "value.node", 4, u32s(1, 1)}, rec{"col", 0, "value.kind", 1, []byte{6, 6}},
				rec{"col", 0, "value.bits", 1, []byte{0, 0}}, rec{"col", 0, "value.aux", 1, []byte{0, 0}}, end)...)...), true, false},
		{"value-kind-before-value-node", stream(v, append([]rec{file(), {"strings", []any{""}}, snap("values", 1)},
			append(nodes, rec{"col", 0, "value.kind", 1, []byte{6}})...)...), true, false},
		{"edge-target-out-of-range", stream(v, replace(ok, 10, rec{"col", 0, "edge.target", 4, u32s(2)})...), true, false},
		{"node-kind-out-of-table", stream(v, replace(ok, 3, rec{"col", 0, "node.kind", 1, []byte{0, 1}})...), true, false},
		{"edge-counts-not-adding-up", stream(v, replace(ok, 8, rec{"col", 0, "node.edge_count", 4, u32s(1, 1)})...), true, false},
		{"column-of-an-earlier-snapshot", stream(v, append([]rec{file("snapshots", 2), {"strings", []any{""}}, snap(),
			snap("nodes", 0, "edges", 0)}, append(nodes, rec{"end", map[string]any{"strings": 1, "snapshots": 2}})...)...), true, false},
		{"section-after-the-snapshot-columns", stream(v, body(nil, unknown)...), true, false},
		{"unknown-section-string-out-of-range", stream(v, body([]rec{section(0, "zzz.later", map[string]any{},
			[]any{"zzz.s", "string", "zzz.t", ""})}, rec{"col", 0, "zzz.s", 1, []byte{1}})...), true, false},
		{"unknown-section-column-too-short", stream(v, body([]rec{unknown}, rec{"col", 0, "zzz.n", 1, []byte{4}})...), true, false},
		{"bytes-of-width-2", stream(v, body([]rec{section(0, "zzz.later", map[string]any{}, []any{"zzz.b", "bytes", "zzz.b", ""})},
			rec{"col", 0, "zzz.b", 2, []byte{1, 2}})...), true, false},
		// Chunk encodings (SPEC.md, Columns): node.id 7, 9 as deltas 7, 2
		// zigzag-coded (14, 4), split into planes (one byte a value: one
		// plane); edge.target 1 as a delta, two bytes split.
		{"encoded-chunks", stream(v, replace(replace(ok, 6, rec{"col", 0, "node.id", 2, 3, []byte{14, 4, 0, 0}}),
			10, rec{"col", 0, "edge.target", 2, 3, []byte{2, 0}})...), false, false},
		{"encoded-value-out-of-range", stream(v, replace(ok, 10, rec{"col", 0, "edge.target", 1, 1, []byte{4}})...), true, false},
		{"unknown-encoding", stream(v, replace(ok, 10, rec{"col", 0, "edge.target", 4, 4, u32s(1)})...), true, false},
		{"encoded-bytes-chunk", stream(v, body([]rec{section(0, "zzz.later", map[string]any{}, []any{"zzz.b", "bytes", "zzz.b", ""})},
			rec{"col", 0, "zzz.b", 1, 1, []byte{1, 2}})...), true, false},
		{"more-strings-than-declared", stream(v, replace(ok, 1, rec{"strings", []any{"", "b"}})...), true, false},
		{"end-disagrees", stream(v, replace(ok, len(ok)-1, rec{"end", map[string]any{"strings": 1, "snapshots": 2}})...), true, false},
		{"data-after-end", append(stream(v, ok...), '\n'), true, false},
		{"no-end", stream(v, ok[:len(ok)-1]...), true, false},
		{"no-file-record", stream(v, rec{"end", map[string]any{"strings": 0, "snapshots": 0}}), true, false},
		{"total-not-a-pair", stream(v, replace(ok, 2, snap("totals", []any{[]any{"t"}, []any{"u", 1}}))...), true, false},
		{"file-classes-disagree", stream(v, replace(ok, 0, file("classes", 3))...), true, false},

		// Tables and their first columns (SPEC.md, Column declarations).
		{"first-column-is-the-first-declared", stream(v, append([]rec{file(), {"strings", []any{""}},
			snapWith(append([]any{[]any{"node.id", "uint", "node", ""}},
				slices.DeleteFunc(slices.Clone(snapDecls), func(d any) bool { return d.([]any)[0] == "node.id" })...)),
			{"col", 0, "node.id", 1, []byte{1, 2}}},
			append(slices.DeleteFunc(slices.Clone(nodes), func(r rec) bool { return r[2] == "node.id" }), end)...)...), false, false},
		{"file-column-of-a-snapshot-table", stream(v, append([]rec{file(), section(-1, "zzz.file", map[string]any{}, []any{"zzz.n", "uint", "node", ""})},
			ok[1:]...)...), true, false},
		{"file-column-indexing-a-snapshot-table", stream(v, append([]rec{file(), section(-1, "zzz.file", map[string]any{}, []any{"zzz.n", "index", "zzz.t", "edge"})},
			ok[1:]...)...), true, false},
		{"snapshot-counting-a-file-table", stream(v, append([]rec{file(), section(-1, "zzz.file", map[string]any{}, []any{"zzz.f", "uint", "zzz.t", ""})},
			append([]rec{ok[1], ok[2], zzz([]any{"zzz.c", "count", "node", "zzz.t"})}, ok[3:]...)...)...), true, false},
		{"a-table-counted-twice", stream(v, body([]rec{zzz([]any{"zzz.c", "count", "node", "edge"})})...), true, false},
		{"a-column-counting-its-table", stream(v, body([]rec{zzz([]any{"zzz.c", "count", "zzz.t", "zzz.t"})})...), true, false},
		{"a-table-the-file-only-counts-is-the-snapshots", stream(v, append([]rec{file(), section(-1, "zzz.file", map[string]any{},
			[]any{"zzz.c", "count", "class", "zzz.t"})}, body([]rec{zzz([]any{"zzz.s", "uint", "zzz.t", ""})},
			rec{"col", 0, "zzz.s", 1, []byte{1, 2, 3}})[1:]...)...), false, false},
		{"a-column-without-a-name", stream(v, body([]rec{zzz([]any{"", "uint", "node", ""})}, rec{"col", 0, "", 1, []byte{1, 2}})...), true, false},
		{"a-section-without-a-name", stream(v, body([]rec{section(0, "", map[string]any{})})...), true, false},

		// msgpack types (SPEC.md, Fields).
		{"root-beyond-int64", stream(v, replace(ok, 2, snap("root", raw(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)))...), true, false},
		{"integer-key-in-a-section-value", stream(v, body([]rec{section(0, "zzz.later", map[string]any{"m": map[int]int{1: 2}})})...), true, false},
		{"ext-in-a-skipped-key", stream(v, append([]rec{file("zzz", raw(0xd4, 1, 0))}, ok[1:]...)...), true, false},
		{"a-str-column-chunk", stream(v, replace(ok, 3, rec{"col", 0, "node.kind", 1, string([]byte{0, 0})})...), false, false},

		// Series (SPEC.md, Series and Validation).
		{"series", stream(v, seriesOK...), false, false},
		{"series-of-an-empty-origin-class", stream(v, seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0, 1))...), false, false},
		{"series-of-two-snapshots", twoSnapshots(seriesDecls, rec{"col", 1, "origin.string", 1, []byte{0}}), false, false},
		{"series-section-string-column-in-origin", stream(v, seriesRecs(seriesDecls, nil, []rec{zzz([]any{"zzz.s", "string", "node", ""})},
			origin(0, 1), rec{"col", 0, "zzz.s", 1, []byte{1, 0}})...), false, false},
		{"origin-columns-in-version-7", stream(7, seriesOK...), true, false},
		{"origin-string-only", stream(v, seriesRecs(append(slices.Clone(snapDecls), originString), []byte{0, 1}, nil, origin(0, 1))...), true, false},
		{"origin-class-only", stream(v, seriesRecs(append(slices.Clone(snapDecls), originClass), nil, nil, originClasses(0))...), true, false},
		{"origin-string-of-another-table", stream(v, seriesRecs(append(slices.Clone(snapDecls), originClass,
			[]any{"origin.string", "string", "node", ""}), []byte{0, 1}, nil, rec{"col", 0, "origin.string", 1, []byte{0, 1}})...), true, false},
		{"series-node-name-not-in-origin", stream(v, seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0))...), true, false},
		{"series-duplicate-origin-string", stream(v, seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0, 1, 1))...), true, false},
		{"series-duplicate-origin-class", stream(v, seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0, 1), originClasses(0, 0))...), true, false},
		{"series-origin-string-out-of-range", stream(v, seriesRecs(seriesDecls, []byte{0, 1}, nil, origin(0, 1, 2))...), true, false},
		{"series-class-name-not-in-origin", stream(v, seriesRecs(seriesDecls, nil, nil, origin(0), originClasses(0))...), true, false},
		{"series-node-class-not-in-origin", stream(v, seriesRecs(append(slices.Clone(seriesDecls), []any{"node.class", "index+1", "node", "class"}),
			nil, nil, origin(0), rec{"col", 0, "node.class", 1, []byte{1, 0}})...), true, false},
		{"series-edge-name-not-in-origin", stream(v, replace(seriesRecs(seriesDecls, nil, nil, origin(0)), 12,
			rec{"col", 0, "edge.name", 1, []byte{1}})...), true, false},
		{"series-section-string-column-not-in-origin", stream(v, seriesRecs(seriesDecls, nil, []rec{zzz([]any{"zzz.s", "string", "node", ""})},
			origin(0), rec{"col", 0, "zzz.s", 1, []byte{1, 0}})...), true, false},
		{"series-section-class-column-not-in-origin", stream(v, seriesRecs(seriesDecls, nil, []rec{zzz([]any{"zzz.c", "index", "node", "class"})},
			origin(0), rec{"col", 0, "zzz.c", 1, []byte{0, 0}})...), true, false},
		{"series-with-a-file-section", stream(v, slices.Insert(slices.Clone(seriesOK), 1, section(-1, "zzz.file", map[string]any{}))...), true, false},
		{"series-and-a-snapshot-without-origin", twoSnapshots(snapDecls), true, false},
		// Outside the origin's classes, a column of the class table is 0
		// and refers to nothing; inside, it refers to the origin's strings.
		{"series-class-column-0-outside-origin", classColumn(1, 0), false, false},
		{"series-class-column-not-0-outside-origin", classColumn(1, 1), true, false},
		{"series-class-column-not-in-origin-inside", classColumn(0, 0), true, false},

		// Snapshots stored against a base (SPEC.md, Snapshots stored
		// against a base); those accepted are compared with the model
		// below.
		{"base-valid", based(v, base0, snap1(baseDecls), base1), false, false},
		{"base-node-base-declared-last", based(v, base0, snap1(append(slices.Clone(snapDecls), nodeBase)), move(base1, 1, 2)), false, false},
		{"base-difference-out-of-range-value-in-range", bigName1(1<<33 - 3), false, false}, // -(2^32-1): the value 0
		{"base-keys-in-version-7-are-unknown", based(7, base0, snap1(snapDecls), plain1), false, false},
		{"base-value-out-of-range", bigName1(2), true, false}, // +1: the value 2^32
		{"base-not-earlier", based(v, base0, snap1(baseDecls, "base", 1), base1), true, false},
		{"base-below-minus-one", based(v, base0, snap1(baseDecls, "base", -2), base1), true, false},
		{"based-not-declared", based(v, base0, snap1(baseDecls, "based", append(slices.Clone(basedNames), "no.such")), base1), true, false},
		{"based-of-another-table", based(v, base0, snap1(baseDecls, "based", append(slices.Clone(basedNames), "value.kind")), base1), true, false},
		// The key base or based twice, even of the same value (a reader of
		// one snapshot finds the base from the first).
		{"base-key-twice", based(v, base0, keyTwice(snap1(baseDecls), "base", 0), base1), true, false},
		{"based-key-twice", based(v, base0, keyTwice(snap1(baseDecls), "based", basedNames), base1), true, false},
		{"based-named-twice", based(v, base0, snap1(baseDecls, "based", append(slices.Clone(basedNames), "node.id")), base1), true, false},
		{"based-node-base", based(v, base0, snap1(baseDecls, "based", append(slices.Clone(basedNames), "node.base")), base1), true, false},
		{"based-bytes", based(v, base0, snap1(baseDecls, "based", append(slices.Clone(basedNames), "zzz.b")),
			append(replace(base1, 0, section(1, "zzz.later", map[string]any{}, zzzN, []any{"zzz.b", "bytes", "node", ""})),
				rec{"col", 1, "zzz.b", 1, []byte{1, 2, 3}})), true, false},
		{"based-without-a-base", based(v, base0, snap1(snapDecls, "base", -1), plain1), true, false},
		{"base-without-node-base", based(v, base0, snap1(snapDecls, "based", []any{}), plain1), true, false},
		{"node-base-without-a-base", based(v, base0, snap1(baseDecls, "base", -1, "based", []any{}),
			slices.Insert(slices.Clone(plain1), 1, base1[1])), true, false},
		{"node-base-in-version-7", based(7, base0, snap1(baseDecls), base1), true, false},
		{"node-base-names-a-base-node-twice", based(v, base0, snap1(baseDecls), replace(base1, 1, rec{"col", 1, "node.base", 1, []byte{2, 0, 2}})), true, false},
		{"node-base-past-the-base", based(v, base0, snap1(baseDecls), replace(base1, 1, rec{"col", 1, "node.base", 1, []byte{3, 0, 1}})), true, false},
		{"based-before-node-base", based(v, base0, snap1(append(slices.Clone(snapDecls), nodeBase)), move(base1, 1, 5)), true, false},
		{"based-edge-before-edge-count", based(v, base0, snap1(baseDecls), move(base1, 9, 7)), true, false},
	}
	dir := t.TempDir()
	var paths []string
	for i, c := range cases {
		p := filepath.Join(dir, fmt.Sprintf("%02d-%s.heapir", i, c.name))
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got, stderr, err := irReaderRun(paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		_, goErr := irstream.Decode(bytes.NewReader(c.data))
		if jsRefused := got[i].Error != ""; jsRefused != (c.refused && !c.byName) {
			t.Errorf("%s: irread.js refused=%v (%s), want refused=%v", c.name, jsRefused, got[i].Error, c.refused && !c.byName)
		}
		if (goErr != nil) != c.refused {
			t.Errorf("%s: irstream.Decode: %v, want refused=%v", c.name, goErr, c.refused)
		}
	}
	// The streams stored against a base that both accept: irread.js's
	// figures are those of the file heapconv reads, whose snapshot 1 holds
	// the values the streams mean.
	for i, c := range cases {
		if c.refused || !strings.HasPrefix(c.name, "base-") || got[i].Error != "" {
			continue
		}
		f, err := irstream.Decode(bytes.NewReader(c.data))
		if err != nil {
			continue // reported above
		}
		sb, err := streamBases(c.data)
		if err != nil {
			t.Fatal(err)
		}
		if c.name == "base-keys-in-version-7-are-unknown" {
			sb = nil // keys a version 7 stream does not have: stored as it is
		}
		want := irExpected(f, sb)
		want.Version = got[i].Version
		for _, d := range irFiguresDiff(want, got[i]) {
			t.Errorf("%s: %s", c.name, d)
		}
		s1 := f.Snapshots[1]
		vals := fmt.Sprint(uintsOf(&s1.Nodes.ID), uintsOf(&s1.Nodes.SelfSize), s1.Edges.Target, s1.Edges.Name)
		if want := "[9 11 7] [32 0 16] [2 0] [0 0]"; vals != want {
			t.Errorf("%s: snapshot 1's node.id, node.self_size, edge.target and edge.name %s, want %s", c.name, vals, want)
		}
	}
	if t.Failed() {
		t.Logf("irread.js stderr:\n%s", stderr)
	}
}

func uintsOf(u *ir.Uints) []uint64 {
	out := make([]uint64, u.Len())
	for i := range out {
		out[i] = u.At(i)
	}
	return out
}
