package v8

import (
	"math/rand"
	"strconv"
	"testing"
)

// TestDigits8 checks the SWAR digit conversion against strconv for every
// digit count and neighbouring byte.
func TestDigits8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200000; i++ {
		n := r.Intn(9)
		var b [8]byte
		for j := range b {
			b[j] = byte(r.Intn(256))
		}
		for j := 0; j < n; j++ {
			b[j] = byte('0' + r.Intn(10))
		}
		if n < 8 {
			for b[n] >= '0' && b[n] <= '9' {
				b[n] = byte(r.Intn(256))
			}
		}
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		gn, gv := digits8(x)
		if gn != n {
			t.Fatalf("%q: %d digits, want %d", b, gn, n)
		}
		if n > 0 && n < 8 {
			want, _ := strconv.ParseUint(string(b[:n]), 10, 64)
			if gv != want {
				t.Fatalf("%q: value %d, want %d", b, gv, want)
			}
		}
	}
}
