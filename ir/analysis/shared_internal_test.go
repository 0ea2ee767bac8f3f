package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// TestSharedIDsByBits holds the bit-per-id search for shared ids to what
// sorting finds: the ids more than one node has, each once, in order.
func TestSharedIDsByBits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 34))
	for _, n := range []int{1, 2, 100, 5000} {
		var ids ir.Uints
		for i := 0; i < n; i++ {
			id := r.Uint64N(uint64(3 * n))
			if i%50 == 1 {
				// Far beyond the range, as V8's ids of small numbers are:
				// sorted apart, some shared.
				id = 1<<40 + r.Uint64N(8)
			}
			ids.Append(id)
		}
		sorted := make([]uint64, n)
		for i := range sorted {
			sorted[i] = ids.At(i)
		}
		slices.Sort(sorted)
		want := []uint64{}
		for k := 1; k < n; k++ {
			if sorted[k] == sorted[k-1] && (len(want) == 0 || want[len(want)-1] != sorted[k]) {
				want = append(want, sorted[k])
			}
		}
		got := sharedIDsByBits(&ids, n)
		if got == nil || !slices.Equal(got, want) {
			t.Errorf("n=%d: shared %v, want %v", n, got, want)
		}
	}
	var far ir.Uints
	for i := 0; i < 100; i++ {
		far.Append(uint64(i) << 40)
	}
	if got := sharedIDsByBits(&far, 100); got != nil {
		t.Errorf("ids far apart: %v, want nil (left to sorting)", got)
	}
}
