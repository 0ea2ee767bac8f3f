package dart

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/heapconv/heapconv/ir"
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

// TestAddTwoChains: decoding in two chains, called again on what is left
// as readTail does, adds what decoding one number after the other adds,
// and says where it stopped, or adds nothing, for runs of every size
// around the least it takes, numbers of every length (padded ones too),
// fewer numbers wanted than the run holds (DevTools' padding after the
// hash codes), a value past 32 bits or a number past 8 bytes anywhere,
// and batches that already hold values.
func TestAddTwoChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	encode := func(count int, spoil func(k int, v uint64, enc []byte) (uint64, []byte)) ([]byte, []uint64) {
		var b []byte
		var vs []uint64
		for k := range count {
			v := uint64(rng.Uint32() >> rng.IntN(32))
			enc := dartir.AppendULEB(nil, v)
			if rng.IntN(50) == 0 { // padded with a 0x80 group
				enc[len(enc)-1] |= 0x80
				enc = append(enc, 0)
			}
			if spoil != nil {
				v, enc = spoil(k, v, enc)
			}
			b, vs = append(b, enc...), append(vs, v)
		}
		return b, vs
	}
	const some, none, either = 1, 2, 3 // what a check wants added
	check := func(name string, buf []byte, vs []uint64, most, held int, want int) (added int) {
		t.Helper()
		var col ir.Uints
		bt := newBatch(&col, held+most)
		for k := range held {
			bt.add(uint64(k))
		}
		// As readTail calls it: again on what is left, until it adds none.
		used := 0
		for {
			u, k := bt.addTwoChains(buf[used:], most-added)
			if k == 0 {
				if u != 0 {
					t.Fatalf("%s: nothing added, but %d bytes used", name, u)
				}
				break
			}
			used, added = used+u, added+k
		}
		if want == none && added != 0 || want == some && added == 0 {
			t.Fatalf("%s: added %d of %d numbers", name, added, most)
		}
		if added == 0 {
			if len(bt.u32) != held {
				t.Fatalf("%s: nothing added, but it holds %d", name, len(bt.u32))
			}
			return 0
		}
		if added > most || added > len(vs) || len(bt.u32) != held+added {
			t.Fatalf("%s: added %d (most %d, %d numbers), holds %d", name, added, most, len(vs), len(bt.u32))
		}
		pos := 0
		for k := range added {
			if pos > len(buf)-8 {
				t.Fatalf("%s: number %d starts at %d, fewer than 8 bytes before the end (%d)", name, k, pos, len(buf))
			}
			v, next, ok := lebAt(buf, pos)
			if !ok || v != vs[k] || uint64(bt.u32[held+k]) != v {
				t.Fatalf("%s: value %d is %d, want %d", name, k, bt.u32[held+k], vs[k])
			}
			pos = next
		}
		if used != pos {
			t.Fatalf("%s: used %d bytes, the %d numbers take %d of %d", name, used, added, pos, len(buf))
		}
		return added
	}
	for _, count := range []int{8 * minChain, 8*minChain + 1, 20000, 50000} {
		buf, vs := encode(count, nil)
		if k := check("whole", buf, vs, count, 0, some); count >= 20000 && k < count/2 {
			t.Fatalf("whole: %d of %d numbers added", k, count)
		}
		check("held before", buf, vs, count, 7, some)
		// A buffer of a longer run: the bytes, not the count, bound it.
		if k := check("more to come", buf, vs, 10*count, 0, some); k < count*3/4 {
			t.Fatalf("more to come: %d of %d numbers added", k, count)
		}
		// Fewer numbers than the run holds: never more than most.
		check("most in the first chain", buf, vs, count/3, 0, either)
		check("most in the second chain", buf, vs, count*3/4, 0, either)
		check("most one short", buf, vs, count-1, 0, either)
		padded := append(append([]byte(nil), buf...), make([]byte, 3000)...) // zeros decode as numbers
		check("padding after", padded, vs, count, 0, some)
		// Not padding: a number whose last byte is a zero.
		damaged := append(append([]byte(nil), buf...), 0x80, 0, 0x80, 0)
		check("a two-byte zero after", append(damaged, make([]byte, 3000)...), vs, count, 0, either)
		for _, at := range []int{10, count / 4, count/2 - 1, count / 2, count/2 + 1, count * 3 / 4, count - 20} {
			wide, wvs := encode(count, func(k int, v uint64, enc []byte) (uint64, []byte) {
				if k == at {
					return 1 << 32, dartir.AppendULEB(nil, 1<<32)
				}
				return v, enc
			})
			// The runs stop before it: it is left to the one-chain loop.
			for _, most := range []int{count, 10 * count} {
				if k := check("a value past 32 bits", wide, wvs, most, 0, either); k > at {
					t.Fatalf("a value past 32 bits at %d: %d numbers added", at, k)
				}
			}
			long, lvs := encode(count, func(k int, v uint64, enc []byte) (uint64, []byte) {
				if k == at {
					return 5, []byte{0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0}
				}
				return v, enc
			})
			for _, most := range []int{count, 10 * count} {
				if k := check("a 9-byte number", long, lvs, most, 0, either); k > at {
					t.Fatalf("a 9-byte number at %d: %d numbers added", at, k)
				}
			}
		}
	}
	short, svs := encode(2*minChain-1, nil)
	check("too few", short, svs, 2*minChain-1, 0, none)
}
