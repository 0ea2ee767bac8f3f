package dart

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestLebWord: the 8-bytes-at-a-time decoder gives what the byte loop
// gives, for numbers of every length (padded encodings too) followed by
// any bytes, and gives up on numbers longer than 8 bytes.
func TestLebWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := [][]byte{
		{0}, {0x7f}, {0x80, 0}, {0xff, 0x7f}, {0x80, 0x80, 0x80, 0}, // padded zeros
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // 56 bits
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1},
	}
	for length := 1; length <= 10; length++ {
		for range 200 {
			enc := make([]byte, length)
			for k := range enc {
				enc[k] = byte(rng.IntN(256)) | 0x80
			}
			enc[length-1] &= 0x7f
			if length == 10 {
				enc[9] &= 1 // 64 bits at most
			}
			cases = append(cases, enc)
		}
	}
	for _, enc := range cases {
		for _, after := range []byte{0, 0x80, 0xff} {
			b := append(append([]byte(nil), enc...), after, after, after, after, after, after, after, after)
			v, k := lebWord(binary.LittleEndian.Uint64(b))
			want, next, ok := lebAt(b, 0)
			switch {
			case !ok:
				t.Fatalf("% x: the byte loop failed", enc)
			case len(enc) > 8 && k != 0:
				t.Errorf("% x: %d bytes decoded, want 0 (longer than 8)", enc, k)
			case len(enc) <= 8 && (v != want || k != next):
				t.Errorf("% x followed by %#x: %d in %d bytes, want %d in %d", enc, after, v, k, want, next)
			}
		}
	}
}
