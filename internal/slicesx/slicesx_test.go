package slicesx

import (
	"fmt"
	"slices"
	"testing"
)

func TestGrow(t *testing.T) {
	for _, c := range []struct{ len, cap, n int }{
		{0, 0, 0}, {0, 0, 5}, {3, 3, 1}, {3, 8, 5}, {3, 8, 6}, {100, 100, 1000},
	} {
		s := make([]int, c.len, c.cap)
		for i := range s {
			s[i] = i + 1
		}
		g := Grow(s, c.n)
		if !slices.Equal(g, s) || cap(g)-len(g) < c.n {
			t.Errorf("Grow(len %d cap %d, %d): len %d cap %d, values kept %v", c.len, c.cap, c.n, len(g), cap(g), slices.Equal(g, s))
		}
		if fits := c.cap-c.len >= c.n; fits && cap(g) != c.cap {
			t.Errorf("Grow(len %d cap %d, %d) moved a slice that had room", c.len, c.cap, c.n)
		}
	}
}

func ExampleGrow() {
	col := []uint32{7, 8}
	col = Grow(col, 1000) // room for 1000 more, not yet written
	col = append(col, 9)
	fmt.Println(col, cap(col) >= 1002)
	// Output: [7 8 9] true
}
