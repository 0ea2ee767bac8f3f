//go:build ignore

// Plot-scale draws the CSV of scripts/bench-scale.sh as an SVG: wall time
// and peak RSS of each command against the snapshot's size, both axes
// logarithmic, with a dashed line of slope 1 (linear growth) through each
// command's first point for comparison, and in black the memory target of
// a conversion, 0.8 times the file.
//
//	go run scripts/plot-scale.go /tmp/heapconv-scale/scale.csv > docs/scale.svg
package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

type point struct{ size, secs, rss float64 }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/plot-scale.go SCALE.csv > scale.svg")
		os.Exit(2)
	}
	series, order, err := readCSV(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot-scale:", err)
		os.Exit(1)
	}
	var b strings.Builder
	const w, h = 960, 420
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	panel(&b, series, order, 60, "wall time (s)", func(p point) float64 { return p.secs }, nil)
	// The memory target of a conversion: 0.8 times the file (sizes in MB
	// of 10^6 bytes, RSS in MiB).
	eightTenths := func(mb float64) float64 { return 0.8 * mb * 1e6 / (1 << 20) }
	panel(&b, series, order, 540, "peak RSS (MiB)", func(p point) float64 { return p.rss }, eightTenths)
	b.WriteString("</svg>\n")
	if _, err := io.WriteString(os.Stdout, b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "plot-scale:", err)
		os.Exit(1)
	}
}

// readCSV returns each command's points by size, and the commands in the
// order they first appear.
func readCSV(name string) (map[string][]point, []string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(rows) < 2 || len(rows[0]) < 6 || rows[0][0] != "size_mb" {
		return nil, nil, fmt.Errorf("%s: not a bench-scale.sh CSV", name)
	}
	series := map[string][]point{}
	var order []string
	for _, r := range rows[1:] {
		var p point
		var errs [3]error
		p.size, errs[0] = strconv.ParseFloat(r[0], 64)
		p.secs, errs[1] = strconv.ParseFloat(r[4], 64)
		p.rss, errs[2] = strconv.ParseFloat(r[5], 64)
		for _, err := range errs {
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		if _, ok := series[r[3]]; !ok {
			order = append(order, r[3])
		}
		series[r[3]] = append(series[r[3]], p)
	}
	for _, s := range series {
		sort.Slice(s, func(i, j int) bool { return s[i].size < s[j].size })
	}
	return series, order, nil
}

var colors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}

// panel draws one log-log chart 380 wide at x0, with ref (when not nil)
// as a black line.
func panel(b *strings.Builder, series map[string][]point, order []string, x0 float64, label string, y func(point) float64, ref func(size float64) float64) {
	const top, pw, ph = 30.0, 380.0, 320.0
	lo, hi := math.Inf(1), math.Inf(-1)
	slo, shi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, p := range s {
			lo, hi = math.Min(lo, y(p)), math.Max(hi, y(p))
			slo, shi = math.Min(slo, p.size), math.Max(shi, p.size)
		}
	}
	// Whole decades around the data.
	ylo, yhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	xlo, xhi := math.Floor(math.Log10(slo)), math.Ceil(math.Log10(shi))
	if yhi == ylo {
		yhi++
	}
	if xhi == xlo {
		xhi++
	}
	px := func(size float64) float64 { return x0 + (math.Log10(size)-xlo)/(xhi-xlo)*pw }
	py := func(v float64) float64 { return top + ph - (math.Log10(v)-ylo)/(yhi-ylo)*ph }
	fmt.Fprintf(b, `<text x="%.0f" y="18" font-weight="bold">%s against snapshot size (MB), log-log</text>`+"\n", x0, label)
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", x0, top, pw, ph)
	for d := ylo; d <= yhi; d++ {
		v := math.Pow(10, d)
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, x0, x0+pw, py(v), py(v))
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, py(v)+4, num(v))
	}
	for d := xlo; d <= xhi; d++ {
		v := math.Pow(10, d)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#ddd"/>`, px(v), px(v), top, top+ph)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", px(v), top+ph+16, num(v))
	}
	if ref != nil {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="1.5"/>`+"\n",
			px(slo), py(ref(slo)), px(shi), py(ref(shi)))
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f">black: 0.8 × the file</text>`+"\n", x0+pw-150, top+ph-8)
	}
	for i, name := range order {
		s, c := series[name], colors[i%len(colors)]
		var pts []string
		for _, p := range s {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.size), py(y(p))))
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, px(p.size), py(y(p)), c)
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), c)
		// Linear growth from the first point, for comparison.
		f, l := s[0], s[len(s)-1]
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="3,4" opacity="0.5"/>`+"\n",
			px(f.size), py(y(f)), px(l.size), py(y(f)*l.size/f.size), c)
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f" fill="%s">%s</text>`+"\n", x0+8, top+16+float64(i)*15, c, name)
	}
}

func num(v float64) string {
	if v >= 1 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
