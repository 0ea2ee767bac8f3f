package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir/analysis"
)

// series is a program's classes over n snapshots: Big, 10 MiB, steady
// but for 2 KiB more at the last; Leak, absent at first, 1 KiB more at
// each; Churn up and down, ending 3 KiB up; Shrink, less each time; Flat,
// 1 MiB throughout. Drawn as absolute sizes, the leak would lie flat
// beside Big.
func series(n int) []analysis.ClassChange {
	big := analysis.ClassChange{Name: "Big", Count: make([]uint64, n), SelfSize: make([]uint64, n)}
	leak := analysis.ClassChange{Name: "Leak", Count: make([]uint64, n), SelfSize: make([]uint64, n)}
	churn := analysis.ClassChange{Name: "Churn", Count: make([]uint64, n), SelfSize: make([]uint64, n)}
	shrink := analysis.ClassChange{Name: "Shrink", Count: make([]uint64, n), SelfSize: make([]uint64, n)}
	for k := range n {
		big.Count[k], big.SelfSize[k] = 10, 10<<20
		leak.Count[k], leak.SelfSize[k] = uint64(k), uint64(k)<<10
		churn.Count[k], churn.SelfSize[k] = 5, uint64(20+10*(k%2))<<10
		shrink.Count[k], shrink.SelfSize[k] = uint64(n-k), uint64(n-k)<<12
	}
	churn.SelfSize[n-1] = 23 << 10
	big.SelfSize[n-1] += 2 << 10
	flat := analysis.ClassChange{Name: "Flat", Count: make([]uint64, n), SelfSize: make([]uint64, n)}
	for k := range n {
		flat.Count[k], flat.SelfSize[k] = 1, 1<<20
	}
	all := []analysis.ClassChange{big, leak, churn, shrink, flat}
	return all
}

// lineYs returns the y of each point of the class's line in the chart.
func lineYs(t *testing.T, svg, class string) []float64 {
	t.Helper()
	m := regexp.MustCompile(`data-class="` + regexp.QuoteMeta(class) + `"[^>]*>.*?<polyline [^>]*points="([^"]*)"`).FindStringSubmatch(svg)
	if m == nil {
		return nil
	}
	var ys []float64
	for _, p := range strings.Fields(m[1]) {
		y, err := strconv.ParseFloat(p[strings.IndexByte(p, ',')+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y)
	}
	return ys
}

// TestChartRelative checks that the chart draws the change since the
// first snapshot: the small leak rises across the chart and the large
// class that grew a little at the end lies flat until then; the classes
// that did not grow are not drawn; the class that grew at every step is
// marked, and the units are written.
func TestChartRelative(t *testing.T) {
	const n = 12
	all := series(n)
	lines := chartClasses(all, 10)
	var names []string
	for _, l := range lines {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "Leak Churn Big" || !lines[0].Steady || lines[1].Steady {
		t.Errorf("charted %v (steady %v %v)", names, lines[0].Steady, len(lines) > 1 && lines[1].Steady)
	}
	var snaps []string
	for k := range n {
		snaps = append(snaps, fmt.Sprintf("snap-%02d.heapsnapshot", k))
	}
	svg := string(chartSVG(all, 10, snaps, 1160, 360))
	ys := lineYs(t, svg, "Leak")
	if len(ys) != n {
		t.Fatalf("the Leak line has %d points:\n%s", len(ys), svg)
	}
	if rise := ys[0] - ys[n-1]; rise < 200 {
		t.Errorf("the Leak line rises %.1f of 306 pixels: %v", rise, ys)
	}
	for k := 1; k < n; k++ {
		if ys[k] >= ys[k-1] {
			t.Errorf("the Leak line does not rise from point %d to %d: %v", k-1, k, ys)
		}
	}
	if big := lineYs(t, svg, "Big"); len(big) != n || big[0] != big[n-2] || big[n-1] >= big[0] {
		t.Errorf("the Big line: %v", big)
	}
	if lineYs(t, svg, "Flat") != nil || lineYs(t, svg, "Shrink") != nil {
		t.Error("a class that did not grow is charted")
	}
	for _, want := range []string{"+10.0 KiB", "0</text>", "↗ Leak", `data-steady="true"`, "+11.0 KiB</text>", "snap-00.heapsnapshot"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	// Nothing grew: the largest classes, flat.
	flat := []analysis.ClassChange{{Name: "A", Count: []uint64{1, 1}, SelfSize: []uint64{5, 5}}, {Name: "B", Count: []uint64{1, 1}, SelfSize: []uint64{9, 9}}}
	if got := chartClasses(flat, 10); len(got) != 2 || got[0].Name != "B" {
		t.Errorf("no growth: charted %v", got)
	}
}

// TestChartColors checks that the first ten lines differ in colour and
// the next ones in dashes.
func TestChartColors(t *testing.T) {
	var all []analysis.ClassChange
	for i := range 14 {
		all = append(all, analysis.ClassChange{Name: fmt.Sprintf("K%02d", i), Count: []uint64{1, 2}, SelfSize: []uint64{1, uint64(100 - i)}})
	}
	svg := string(chartSVG(all, 14, nil, 1160, 360))
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`<polyline fill="none" stroke="([^"]*)" stroke-width="2"( stroke-dasharray="[^"]*")?`).FindAllStringSubmatch(svg, -1) {
		if seen[m[1]+m[2]] {
			t.Errorf("two lines are drawn %s%s", m[1], m[2])
		}
		seen[m[1]+m[2]] = true
	}
	if len(seen) != 14 || len(palette) < 10 {
		t.Errorf("%d lines told apart, a palette of %d", len(seen), len(palette))
	}
}

// TestXLabels checks the thinning of the snapshot labels: those written
// do not overlap by the width estimate, the first and last are written,
// they are evenly spaced but for the last, and when they fit, all are.
func TestXLabels(t *testing.T) {
	for _, n := range []int{1, 2, 3, 11, 12, 30, 100, 1000} {
		for _, name := range []string{"#%d", "snap-%02d.heapsnapshot", "…long/directory/of/%d.heapsnapshot"} {
			var labels []string
			for k := range n {
				labels = append(labels, cutFront(fmt.Sprintf(name, k), 28))
			}
			spacing := 0.0
			if n > 1 {
				spacing = 758 / float64(n-1)
			}
			got := xLabels(labels, spacing)
			if len(got) == 0 || got[0] != 0 || got[len(got)-1] != n-1 {
				t.Fatalf("%d × %q: labels %v", n, name, got)
			}
			for i := 1; i < len(got); i++ {
				a, b := got[i-1], got[i]
				_, end := labelSpan(a, n, float64(a)*spacing, labels[a])
				start, _ := labelSpan(b, n, float64(b)*spacing, labels[b])
				if start < end+10 && len(got) > 2 {
					t.Errorf("%d × %q: labels %d and %d overlap (%v)", n, name, a, b, got)
				}
				if i < len(got)-1 && b-a != got[1]-got[0] {
					t.Errorf("%d × %q: uneven labels %v", n, name, got)
				}
			}
			if n <= 3 && name == "#%d" && len(got) != n {
				t.Errorf("%d × %q: %d labels", n, name, len(got))
			}
		}
	}
}

// TestShortLabels checks what the snapshot axis writes of the names.
func TestShortLabels(t *testing.T) {
	for _, c := range []struct{ names, want, pattern string }{
		{"snap-00.heapsnapshot snap-01.heapsnapshot snap-11.heapsnapshot", "00 01 11", "snap-….heapsnapshot"},
		{"snap-10.heapsnapshot snap-11.heapsnapshot snap-12.heapsnapshot", "10 11 12", "snap-….heapsnapshot"},
		{"s9.heapsnapshot s10.heapsnapshot", "s9 s10", "….heapsnapshot"},
		{"a/nqp.mvmheap#0 a/nqp.mvmheap#1 a/nqp.mvmheap#2", "0 1 2", "a/nqp.mvmheap#…"},
		{"before.heapsnapshot after.heapsnapshot", "before after", "….heapsnapshot"},
		{"x.heapsnapshot x.heapsnapshot", "x.heapsnapshot x.heapsnapshot", ""},
		{"one two", "one two", ""},
		{"alone", "alone", ""},
	} {
		got, pattern := shortLabels(strings.Fields(c.names))
		if strings.Join(got, " ") != c.want || pattern != c.pattern {
			t.Errorf("shortLabels(%s) = %q, %q; want %s, %q", c.names, got, pattern, c.want, c.pattern)
		}
	}
	// Twelve snapshots' labels all fit.
	var snaps []string
	for k := range 12 {
		snaps = append(snaps, fmt.Sprintf("snap-%02d.heapsnapshot", k))
	}
	svg := string(chartSVG(series(12), 10, snaps, 1160, 360))
	if got := strings.Count(svg, `class="xlabel"`); got != 12 || !strings.Contains(svg, "snap-….heapsnapshot") {
		t.Errorf("%d of 12 snapshot labels", got)
	}
}

// TestAxis checks the value axis: it covers the range, starts and ends
// at ticks, and writes units.
func TestAxis(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 11 << 10, "0 +2 KiB +4 KiB +6 KiB +8 KiB +10 KiB +12 KiB"},
		{-300, 1500, "−0.5 KiB 0 +0.5 KiB +1.0 KiB +1.5 KiB"},
		{-300, 900, "−400 B −200 B 0 +200 B +400 B +600 B +800 B +1000 B"},
		{0, 0, "0 +1 B"},
		{0, 3.5 * (1 << 30), "0 +1 GiB +2 GiB +3 GiB +4 GiB"},
	} {
		ticks, labels := axis(c.lo, c.hi)
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("axis(%v, %v) = %s, want %s", c.lo, c.hi, got, c.want)
		}
		if ticks[0] > c.lo || ticks[len(ticks)-1] < c.hi {
			t.Errorf("axis(%v, %v) = %v", c.lo, c.hi, ticks)
		}
	}
}
