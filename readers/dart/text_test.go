package dart

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
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

// TestUTF16: code units become UTF-8 as utf8.AppendRune and ir.AppendWTF8
// write them, one by one: every boundary of the encodings' lengths,
// surrogate pairs, lone and reversed surrogates, an odd last byte.
func TestUTF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	units := []uint16{0, 'a', 0x7f, 0x80, 0xe9, 0x7ff, 0x800, 0x4e2d, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd, 0xffff}
	for n := 0; n <= 33; n++ {
		for range 200 {
			b := make([]byte, n)
			for k := 0; k+1 < n; k += 2 {
				u := units[rng.IntN(len(units))]
				b[k], b[k+1] = byte(u), byte(u>>8)
			}
			if n%2 == 1 {
				b[n-1] = byte(rng.IntN(256))
			}
			var want []byte
			for k := 0; k+1 < n; k += 2 {
				u := rune(b[k]) | rune(b[k+1])<<8
				if u >= 0xd800 && u < 0xdc00 && k+3 < n {
					if u2 := rune(b[k+2]) | rune(b[k+3])<<8; u2 >= 0xdc00 && u2 < 0xe000 {
						want = utf8.AppendRune(want, 0x10000+(u-0xd800)<<10+(u2-0xdc00))
						k += 2
						continue
					}
				}
				want = ir.AppendWTF8(want, u)
			}
			if got := appendUTF16([]byte("x"), b); string(got) != "x"+string(want) {
				t.Fatalf("% x: % x, want % x", b, got, want)
			}
		}
	}
}
