package dart

import (
	"slices"
	"testing"
)

// TestJoinColumn puts two halves' entries together wherever each is: in
// the shared column at their rooms, or moved elsewhere by append when a
// half outgrew its room, including the second half moving up over room
// the first half outgrew.
func TestJoinColumn(t *testing.T) {
	const at = 6 // where the second half's room starts
	firstOf := func(k int) []uint32 {
		f := make([]uint32, k)
		for i := range f {
			f[i] = uint32(100 + i)
		}
		return f
	}
	secondOf := func(n int) []uint32 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = uint32(200 + i)
		}
		return s
	}
	for _, c := range []struct {
		name                string
		k, n                int  // the halves' entries
		firstOut, secondOut bool // whether a half is elsewhere
		length              int  // the shared column's
		wantShared          bool // the result is the shared column
	}{
		{name: "both in their rooms, second moves down", k: 4, n: 5, length: 14, wantShared: true},
		{name: "first filled its room exactly", k: at, n: 5, length: 14, wantShared: true},
		{name: "first outgrew its room, second moves up over it", k: 9, n: 5, firstOut: true, length: 14, wantShared: true},
		{name: "second outgrew its room", k: 4, n: 10, secondOut: true, length: 14, wantShared: true},
		{name: "both outgrew their rooms", k: 8, n: 6, firstOut: true, secondOut: true, length: 14, wantShared: true},
		{name: "no first half entries", k: 0, n: 5, length: 14, wantShared: true},
		{name: "no second half entries", k: 4, n: 0, length: 14, wantShared: true},
		{name: "more than the shared column holds", k: 5, n: 10, secondOut: true, length: 14},
	} {
		t.Run(c.name, func(t *testing.T) {
			shared := make([]uint32, c.length)
			first := shared[:0:at]
			if c.firstOut {
				first = nil
			}
			first = append(first, firstOf(c.k)...)
			second := shared[at:at:c.length]
			if c.secondOut {
				second = nil
			}
			second = append(second, secondOf(c.n)...)
			got := joinColumn(shared, first, second)
			want := append(firstOf(c.k), secondOf(c.n)...)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if inShared := len(got) > 0 && &got[0] == &shared[0]; inShared != c.wantShared && len(got) > 0 {
				t.Errorf("in the shared column: %v, want %v", inShared, c.wantShared)
			}
		})
	}
}
