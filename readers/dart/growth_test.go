package dart

import "testing"

// TestGrowth: a full values or zero-references column grows by what the
// objects left would add at the rate so far (believed only after
// growthAfter objects, and one an object at most), never by more than the
// input's bytes left hold, and by a quarter at least (doubling before the
// rate is believed, or when the input's size is unknown).
func TestGrowth(t *testing.T) {
	const million = 1 << 20
	for _, c := range []struct {
		name      string
		have      int
		i, expect uint64
		size      int64 // 0: unknown
		least     int64
		want      int
	}{
		{"too few objects seen", 1024, 10, million, 1 << 30, 4, 1024},
		{"a thousand references 0 in the first object", 2048, 1, million, 1 << 30, 1, 2048},
		{"half the objects have a value", 5000, 10_000, million, 1 << 30, 4, (million - 10_000) / 2 * 9 / 8},
		{"five references 0 an object", 50_000, 10_000, million, 1 << 30, 1, (million - 10_000) * 9 / 8},
		{"the bytes left hold fewer", 5000, 10_000, million, 40_000, 4, 10_000},
		{"the bytes left hold fewer than a quarter more", 5000, 10_000, million, 8, 4, 1250},
		{"past the objects expected", 5000, million, million, 1 << 30, 4, 1250},
		{"the rate was low", 400_000, 900_000, million, 1 << 30, 4, 100_000},
		{"a small column past the objects expected", 2000, million, million, 1 << 30, 4, 1024},
		{"size unknown", 5000, 10_000, million, 0, 4, 5000},
	} {
		p := &parser{in: &input{size: c.size}, expect: c.expect}
		if got := p.growth(c.have, c.i, c.least); got != c.want {
			t.Errorf("%s: growth %d, want %d", c.name, got, c.want)
		}
	}
}
