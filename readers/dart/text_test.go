package dart

import (
	"math/rand/v2"
	"testing"
)

// TestIsASCII: the 8-bytes-at-a-time check finds a byte of 0x80 or more
// wherever it is, in strings of every length up to 40.
func TestIsASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 40; n++ {
		for range 100 {
			b := make([]byte, n)
			for k := range b {
				b[k] = byte(rng.IntN(0x80))
			}
			if !isASCII(b) {
				t.Fatalf("isASCII(% x) = false", b)
			}
			for k := range b {
				c := b[k]
				b[k] = byte(0x80 + rng.IntN(0x80))
				if isASCII(b) {
					t.Fatalf("isASCII(% x) = true", b)
				}
				b[k] = c
			}
		}
	}
}
