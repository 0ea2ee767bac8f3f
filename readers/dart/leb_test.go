package dart

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
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

// TestAppendSlots: the edge kinds and names appendSlots copies, in blocks
// or one by one, for slots within a class's fields and past them, are
// those edge gives slot by slot, whatever room the columns have left.
func TestAppendSlots(t *testing.T) {
	prop := func(name uint32) slot { return slot{kind: dartir.Property, name: name, ok: true} }
	classes := map[string]*classInfo{
		"no fields":       {},
		"dense":           {nFields: 3, dense: []slot{prop(7), prop(8), prop(9)}},
		"a gap":           {nFields: 3, dense: []slot{prop(7), {}, prop(9)}},
		"twenty fields":   {nFields: 20, dense: make([]slot, 20)},
		"fewer than said": {nFields: 5, dense: []slot{prop(1), prop(2)}},
		"sparse":          {nFields: 2, dense: []slot{prop(4)}, sparse: []sparseSlot{{index: 40, slot: prop(5)}}},
	}
	for k := range classes["twenty fields"].dense {
		classes["twenty fields"].dense[k] = prop(uint32(100 + k))
	}
	for name, info := range classes {
		info.tabulate()
		for j := uint64(0); j < 30; j++ {
			for k := uint64(0); k < 30; k++ {
				for _, room := range []uint64{k, k + 3, k + slotBlock, k + 40} {
					kinds := append(make([]uint8, 0, 2+room), 1, 2)
					names := append(make([]uint32, 0, 2+room), 1, 2)
					kinds, names = info.appendSlots(kinds, names, j, k)
					if uint64(len(kinds)) != 2+k || len(names) != len(kinds) {
						t.Fatalf("%s, slots %d+%d: %d kinds and %d names", name, j, k, len(kinds), len(names))
					}
					for x := uint64(0); x < k; x++ {
						wk, wn := info.edge(int(j + x))
						if kinds[2+x] != wk || names[2+x] != wn {
							t.Fatalf("%s, slots %d+%d, room %d: slot %d is (%d, %d), want (%d, %d)", name, j, k, room, j+x, kinds[2+x], names[2+x], wk, wn)
						}
					}
					if kinds[0] != 1 || names[1] != 2 {
						t.Fatalf("%s: the values before were changed", name)
					}
				}
			}
		}
	}
}
