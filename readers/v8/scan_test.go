package v8

import (
	"math/rand"
	"testing"
)

// TestPlainRun compares plainRun with a byte-by-byte reference on runs
// that end in every byte that stops one, at every position of an 8-byte
// step, with and without bytes of 0x80 or more before or after the stop.
func TestPlainRun(t *testing.T) {
	want := func(b []byte, i int) (int, bool) {
		high := false
		for ; i < len(b); i++ {
			c := b[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			high = high || c >= 0x80
		}
		return i, high
	}
	r := rand.New(rand.NewSource(5))
	plain := func() byte {
		for {
			if c := byte(r.Intn(256)); c != '"' && c != '\\' && c >= 0x20 {
				return c
			}
		}
	}
	for n := 0; n < 40000; n++ {
		b := make([]byte, r.Intn(40))
		for k := range b {
			b[k] = plain()
			if r.Intn(3) != 0 && b[k] >= 0x80 {
				b[k] = 0x20 + b[k]%0x60 // mostly ASCII
			}
		}
		if len(b) > 0 && r.Intn(4) != 0 {
			b[r.Intn(len(b))] = []byte{'"', '\\', 0, 0x1f, '\n'}[r.Intn(5)]
		}
		i := r.Intn(len(b) + 1)
		gi, gh := plainRun(b, i)
		wi, wh := want(b, i)
		if gi != wi || gh != wh {
			t.Fatalf("plainRun(%q, %d) = %d, %v; want %d, %v", b, i, gi, gh, wi, wh)
		}
	}
}
