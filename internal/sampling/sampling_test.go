package sampling

import (
	"slices"
	"testing"
)

func TestExhaustive(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true} {
		t.Setenv(Env, v)
		if got := Exhaustive(); got != want {
			t.Errorf("%s=%q: Exhaustive() = %v, want %v", Env, v, got, want)
		}
	}
	t.Setenv(Env, "yes please")
	defer func() {
		if recover() == nil {
			t.Errorf("%s=%q: no panic", Env, "yes please")
		}
	}()
	Exhaustive()
}

func TestCount(t *testing.T) {
	t.Setenv(Env, "")
	if got := Count(300, 32); got != 32 {
		t.Errorf("Count(300, 32) = %d", got)
	}
	if got := Count(10, 32); got != 10 {
		t.Errorf("Count(10, 32) = %d", got)
	}
	t.Setenv(Env, "1")
	if got := Count(300, 32); got != 300 {
		t.Errorf("exhaustive: Count(300, 32) = %d", got)
	}
}

// increasing fails unless idx is strictly increasing within [0, n).
func increasing(t *testing.T, what string, idx []int, n int) {
	t.Helper()
	for i, v := range idx {
		if v < 0 || v >= n || (i > 0 && v <= idx[i-1]) {
			t.Fatalf("%s: %v is not increasing within [0, %d)", what, idx, n)
		}
	}
}

func TestSpread(t *testing.T) {
	if got := Spread(5, 0); got != nil {
		t.Errorf("Spread(5, 0) = %v", got)
	}
	if got := Spread(5, 1); !slices.Equal(got, []int{0}) {
		t.Errorf("Spread(5, 1) = %v", got)
	}
	if got := Spread(4, 9); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("Spread(4, 9) = %v", got)
	}
	if got := Spread(5, 2); !slices.Equal(got, []int{0, 4}) {
		t.Errorf("Spread(5, 2) = %v", got)
	}
	for n := 1; n < 200; n += 7 {
		for k := 2; k <= n; k += 3 {
			idx := Spread(n, k)
			increasing(t, "Spread", idx, n)
			if len(idx) != k || idx[0] != 0 || idx[k-1] != n-1 {
				t.Fatalf("Spread(%d, %d) = %v: want %d indices from 0 to %d", n, k, idx, k, n-1)
			}
			// Evenly: no gap more than one above the mean.
			for i := 1; i < k; i++ {
				if gap := idx[i] - idx[i-1]; gap > (n-1)/(k-1)+1 {
					t.Fatalf("Spread(%d, %d) = %v: gap of %d", n, k, idx, gap)
				}
			}
		}
	}
}

func TestEnds(t *testing.T) {
	t.Setenv(Env, "")
	idx := Ends(1000, 16, 24, 0)
	increasing(t, "Ends", idx, 1000)
	if !slices.Equal(idx[:16], Spread(16, 16)) || idx[len(idx)-1] != 999 || idx[len(idx)-16] != 984 {
		t.Errorf("Ends(1000, 16, 24, 0) does not keep both ends: %v", idx)
	}
	if want := 32 + (968+23)/24; len(idx) != want {
		t.Errorf("Ends(1000, 16, 24, 0): %d indices, want %d", len(idx), want)
	}
	if got := Ends(1000, 16, 24, 10); len(got) != 42 {
		t.Errorf("Ends(1000, 16, 24, 10): %d indices, want 42", len(got))
	}
	if got := Ends(20, 16, 24, 0); !slices.Equal(got, Spread(20, 20)) {
		t.Errorf("Ends of fewer than both ends: %v, want all", got)
	}
	t.Setenv(Env, "1")
	if got := Ends(1000, 16, 24, 10); !slices.Equal(got, Spread(1000, 1000)) {
		t.Errorf("exhaustive: Ends gives %d of 1000", len(got))
	}
}

// recorder is a testing.TB that keeps what Logf printed.
type recorder struct {
	testing.TB
	logs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, format)
}

func TestLogf(t *testing.T) {
	t.Setenv(Env, "")
	r := &recorder{TB: t}
	Logf(r, 3, 3, "things")
	if len(r.logs) != 0 {
		t.Errorf("a full default run logged %q", r.logs)
	}
	Logf(r, 2, 3, "things")
	if len(r.logs) != 1 || r.logs[0] != "sampled: %d of %d %s; %s=1 for all" {
		t.Errorf("a sampled run logged %q", r.logs)
	}
	t.Setenv(Env, "1")
	r.logs = nil
	Logf(r, 3, 3, "things")
	if len(r.logs) != 1 || r.logs[0] != "exhaustive: all %d %s" {
		t.Errorf("an exhaustive run logged %q", r.logs)
	}
}
