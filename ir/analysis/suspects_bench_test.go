package analysis_test

import (
	"os"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir/analysis"
)

// BenchmarkSuspects measures what the leak suspects add to a diff of
// three snapshots once the last heap's navigator is made: grouping the
// leaked objects by holder, the exact retained sizes of the first groups'
// sets (setRetained) and the suspects' paths (suspects), and, apart, the
// grouping of the leaked objects by retainer path that diff also lists
// (leaked-by-path). The snapshots are $HEAPCONV_BENCH_OLD, _NEW and _LATER
// (scripts/bench-analysis.sh). Run it with -benchtime 1x: a navigator
// remembers the first retainers it looked up, so later iterations are
// faster than a diff's one pass.
func BenchmarkSuspects(b *testing.B) {
	var heaps [3]analysis.Heap
	for k, env := range []string{"HEAPCONV_BENCH_OLD", "HEAPCONV_BENCH_NEW", "HEAPCONV_BENCH_LATER"} {
		name := os.Getenv(env)
		if name == "" {
			b.Skip("set HEAPCONV_BENCH_OLD, HEAPCONV_BENCH_NEW and HEAPCONV_BENCH_LATER to three snapshots of one program")
		}
		h, err := heapconv.ReadHeap(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		heaps[k] = h
	}
	nv, leaked, ids, err := analysis.LeakedObjects(heaps)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d leaked objects", len(leaked))
	b.Run("suspects", func(b *testing.B) {
		for b.Loop() {
			if s, _ := nv.Suspects(leaked, ids, false, 10, 5); len(s) == 0 {
				b.Fatal("no suspects")
			}
		}
	})
	b.Run("leaked-by-path", func(b *testing.B) {
		for b.Loop() {
			if g := analysis.GroupByPath(nv, leaked, 5); len(g) == 0 {
				b.Fatal("no groups")
			}
		}
	})
}
