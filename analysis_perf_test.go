package heapconv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/explore"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/tables"
)

// BenchmarkAnalysis measures diff, paths and the Parquet export against
// reading the same files, in one process, on snapshots of one program
// named by $HEAPCONV_BENCH_OLD, $HEAPCONV_BENCH_NEW and optionally
// $HEAPCONV_BENCH_LATER (scripts/bench-analysis.sh makes a 1 GB triple).
// Every case reads its files, so that the ratios are the issue's: diff
// against reading the snapshots it compares (read-all), the export against
// reading its input, paths against info --by retained. diff is
// analysis.Compare with its default suspects, without retained sizes (the
// suspects still need the last heap's dominator tree) and with them.
func BenchmarkAnalysis(b *testing.B) {
	oldName, newName := os.Getenv("HEAPCONV_BENCH_OLD"), os.Getenv("HEAPCONV_BENCH_NEW")
	if oldName == "" || newName == "" {
		b.Skip("set HEAPCONV_BENCH_OLD and HEAPCONV_BENCH_NEW (and HEAPCONV_BENCH_LATER) to snapshots of one program")
	}
	names := []string{oldName, newName}
	if later := os.Getenv("HEAPCONV_BENCH_LATER"); later != "" {
		names = append(names, later)
	}
	read := func(b *testing.B, name string) analysis.Heap {
		h, err := heapconv.ReadHeap(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	readAll := func(b *testing.B) []analysis.Heap {
		var heaps []analysis.Heap
		for _, name := range names {
			heaps = append(heaps, read(b, name))
		}
		return heaps
	}
	diff := func(opts analysis.CompareOptions) func(b *testing.B) {
		return func(b *testing.B) {
			c, err := analysis.Compare(readAll(b), opts)
			if err != nil {
				b.Fatal(err)
			}
			if len(c.Suspects) == 0 {
				b.Fatal("no suspects")
			}
		}
	}
	cases := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"read-all", func(b *testing.B) { readAll(b) }},
		{"diff", diff(analysis.CompareOptions{})},
		{"diff-retained", diff(analysis.CompareOptions{Retained: true})},
		{"read-new", func(b *testing.B) { read(b, newName) }},
		{"info-retained-new", func(b *testing.B) {
			h := read(b, newName)
			if _, err := analysis.SummarizeBy(h.File, h.Snapshot, 10, analysis.ByRetained); err != nil {
				b.Fatal(err)
			}
		}},
		{"explore-new", func(b *testing.B) {
			// Until the Summary can be served: read, then the analysis.
			if _, err := explore.New([]analysis.Heap{read(b, newName)}, explore.Options{}); err != nil {
				b.Fatal(err)
			}
		}},
		{"paths-new", func(b *testing.B) {
			h := read(b, newName)
			nv, err := analysis.NewNavigator(h)
			if err != nil {
				b.Fatal(err)
			}
			for _, i := range nv.ClassNodes(benchClass(), 3) {
				nv.ShortestPath(i)
				nv.DominatorChain(i)
			}
		}},
		{"tables-new", func(b *testing.B) {
			h := read(b, newName)
			dir := filepath.Join(b.TempDir(), "t")
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if _, err := tables.Write(dir, h.File, nil); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.run(b)
			}
		})
	}
}

// benchClass is the class paths-new looks for: $HEAPCONV_BENCH_CLASS, or
// Item, the objects scripts/gen-big.sh makes.
func benchClass() string {
	if c := os.Getenv("HEAPCONV_BENCH_CLASS"); c != "" {
		return c
	}
	return "Item"
}
