package v8

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

func wtRead(t *testing.T, data []byte) *ir.File {
	t.Helper()
	f, err := rv8.Read(bytes.NewReader(data), rv8.Options{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return f
}

func wtWrite(t *testing.T, f *ir.File) ([]byte, ir.LossReport) {
	t.Helper()
	var b bytes.Buffer
	loss, err := Write(&b, f, Options{})
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	return b.Bytes(), loss
}

func wtFirstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	lo := max(0, i-30)
	return fmt.Sprintf("at byte %d:\n got:  %q\n want: %q", i, a[lo:min(len(a), i+30)], b[lo:min(len(b), i+30)])
}

// TestWriteByteExact: the hand-written V8-style files in both layouts are
// written back byte for byte.
func TestWriteByteExact(t *testing.T) {
	tests := []struct {
		file   string
		layout v8ir.Layout
	}{
		{"rows.heapsnapshot", v8ir.LayoutRows},
		{"compact.heapsnapshot", v8ir.LayoutCompact},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			f := wtRead(t, in)
			if got := v8ir.Of(f.Snapshots[0]).Layout; got != tc.layout {
				t.Fatalf("fixture read as layout %v, want %v", got, tc.layout)
			}
			out, loss := wtWrite(t, f)
			if len(loss) != 0 {
				t.Errorf("loss report for a V8 file:\n%v", loss)
			}
			if !bytes.Equal(out, in) {
				t.Errorf("output (%d bytes) differs from input (%d bytes) %s", len(out), len(in), wtFirstDiff(out, in))
			}
		})
	}
}

// TestWriteCorrectsFunctionCount: a trace_function_count that does not
// count the functions (Node 20's inspector writes it short) is written as
// the number of functions, and named; the rest of the file comes out byte
// for byte, and with AsRead the whole file does.
func TestWriteCorrectsFunctionCount(t *testing.T) {
	for _, file := range []string{"compact.heapsnapshot"} { // the one with allocation traces
		t.Run(file, func(t *testing.T) {
			good, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", file))
			if err != nil {
				t.Fatal(err)
			}
			const right, short = `"trace_function_count":2`, `"trace_function_count":1`
			if !bytes.Contains(good, []byte(right)) {
				t.Fatalf("%s has no %s", file, right)
			}
			in := bytes.Replace(good, []byte(right), []byte(short), 1)
			f := wtRead(t, in)
			out, loss := wtWrite(t, f)
			if !bytes.Equal(out, good) {
				t.Errorf("output differs from the file with the count corrected %s", wtFirstDiff(out, good))
			}
			if l, ok := loss.Get(v8ir.LossHeader); !ok || l.Count != 1 || len(loss) != 1 {
				t.Errorf("loss report %v, want one %s line of count 1", loss, v8ir.LossHeader)
			}
			var b bytes.Buffer
			if _, err := Write(&b, f, Options{AsRead: true}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), in) {
				t.Errorf("AsRead: output differs from input %s", wtFirstDiff(b.Bytes(), in))
			}
		})
	}
}

// TestWriteOtherLayout: a file in another producer's style is written in
// V8's compact layout with the file's escaping; the graph, strings and
// extra keys survive, and writing the result again is stable.
func TestWriteOtherLayout(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", "other.heapsnapshot"))
	if err != nil {
		t.Fatal(err)
	}
	f := wtRead(t, in)
	out, _ := wtWrite(t, f)
	g := wtRead(t, out)
	if d := ir.GraphDiff(f, f.Snapshots[0], g, g.Snapshots[0], 10); len(d) > 0 {
		t.Errorf("graph differs: %q", d)
	}
	if strings.Join(f.Strings, "\x00") != strings.Join(g.Strings, "\x00") {
		t.Errorf("strings differ: %q vs %q", f.Strings, g.Strings)
	}
	v := v8ir.Of(g.Snapshots[0])
	if v.Layout != v8ir.LayoutCompact || v.Escape != v8ir.EscapeRaw {
		t.Errorf("rewritten layout %v escape %v, want compact raw", v.Layout, v.Escape)
	}
	if g.Snapshots[0].Root != 2 {
		t.Errorf("root %d, want 2 (root_index kept)", g.Snapshots[0].Root)
	}
	if len(v.Keys) != 5 || v.Keys[3].Name != "x_producer" || v.Keys[3].Value == nil || !v.Keys[3].Value.Equal(v8ir.Of(f.Snapshots[0]).Keys[3].Value) {
		t.Errorf("extra key lost: %+v", v.Keys)
	}
	if !v.Header.Equal(&v8ir.Of(f.Snapshots[0]).Header) {
		t.Errorf("header changed: %s", v.Header.String())
	}
	again, _ := wtWrite(t, g)
	if !bytes.Equal(again, out) {
		t.Errorf("second write differs %s", wtFirstDiff(again, out))
	}
	if bytes.Count(out, []byte("\n")) != 4 {
		t.Errorf("compact output has %d newlines, want 4 (one per section separator)", bytes.Count(out, []byte("\n")))
	}
}

// TestWriteSwitchLayout writes a compact file in the rows layout and the
// rows file compactly: the reader recognizes the layout written and the
// data is unchanged.
func TestWriteSwitchLayout(t *testing.T) {
	tests := []struct {
		file string
		to   v8ir.Layout
	}{
		{"compact.heapsnapshot", v8ir.LayoutRows},
		{"rows.heapsnapshot", v8ir.LayoutCompact},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			f := wtRead(t, in)
			v8ir.Of(f.Snapshots[0]).Layout = tc.to
			out, _ := wtWrite(t, f)
			g := wtRead(t, out)
			if got := v8ir.Of(g.Snapshots[0]).Layout; got != tc.to {
				t.Errorf("written file reads as layout %v, want %v:\n%s", got, tc.to, out)
			}
			if d := ir.Diff(f, g, 10); len(d) > 1 || (len(d) == 1 && !strings.Contains(d[0], "layout")) {
				t.Errorf("data changed: %q", d)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(f *ir.File)
		want string
	}{
		{"two snapshots", func(f *ir.File) { f.Snapshots = append(f.Snapshots, f.Snapshots[0]) }, "holds one snapshot; this file has 2"},
		{"no snapshot", func(f *ir.File) { f.Snapshots = nil }, "has 0"},
		{"node field without column", func(f *ir.File) {
			meta := v8ir.Of(f.Snapshots[0]).Header.Get("meta")
			meta.Set("node_fields", ir.JSONStrs("type", "name", "id", "self_size", "edge_count", "detachedness"))
		}, `node field "detachedness" has no column`},
		{"edge field without column", func(f *ir.File) {
			meta := v8ir.Of(f.Snapshots[0]).Header.Get("meta")
			meta.Set("edge_fields", ir.JSONStrs("type", "name_or_index", "to_node", "weight"))
		}, `edge field "weight" has no column`},
		{"unknown key without value", func(f *ir.File) {
			v := v8ir.Of(f.Snapshots[0])
			v.Keys = append(v.Keys[:3], v8ir.Key{Name: "mystery"}, v.Keys[3])
		}, `key "mystery" has no value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := wtMinimal([]string{"<dummy>", ""})
			tc.mod(f)
			var b bytes.Buffer
			_, err := Write(&b, f, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteProgress(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", "rows.heapsnapshot"))
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	calls := 0
	var b bytes.Buffer
	if _, err := Write(&b, wtRead(t, in), Options{Progress: func(n int64) { calls++; last = n }}); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != int64(b.Len()) {
		t.Errorf("progress called %d times, last %d, output %d bytes", calls, last, b.Len())
	}
}
