package irstream_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestSeries joins random files into a series, writes it and reads it
// back, and checks that every snapshot of it is the file it came from:
// V8-sectioned files (strings held twice among them), Dart files (a class
// table per file, with the Dart section's columns of the class and field
// tables), files of several snapshots and files without classes.
func TestSeries(t *testing.T) {
	cases := []struct {
		name string
		opts func(seed int64) irtest.Options
	}{
		{"v8", func(int64) irtest.Options {
			o := irtest.V8Shaped(1, 80)
			o.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeV8, Trace: true, Locations: true}
			return o
		}},
		{"dart", func(seed int64) irtest.Options {
			return irtest.Options{MinNodes: 1, MaxNodes: 80, Dart: &irtest.DartOptions{Hashes: true, External: seed%2 == 0, Data: true, ZeroRefs: true}}
		}},
		{"everything", func(int64) irtest.Options { return irtest.Everything(0, 60) }},
	}
	for _, tc := range cases {
		for seed := range int64(8) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				var files []*ir.File
				for k := range 1 + seed%4 {
					files = append(files, irtest.Random(seed*10+k, tc.opts(seed*10+k)))
				}
				// A series holds files of one variant: make them so.
				for _, f := range files[1:] {
					f.FormatVersion, f.Producer = files[0].FormatVersion, files[0].Producer
				}
				series, err := ir.JoinSeries(files...)
				if err != nil {
					t.Fatal(err)
				}
				if err := series.Validate(); err != nil {
					t.Fatalf("the series is not valid: %v", err)
				}
				var buf bytes.Buffer
				if err := irstream.Encode(&buf, series); err != nil {
					t.Fatal(err)
				}
				back, err := irstream.Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("reading the series back: %v", err)
				}
				if d := ir.Diff(series, back, 5); len(d) > 0 {
					t.Fatalf("the series read back differs:\n%v", d)
				}
				n := sameAsFiles(t, back, files)
				// A series joined again with a file is flattened: its
				// snapshots are the files they came from.
				again, err := ir.JoinSeries(back, files[0])
				if err != nil {
					t.Fatal(err)
				}
				if len(again.Snapshots) != n+len(files[0].Snapshots) || len(again.Strings) != len(back.Strings) {
					t.Errorf("a series and its first file again: %d snapshots and %d strings, want %d and %d",
						len(again.Snapshots), len(again.Strings), n+len(files[0].Snapshots), len(back.Strings))
				}
			})
		}
	}
}

// sameAsFiles checks that each snapshot of series, selected, is the file
// it came from: the files' snapshots in order (a file of several
// snapshots giving each as Select does), and nothing more. It returns how
// many snapshots the files hold.
func sameAsFiles(t *testing.T, series *ir.File, files []*ir.File) int {
	t.Helper()
	n := 0
	for i, f := range files {
		for k := range f.Snapshots {
			want := f
			if len(f.Snapshots) > 1 {
				var err error
				if want, err = f.Select(k); err != nil {
					t.Fatal(err)
				}
			}
			got, err := series.Select(n)
			switch {
			case err != nil:
				t.Errorf("Select(%d): %v", n, err)
			case got.IsSeries():
				t.Errorf("snapshot %d of the series is selected as a series", n)
			default:
				if d := ir.Diff(want, got, 5); len(d) > 0 {
					t.Errorf("snapshot %d (file %d, snapshot %d) differs from the file it came from:\n%v", n, i, k, d)
				}
			}
			n++
		}
	}
	if n != len(series.Snapshots) {
		t.Errorf("the series has %d snapshots, the files %d", len(series.Snapshots), n)
	}
	return n
}

// TestSeriesSharesStrings checks that a string several files hold is
// stored once, and one a file holds twice twice.
func TestSeriesSharesStrings(t *testing.T) {
	a := irtest.Random(1, irtest.V8Shaped(3, 3))
	b := irtest.Random(1, irtest.V8Shaped(3, 3))
	b.Strings = append(b.Strings, a.Strings[0], "only in b")
	series, err := ir.JoinSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(a.Strings) + 2; len(series.Strings) != want {
		t.Errorf("%d strings in the series, want %d (a's, and b's second copy of a string and its own)", len(series.Strings), want)
	}
	o := series.Snapshots[1].Origin
	if len(o.Strings) != len(b.Strings) || o.Strings[len(b.Strings)-2] == o.Strings[0] {
		t.Errorf("b's origin %v: its two copies of a string are one", o.Strings)
	}
}

// TestSeriesRefused checks what cannot make a series, and that a series
// that breaks its rules does not validate.
func TestSeriesRefused(t *testing.T) {
	a := irtest.Random(1, irtest.V8Shaped(3, 10))
	b := irtest.Random(2, irtest.V8Shaped(3, 10))
	other := *b
	other.FormatVersion = "another variant"
	moar := irtest.Random(3, irtest.Options{MinNodes: 2, MaxNodes: 9, MoarVM: &irtest.MoarVMOptions{}})
	for _, files := range [][]*ir.File{{a, &other}, {moar, moar}} {
		if _, err := ir.JoinSeries(files...); !errors.Is(err, ir.ErrSeries) {
			t.Errorf("joining %s and %s: %v, want ErrSeries", files[0].FormatVersion, files[1].FormatVersion, err)
		}
	}
	b.FormatVersion = a.FormatVersion
	series, err := ir.JoinSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	breaks := map[string]func(s *ir.File){
		"an origin lists a string twice": func(s *ir.File) {
			o := s.Snapshots[1].Origin
			o.Strings = append(slices.Clone(o.Strings), o.Strings[0])
		},
		"a snapshot without origin": func(s *ir.File) {
			t := *s.Snapshots[0]
			t.Origin = nil
			s.Snapshots[0] = &t
		},
		"a node named by a string not in its origin": func(s *ir.File) {
			o := s.Snapshots[0].Origin
			in := make(map[uint32]bool)
			for _, k := range o.Strings {
				in[k] = true
			}
			for k := range s.Strings {
				if !in[uint32(k)] {
					t := *s.Snapshots[0]
					t.Nodes.Name = slices.Clone(t.Nodes.Name)
					t.Nodes.Name[0] = uint32(k)
					s.Snapshots[0] = &t
					return
				}
			}
			panic("every string is in snapshot 0's origin")
		},
	}
	for what, brk := range breaks {
		s := *series
		s.Snapshots = slices.Clone(series.Snapshots)
		brk(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: the series validates", what)
		} else {
			t.Logf("%s: %v", what, err)
		}
	}
}

// TestSeriesBuilder checks the builder's order (tables of every file, then
// their snapshots in the same order) and that it makes what JoinSeries
// makes.
func TestSeriesBuilder(t *testing.T) {
	o := irtest.V8Shaped(2, 20)
	a, b := irtest.Random(1, o), irtest.Random(2, o)
	b.FormatVersion = a.FormatVersion
	want, err := ir.JoinSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	sb := ir.NewSeriesBuilder()
	if sb.Head() != nil {
		t.Error("an empty builder has a head")
	}
	for _, f := range []*ir.File{a, b} {
		if err := sb.AddTables(f); err != nil {
			t.Fatal(err)
		}
	}
	got := sb.Head()
	if sb.SnapshotCount() != 2 {
		t.Errorf("%d snapshots counted, want 2", sb.SnapshotCount())
	}
	for _, f := range []*ir.File{a, b} {
		snaps, err := sb.Snapshots(f)
		if err != nil {
			t.Fatal(err)
		}
		got.Snapshots = append(got.Snapshots, snaps...)
	}
	if d := ir.Diff(want, got, 5); len(d) > 0 {
		t.Errorf("the builder's series differs from JoinSeries':\n%v", d)
	}
	if _, err := sb.Snapshots(a); err == nil {
		t.Error("Snapshots of a third file after two were added")
	}
	if err := sb.AddTables(a); err == nil {
		t.Error("AddTables after Snapshots")
	}
	sb = ir.NewSeriesBuilder()
	if err := sb.AddTables(a); err != nil {
		t.Fatal(err)
	}
	c := irtest.Random(3, irtest.Options{MinNodes: 1, MaxNodes: 5, Strings: irtest.AllStrings})
	c.FormatVersion, c.Format = a.FormatVersion, a.Format
	if _, err := sb.Snapshots(c); err == nil {
		t.Error("Snapshots of a file whose tables were not added")
	}
}
