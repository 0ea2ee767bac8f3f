package fuchsiagen

// rng is a small deterministic generator (SplitMix64). It is used instead
// of math/rand so that the output never depends on the Go release, and all
// of its helpers use integer arithmetic only, so that the output does not
// depend on the CPU either (no transcendental functions, no fused
// multiply-add).
type rng struct{ s uint64 }

func newRNG(seed int64, stream uint64) *rng {
	r := &rng{s: uint64(seed)*0x9e3779b97f4a7c15 ^ mix64(stream+0x632be59bd9b4e019)}
	r.u64()
	return r
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a uniform int in [0, n); it returns 0 for n <= 1.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int((r.u64() >> 1) % uint64(n))
}

// rangeU returns a uniform uint64 in [lo, hi].
func (r *rng) rangeU(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	return lo + r.u64()%(hi-lo+1)
}

// permille returns true with probability n/1000.
func (r *rng) permille(n int) bool { return r.intn(1000) < n }

// percent returns true with probability n/100.
func (r *rng) percent(n int) bool { return r.intn(100) < n }

// geom returns a geometric count >= 0: it keeps counting while an event of
// probability num/den happens (mean num/(den-num)), at most max times.
func (r *rng) geom(num, den, max int) int {
	n := 0
	for n < max && r.intn(den) < num {
		n++
	}
	return n
}

// spread returns median scaled by a random factor between 2^-oct and
// 2^(oct+1) (triangular in octaves), clamped to [lo, hi].
func (r *rng) spread(median, oct, lo, hi int) int {
	k := r.intn(oct+1) + r.intn(oct+1) - oct
	v := median
	if k > 0 {
		v <<= uint(k)
	} else if k < 0 {
		v >>= uint(-k)
	}
	v = v * (64 + r.intn(64)) / 64
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return v
}

// pick returns an index drawn with the given integer weights.
func (r *rng) pick(weights []int) int {
	t := 0
	for _, w := range weights {
		t += w
	}
	x := r.intn(t)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// zipf draws an index in [0, n) with P(i) roughly proportional to
// 1/(i+1), from an integer cumulative table.
type zipf struct{ cum []uint64 }

func newZipf(n int) *zipf {
	z := &zipf{cum: make([]uint64, n)}
	var t uint64
	for i := 0; i < n; i++ {
		t += 1_000_000_000 / uint64(i+1)
		z.cum[i] = t
	}
	return z
}

func (z *zipf) draw(r *rng) int {
	x := r.u64() % z.cum[len(z.cum)-1]
	lo, hi := 0, len(z.cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if z.cum[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
