package heapconv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/tables"
)

// BenchmarkAnalysis measures diff, paths and the Parquet export against
// reading the same files, in one process, on two snapshots of one program
// named by $HEAPCONV_BENCH_OLD and $HEAPCONV_BENCH_NEW (scripts/bench-
// analysis.sh makes a 1 GB pair). Every case reads its files, so that the
// ratios are the issue's: diff against reading both, the export against
// reading its input, paths against info --by retained.
func BenchmarkAnalysis(b *testing.B) {
	oldName, newName := os.Getenv("HEAPCONV_BENCH_OLD"), os.Getenv("HEAPCONV_BENCH_NEW")
	if oldName == "" || newName == "" {
		b.Skip("set HEAPCONV_BENCH_OLD and HEAPCONV_BENCH_NEW to two snapshots of one program")
	}
	read := func(b *testing.B, name string) analysis.Heap {
		h, err := heapconv.ReadHeap(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	cases := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"read-both", func(b *testing.B) { read(b, oldName); read(b, newName) }},
		{"diff", func(b *testing.B) {
			if _, err := analysis.Compare([]analysis.Heap{read(b, oldName), read(b, newName)}, analysis.CompareOptions{}); err != nil {
				b.Fatal(err)
			}
		}},
		{"diff-retained", func(b *testing.B) {
			if _, err := analysis.Compare([]analysis.Heap{read(b, oldName), read(b, newName)}, analysis.CompareOptions{Retained: true}); err != nil {
				b.Fatal(err)
			}
		}},
		{"read-new", func(b *testing.B) { read(b, newName) }},
		{"info-retained-new", func(b *testing.B) {
			h := read(b, newName)
			if _, err := analysis.SummarizeBy(h.File, h.Snapshot, 10, analysis.ByRetained); err != nil {
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
