package v8gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	irv8 "github.com/heapconv/heapconv/ir/v8"
)

// generated caches generated files: several tests read the same ones.
var (
	genMu    sync.Mutex
	genCache = map[Options]generated{}
)

type generated struct {
	data  []byte
	stats Stats
}

func generate(t testing.TB, opts Options) generated {
	t.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	if g, ok := genCache[opts]; ok {
		return g
	}
	var buf bytes.Buffer
	st, err := Write(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Fatalf("Stats.Bytes %d, wrote %d", st.Bytes, buf.Len())
	}
	g := generated{buf.Bytes(), st}
	genCache[opts] = g
	return g
}

// cases are the heaps the tests read: no Items (a target below the fixed
// part), one Item (a table of the smallest capacity), a few, and enough for
// many chunks of rows and names of 32-byte strings, with both kinds of
// seed.
var cases = []Options{
	{TargetBytes: 1},
	{Items: 1},
	{Items: 5},
	{Items: 1000},
	{Items: 1000, Seed: 7},
	{Items: 60_000, Seed: -3},
}

func (o Options) String() string {
	if o.Items > 0 {
		return fmt.Sprintf("items%d-seed%d", o.Items, o.Seed)
	}
	return fmt.Sprintf("target%d-seed%d", o.TargetBytes, o.Seed)
}

// TestHeapconvReadsItBack: heapconv reads every generated file as a valid
// Node 20 file with the counts Write reported, writes it back byte for byte,
// and through its IR file (msgpack + zstd) too.
func TestHeapconvReadsItBack(t *testing.T) {
	for _, opts := range cases {
		t.Run(opts.String(), func(t *testing.T) {
			t.Parallel()
			g := generate(t, opts)
			in, err := heapconv.Open(bytes.NewReader(g.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if errs := in.Validate(); len(errs) > 0 {
				t.Fatalf("heapconv validate: %v", errors.Join(errs...))
			}
			f, err := heapconv.Read(bytes.NewReader(g.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Validate(); err != nil {
				t.Fatalf("the IR read is invalid: %v", err)
			}
			if want := "V8 11 (Node 20)"; !strings.Contains(f.FormatVersion, want) ||
				!strings.Contains(f.FormatVersion, "layout=rows escape=v8") {
				t.Errorf("read as %q, want %s in the rows layout with V8's escaping", f.FormatVersion, want)
			}
			s := f.Snapshots[0]
			st := g.stats
			locs := irv8.Of(s).Locations.Len() / 4
			if int64(s.Nodes.Len()) != st.Nodes || int64(s.Edges.Len()) != st.Edges ||
				int64(len(f.Strings)) != st.Strings || int64(locs) != st.Locations {
				t.Errorf("heapconv reads %d nodes, %d edges, %d strings, %d locations; Write reported %+v",
					s.Nodes.Len(), s.Edges.Len(), len(f.Strings), locs, st)
			}
			if s.Root != 0 {
				t.Errorf("root %d, want 0", s.Root)
			}
			seen := make(map[string]bool, len(f.Strings))
			for i, str := range f.Strings {
				if seen[str] {
					t.Fatalf("string %d %q appears twice; V8 writes each once", i, str)
				}
				seen[str] = true
			}
			for i := 0; i < s.Nodes.Len(); i++ {
				if id := s.Nodes.ID.At(i); id != 2*uint64(i)+1 {
					t.Fatalf("node %d has id %d, want %d", i, id, 2*i+1)
				}
			}

			var out bytes.Buffer
			if _, err := heapconv.Write(&out, f, irv8.Format, nil); err != nil {
				t.Fatal(err)
			}
			irtest.SameBytes(t, "heapconv's V8 writer", out.Bytes(), g.data)
			var irFile bytes.Buffer
			if _, err := heapconv.Write(&irFile, f, ir.FormatIR, nil); err != nil {
				t.Fatal(err)
			}
			back, err := heapconv.Read(&irFile, nil)
			if err != nil {
				t.Fatalf("reading the IR file back: %v", err)
			}
			out.Reset()
			if _, err := heapconv.Write(&out, back, irv8.Format, nil); err != nil {
				t.Fatal(err)
			}
			irtest.SameBytes(t, "V8 -> IR file -> V8", out.Bytes(), g.data)
		})
	}
}

// TestLayoutOfNode20: the header line and every section boundary are
// Node 20's, byte for byte (the fixture testdata/v8/node20.heapsnapshot.zst,
// as FORMAT-OBSERVED.md records it), and so is the escaping of the strings.
func TestLayoutOfNode20(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "node20.heapsnapshot.zst"))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	real, err := dec.DecodeAll(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The header up to the counts.
	const counts = `},"node_count":`
	realHead := real[:bytes.Index(real, []byte(counts))+len(counts)]
	// Section boundaries: the text between the last number of one array and
	// the first of the next.
	boundaries := []string{
		`,"trace_function_count":0},` + "\n" + `"nodes":[`,
		"\n" + `],` + "\n" + `"edges":[`,
		"\n" + `],` + "\n" + `"trace_function_infos":[],` + "\n" + `"trace_tree":[],` + "\n" + `"samples":[],` + "\n" + `"locations":[`,
		"\n" + `],` + "\n" + `"strings":["<dummy>",` + "\n" + `"",` + "\n" + `"(GC roots)",` + "\n" + `"(Internalized strings)",` + "\n",
	}
	for _, b := range boundaries {
		if bytes.Count(real, []byte(b)) != 1 {
			t.Fatalf("the Node 20 fixture does not have %q once", b)
		}
	}
	for _, opts := range cases {
		g := generate(t, opts)
		if !bytes.HasPrefix(g.data, realHead) {
			t.Errorf("%v: the header differs from Node 20's: %.200q", opts, g.data)
		}
		for _, b := range boundaries {
			if b == boundaries[3] && g.stats.Locations == 0 {
				b = "[" + b[1:] // "locations":[] has no rows
			}
			if n := bytes.Count(g.data, []byte(b)); n != 1 {
				t.Errorf("%v: %q appears %d times, want once", opts, b, n)
			}
		}
		if !bytes.HasSuffix(g.data, []byte(`"]}`)) {
			t.Errorf("%v: the file ends in %q, not as V8's do", opts, g.data[len(g.data)-10:])
		}
		// The rows layout: one row per line, so the file's newlines are
		// those of the rows and strings, and 7 more.
		want := g.stats.Nodes + g.stats.Edges + g.stats.Locations + g.stats.Strings - 1 + 7
		if n := int64(bytes.Count(g.data, []byte{'\n'})); n != want {
			t.Errorf("%v: %d newlines, want %d", opts, n, want)
		}
		for i, c := range g.data {
			if (c < 0x20 || c > 0x7e) && c != '\n' {
				t.Fatalf("%v: byte %d is %#x; V8 writes printable ASCII", opts, i, c)
			}
		}
	}
}

// TestShape: the heap holds per Item what Node 20's holds for the program
// of the package comment: 7 nodes (1 Item, 1 Point, 1 Array, 1 backing
// store, 3 strings), 19.5 edges, 2 strings; Item 0's edges are those of a
// real one.
func TestShape(t *testing.T) {
	a, b := generate(t, Options{Items: 1000}), generate(t, Options{Items: 2000})
	dn, de, ds := b.stats.Nodes-a.stats.Nodes, b.stats.Edges-a.stats.Edges, b.stats.Strings-a.stats.Strings
	if dn != 7000 || de != 19500 || ds != 2000 {
		t.Errorf("1000 more Items add %d nodes, %d edges, %d strings; want 7000, 19500, 2000", dn, de, ds)
	}
	f := readHeap(t, a.data)
	s := f.Snapshots[0]
	c := figures(t, f).classes
	if c["Item"][0] != 1000 || c["Point"][0] != 1000 || c["Array"][0] != 1002 || c["(string)"][0] != 3000 {
		t.Errorf("classes (count, self size) %v: want 1000 Item, 1000 Point, 1002 Array (the tags, the array of Items, Array.prototype), 3000 (string)", c)
	}
	// Item 0: the node after the array of Items.
	first := -1
	for i := 0; i < s.Nodes.Len(); i++ {
		if f.String(s.Nodes.Name[i]) == "Item" && s.NodeKindName(i) == "object" {
			first = i
			break
		}
	}
	if first < 0 || f.String(s.Nodes.Name[first-1]) != "Array" {
		t.Fatalf("the first Item is node %d, not right after the array", first)
	}
	var got []string
	lo, hi := s.Nodes.EdgeRange(first)
	for e := lo; e < hi; e++ {
		to := int(s.Edges.Target[e])
		got = append(got, fmt.Sprintf("%s:%s->%s %q %d", s.EdgeKinds[s.Edges.Kind[e]].Name, f.String(s.Edges.Name[e]),
			s.NodeKindName(to), f.String(s.Nodes.Name[to]), s.Nodes.SelfSize.At(to)))
	}
	want := []string{
		`property:name->string "item-0" 24`,
		`property:pt->object "Point" 40`,
		`property:tags->object "Array" 32`,
		`property:__proto__->object "Object" 24`,
		`internal:map->object shape "system / Map" 72`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Item 0's edges:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDeterministic: the same options give the same bytes, formatted in
// chunks or each part at once; another seed gives other tags and the same
// size.
func TestDeterministic(t *testing.T) {
	opts := Options{Items: 3*chunkUnits + 17, Seed: 5}
	var chunked bytes.Buffer
	st, err := Write(&chunked, opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := plan(opts)
	if err != nil {
		t.Fatal(err)
	}
	var whole []byte
	for _, p := range l.parts() {
		whole = p.appendRange(whole, 0, p.n)
	}
	irtest.SameBytes(t, "each part at once", whole, chunked.Bytes())
	var again, other bytes.Buffer
	if _, err := Write(&again, opts); err != nil {
		t.Fatal(err)
	}
	irtest.SameBytes(t, "written again", again.Bytes(), chunked.Bytes())
	opts.Seed = 6
	st6, err := Write(&other, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st6 != st || bytes.Equal(other.Bytes(), chunked.Bytes()) {
		t.Errorf("seed 6: %+v, seed 5: %+v; same bytes: %v", st6, st, bytes.Equal(other.Bytes(), chunked.Bytes()))
	}
}

// TestTargetBytes: a file made for a target size is within 0.5 % of it,
// and Plan predicts Write's Stats, the size within 0.1 %.
func TestTargetBytes(t *testing.T) {
	for _, target := range []int64{100_000, 1_000_000, 30_000_000} {
		opts := Options{TargetBytes: target, Seed: 1}
		plan, err := Plan(opts)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Write(io.Discard, opts)
		if err != nil {
			t.Fatal(err)
		}
		if off := float64(st.Bytes-target) / float64(target); off < -0.005 || off > 0.005 {
			t.Errorf("target %d: wrote %d bytes (%+.2f %%)", target, st.Bytes, 100*off)
		}
		if off := float64(plan.Bytes-st.Bytes) / float64(st.Bytes); off < -0.001 || off > 0.001 {
			t.Errorf("target %d: Plan estimated %d bytes, Write wrote %d", target, plan.Bytes, st.Bytes)
		}
		plan.Bytes = st.Bytes
		if plan != st {
			t.Errorf("target %d: Plan %+v, Write %+v", target, plan, st)
		}
	}
}

// TestOptions: bad options are refused, and a heap too large for DevTools'
// 32-bit node offsets is refused before anything is written.
func TestOptions(t *testing.T) {
	for _, opts := range []Options{{}, {Items: -1}, {TargetBytes: -1}, {Items: 1, TargetBytes: 1},
		{Items: maxItems() + 1}, {TargetBytes: 1 << 50}} {
		var buf bytes.Buffer
		if _, err := Write(&buf, opts); err == nil || buf.Len() > 0 {
			t.Errorf("%+v: wrote %d bytes, error %v", opts, buf.Len(), err)
		}
	}
	if _, err := Plan(Options{Items: maxItems()}); err != nil {
		t.Errorf("the largest heap: %v", err)
	}
}

// TestWriteError: a failing writer stops Write with its error.
func TestWriteError(t *testing.T) {
	w := &failingWriter{after: 3 << 20}
	if _, err := Write(w, Options{Items: 100_000}); !errors.Is(err, errFull) {
		t.Errorf("error %v, want %v", err, errFull)
	}
}

var errFull = errors.New("disk full")

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		n := w.after
		w.after = 0
		return n, errFull
	}
	w.after -= len(p)
	return len(p), nil
}

// TestStringsLimit: the length of the strings section that the limit on
// Items is computed from is the real one, and the largest heap stays
// within Chrome's limit while one more Item would not.
func TestStringsLimit(t *testing.T) {
	for _, opts := range cases {
		g := generate(t, opts)
		l, err := plan(opts)
		if err != nil {
			t.Fatal(err)
		}
		start := bytes.LastIndex(g.data, []byte(`"strings":[`)) + len(`"strings":`)
		if got, want := l.stringsUnits(), int64(len(g.data)-1-start); got != want {
			t.Errorf("%v: stringsUnits %d, the section has %d bytes", opts, got, want)
		}
	}
	top := maxItems()
	if newLayoutUnchecked(top, 0).stringsUnits() > maxStringsUnits || newLayoutUnchecked(top+1, 0).stringsUnits() <= maxStringsUnits {
		t.Errorf("maxItems %d is not the last heap whose strings fit", top)
	}
	st, err := Plan(Options{Items: top})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the largest heap DevTools can load: %d Items, %d bytes", top, st.Bytes)
}

func TestAppendUint(t *testing.T) {
	for _, v := range []uint64{0, 9, 10, 99, 100, 101, 999, 1000, 123456789, 1<<32 - 1, 1<<64 - 1} {
		if got, want := string(appendUint([]byte("x"), v)), fmt.Sprintf("x%d", v); got != want {
			t.Errorf("appendUint(%d) = %q", v, got)
		}
		if digits(v) != len(fmt.Sprint(v)) {
			t.Errorf("digits(%d) = %d", v, digits(v))
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	opts := Options{Items: 200_000}
	var st Stats
	for b.Loop() {
		var err error
		if st, err = Write(io.Discard, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(st.Bytes)
}
