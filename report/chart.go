package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heapconv/heapconv/internal/bytesize"
	"github.com/heapconv/heapconv/ir/analysis"
)

// palette holds the growth chart's line colours: ten hues far enough
// apart, in lightness too, to tell ten lines apart. Past ten, colours
// repeat with a dashed line (dashes).
var palette = [...]string{
	"hsl(214,72%,42%)", // blue
	"hsl(22,90%,52%)",  // orange
	"hsl(136,58%,34%)", // green
	"hsl(352,74%,48%)", // crimson
	"hsl(272,48%,52%)", // violet
	"hsl(46,92%,42%)",  // ochre
	"hsl(184,80%,33%)", // teal
	"hsl(318,62%,62%)", // pink
	"hsl(24,46%,34%)",  // brown
	"hsl(0,0%,42%)",    // grey
}

// dashes are the dash patterns of the lines past the palette's colours.
var dashes = [...]string{"", "7 4", "2 3", "10 3 2 3"}

// chartLine is one class the growth chart draws.
type chartLine struct {
	analysis.ClassChange
	// Steady is set when the class grew from each snapshot to the next.
	Steady bool
}

// grewEachStep reports whether c's count or self size grew from each
// snapshot to the next.
func grewEachStep(c analysis.ClassChange) bool {
	if c.GrewInEach() {
		return true
	}
	for k := 1; k < len(c.SelfSize); k++ {
		if c.SelfSize[k] <= c.SelfSize[k-1] {
			return false
		}
	}
	return len(c.SelfSize) > 1
}

// delta is the change of v[k] from v[0], in bytes.
func delta(v []uint64, k int) float64 { return float64(v[k]) - float64(v[0]) }

// chartClasses picks at most n classes of all for the chart: the classes that grew
// at every step, the most grown of them first, fill up to half the lines;
// the classes that grew most from the first snapshot to the last fill the
// rest. Classes that did not grow are drawn only when none did (then the
// largest ones, flat). The lines come largest growth first.
func chartClasses(all []analysis.ClassChange, n int) []chartLine {
	all = slices.Clone(all)
	slices.SortStableFunc(all, func(a, b analysis.ClassChange) int {
		return cmp.Compare(b.Growth(analysis.BySelf), a.Growth(analysis.BySelf))
	})
	var out []chartLine
	taken := make([]bool, len(all))
	for i, c := range all {
		if len(out) >= (n+1)/2 {
			break
		}
		if c.Growth(analysis.BySelf) > 0 && grewEachStep(c) {
			out = append(out, chartLine{c, true})
			taken[i] = true
		}
	}
	for i, c := range all {
		if len(out) >= n || c.Growth(analysis.BySelf) <= 0 {
			break
		}
		if !taken[i] {
			out = append(out, chartLine{c, grewEachStep(c)})
		}
	}
	if len(out) == 0 {
		// Nothing grew: the largest classes at the end, as flat lines.
		last := func(c analysis.ClassChange) uint64 { return c.SelfSize[len(c.SelfSize)-1] }
		slices.SortStableFunc(all, func(a, b analysis.ClassChange) int { return cmp.Compare(last(b), last(a)) })
		for _, c := range all[:min(n, len(all))] {
			out = append(out, chartLine{c, false})
		}
	}
	slices.SortStableFunc(out, func(a, b chartLine) int {
		return cmp.Compare(b.Growth(analysis.BySelf), a.Growth(analysis.BySelf))
	})
	return out
}

// byteUnit is a unit of the chart's value axis.
type byteUnit struct {
	size float64
	name string
}

var byteUnits = []byteUnit{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}, {1, "B"}}

// axis returns the ticks of a value axis covering [lo, hi] (bytes, lo ≤ 0
// ≤ hi): some six steps of a round size (1, 2 or 5 times a power of
// ten) in the unit that suits the larger end, from a multiple of the step
// at or below lo to one at or above hi; and the tick's labels, signed
// ("+1.5 MiB", "0", "−200 KiB").
func axis(lo, hi float64) (ticks []float64, labels []string) {
	if hi <= lo {
		hi = lo + 1
	}
	big := max(math.Abs(lo), math.Abs(hi))
	u := byteUnits[len(byteUnits)-1]
	for _, bu := range byteUnits {
		if big >= bu.size {
			u = bu
			break
		}
	}
	raw := (hi - lo) / u.size / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if u.size == 1 {
		step = max(step, 1)
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	first, last := math.Floor(lo/u.size/step+1e-9), math.Ceil(hi/u.size/step-1e-9)
	for k := first; k <= last; k++ {
		v := k * step
		ticks = append(ticks, v*u.size)
		switch {
		case k == 0:
			labels = append(labels, "0")
		case v > 0:
			labels = append(labels, "+"+strconv.FormatFloat(v, 'f', decimals, 64)+" "+u.name)
		default:
			labels = append(labels, "−"+strconv.FormatFloat(-v, 'f', decimals, 64)+" "+u.name)
		}
	}
	return ticks, labels
}

// signedSize spells a change in bytes: "+1.5 MiB", "−200 B", "±0 B".
func signedSize(d float64) string {
	switch {
	case d > 0:
		return "+" + bytesize.String(uint64(d))
	case d < 0:
		return "−" + bytesize.String(uint64(-d))
	}
	return "±0 B"
}

// labelWidth estimates the width of text at the chart's 11px font, on
// the wide side (the page hides any label that overlaps the one before
// it all the same).
func labelWidth(s string) float64 { return 6.4 * float64(utf8.RuneCountInString(s)) }

// labelSpan returns where the label of snapshot k of n, written at x,
// spans along the axis: the first label starts at its point, the last
// ends at it, the others are centred on it.
func labelSpan(k, n int, x float64, label string) (float64, float64) {
	w := labelWidth(label)
	switch {
	case n > 1 && k == 0:
		return x, x + w
	case n > 1 && k == n-1:
		return x - w, x
	}
	return x - w/2, x + w/2
}

// xLabels returns which of the snapshots' labels the chart writes under
// its points, spacing apart: every k-th, for the least k with which no
// label comes within 10 pixels of the next, and the last always (in place
// of the one before it when those two would collide).
func xLabels(labels []string, spacing float64) []int {
	n := len(labels)
	if n <= 1 {
		return []int{0}[:n]
	}
	fits := func(ks []int) bool {
		for i := 1; i < len(ks); i++ {
			_, end := labelSpan(ks[i-1], n, float64(ks[i-1])*spacing, labels[ks[i-1]])
			start, _ := labelSpan(ks[i], n, float64(ks[i])*spacing, labels[ks[i]])
			if start < end+10 {
				return false
			}
		}
		return true
	}
	for every := 1; ; every++ {
		var ks []int
		for k := 0; k < n; k += every {
			ks = append(ks, k)
		}
		if ks[len(ks)-1] != n-1 {
			ks = append(ks, n-1)
			if !fits(ks[len(ks)-2:]) {
				ks = append(ks[:len(ks)-2], n-1)
			}
		}
		if fits(ks) || len(ks) <= 2 {
			return ks
		}
	}
}

// separator reports whether r may end a common prefix or begin a common
// suffix of the snapshots' names: not a letter or digit, so that no
// number or word is cut in two ("snap-10", "snap-11" share "snap-", not
// "snap-1").
func separator(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// shortLabels returns the part of each name that differs from the others:
// without the prefix and suffix all share, cut at separators
// ("snap-00.heapsnapshot", "snap-01.heapsnapshot": "00", "01"), and the
// names' pattern, the shared parts around "…" ("snap-….heapsnapshot"); or
// the names themselves and "" when they share nothing, are all the same
// or are fewer than two.
func shortLabels(names []string) ([]string, string) {
	if len(names) < 2 || !slices.ContainsFunc(names, func(n string) bool { return n != names[0] }) {
		return names, ""
	}
	rs := make([][]rune, len(names))
	for i, n := range names {
		rs[i] = []rune(n)
	}
	shortest := len(rs[0])
	for _, r := range rs {
		shortest = min(shortest, len(r))
	}
	pre := 0
	for pre < shortest && allSame(rs, func(r []rune) rune { return r[pre] }) {
		pre++
	}
	for pre > 0 && !separator(rs[0][pre-1]) {
		pre--
	}
	suf := 0
	for suf < shortest-pre && allSame(rs, func(r []rune) rune { return r[len(r)-1-suf] }) {
		suf++
	}
	for suf > 0 && !separator(rs[0][len(rs[0])-suf]) {
		suf--
	}
	if pre == 0 && suf == 0 {
		return names, ""
	}
	out := make([]string, len(names))
	for i, r := range rs {
		out[i] = string(r[pre : len(r)-suf])
		if out[i] == "" {
			return names, ""
		}
	}
	return out, string(rs[0][:pre]) + "…" + string(rs[0][len(rs[0])-suf:])
}

// allSame reports whether at gives the same rune for every name.
func allSame(rs [][]rune, at func([]rune) rune) bool {
	for _, r := range rs[1:] {
		if at(r) != at(rs[0]) {
			return false
		}
	}
	return true
}

// chartSVG draws, for the classes chartClasses picks, the change of their
// self size from the first snapshot (a class the first lacks counts 0
// there) as lines, one point per snapshot, with a legend and labelled
// axes. Drawn as a change, a small class that grows stands out beside
// large ones that do not.
func chartSVG(classes []analysis.ClassChange, n int, names []string, width, height float64) template.HTML {
	lines := chartClasses(classes, n)
	if len(lines) == 0 {
		return ""
	}
	points := len(lines[0].SelfSize)
	height = max(height, 14+40+18*float64(len(lines))+8) // room for the legend
	lo, hi := 0.0, 0.0
	for _, l := range lines {
		for k := range l.SelfSize {
			lo, hi = min(lo, delta(l.SelfSize, k)), max(hi, delta(l.SelfSize, k))
		}
	}
	ticks, tickLabels := axis(lo, hi)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	const left, right, upper, lower = 92.0, 310.0, 14.0, 40.0
	plotW, plotH := width-left-right, height-upper-lower
	xOf := func(k int) float64 {
		if points == 1 {
			return left
		}
		return left + plotW*float64(k)/float64(points-1)
	}
	yOf := func(v float64) float64 { return upper + plotH*(hi-v)/(hi-lo) }
	snapName := func(k int) string {
		if k < len(names) && names[k] != "" {
			return text(names[k])
		}
		return fmt.Sprintf("#%d", k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="growth" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="change of self size per class since the first snapshot">`, width, height, width, height)
	// Grid and value axis.
	for i, v := range ticks {
		y := yOf(v)
		stroke := "#eee"
		if v == 0 {
			stroke = "#999"
		}
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="%s"/>`, left, y, left+plotW, y, stroke)
		fmt.Fprintf(&b, `<text class="ytick" x="%.0f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, left-6, y+4, tickLabels[i])
	}
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#888"/>`, left, upper, left, upper+plotH)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" font-size="11" text-anchor="middle" transform="rotate(-90 14 %.1f)">self size change since the first snapshot</text>`, upper+plotH/2, upper+plotH/2)
	// Snapshot axis: what differs between the names, thinned so that no
	// label overlaps the next.
	var full []string
	for k := 0; k < points; k++ {
		full = append(full, snapName(k))
	}
	labels, pattern := shortLabels(full)
	for k, l := range labels {
		labels[k] = cutFront(l, 28)
	}
	spacing := 0.0
	if points > 1 {
		spacing = plotW / float64(points-1)
	}
	for _, k := range xLabels(labels, spacing) {
		anchor := "middle" // as labelSpan has it
		switch {
		case points > 1 && k == 0:
			anchor = "start"
		case points > 1 && k == points-1:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`, xOf(k), upper+plotH, xOf(k), upper+plotH+4)
		fmt.Fprintf(&b, `<text class="xlabel" x="%.1f" y="%.0f" font-size="11" text-anchor="%s"><title>%s</title>%s</text>`,
			xOf(k), upper+plotH+17, anchor, template.HTMLEscapeString(snapName(k)), template.HTMLEscapeString(labels[k]))
	}
	if pattern != "" {
		pattern = ": " + cutFront(pattern, 60)
	}
	fmt.Fprintf(&b, `<text class="xtitle" x="%.1f" y="%.0f" font-size="11" text-anchor="middle" fill="#555">snapshot (%d, in the order taken)%s</text>`, left+plotW/2, height-4, points, template.HTMLEscapeString(pattern))
	// The lines, and the legend beside them.
	for i, l := range lines {
		col := palette[i%len(palette)]
		dash := dashes[(i/len(palette))%len(dashes)]
		dashAttr := ""
		if dash != "" {
			dashAttr = fmt.Sprintf(` stroke-dasharray="%s"`, dash)
		}
		name := text(l.Label())
		growth := delta(l.SelfSize, points-1)
		steady := ""
		if l.Steady {
			steady = ", grew at every step"
		}
		var pts []string
		for k := range l.SelfSize {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(k), yOf(delta(l.SelfSize, k))))
		}
		fmt.Fprintf(&b, `<g class="series" data-class="%s" data-steady="%t"><title>%s: %s (%s%s)</title><polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`,
			template.HTMLEscapeString(name), l.Steady, template.HTMLEscapeString(name), template.HTMLEscapeString(sizesText(l.SelfSize)),
			signedSize(growth), steady, col, dashAttr, strings.Join(pts, " "))
		for k, v := range l.SelfSize {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s, %s: %s (%s)</title></circle>`,
				xOf(k), yOf(delta(l.SelfSize, k)), col, template.HTMLEscapeString(name), template.HTMLEscapeString(snapName(k)), bytesize.String(v), signedSize(delta(l.SelfSize, k)))
		}
		b.WriteString(`</g>`)
		lx, ly := left+plotW+18, upper+8+18*float64(i)
		mark := ""
		if l.Steady {
			mark = "↗ "
		}
		fmt.Fprintf(&b, `<g class="legend"><title>%s: %s%s</title><line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"%s/><text x="%.0f" y="%.0f" font-size="11">%s%s</text><text x="%.0f" y="%.0f" font-size="11" text-anchor="end">%s</text></g>`,
			template.HTMLEscapeString(name), signedSize(growth), steady,
			lx, ly, lx+16, ly, col, dashAttr, lx+22, ly+4, mark, template.HTMLEscapeString(cut(name, 28)), width-2, ly+4, signedSize(growth))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// sizesText lists sizes for a tooltip: "1.0 KiB → 2.0 KiB → 3.0 KiB".
func sizesText(v []uint64) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, bytesize.String(x))
	}
	return strings.Join(parts, " → ")
}
