// Package report writes a heap as one self-contained HTML page: its class
// table (sortable), a treemap of retained size over the dominator tree
// grouped by class, the shortest retainer paths of the classes that retain
// the most, and, for several snapshots of one program, the growth of each
// class over them as a chart. The page loads nothing: its style, script and
// pictures (SVG) are inside it.
package report

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv/internal/bytesize"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// Options adjust Write. The zero value is what heapconv report writes.
type Options struct {
	// Title heads the page ("heap report" when empty).
	Title string
	// Names name the heaps (file names), in the order given to Write.
	Names []string
	// Classes is how many classes the table lists, largest retained size
	// first (default 500).
	Classes int
	// Paths is how many classes get a retainer path (default 5).
	Paths int
	// Charted is how many classes the growth chart draws (default 8).
	Charted int
}

// Write writes the report of heaps to w. The last heap is the one the
// table, treemap and paths show; with several (snapshots of one program in
// the order they were taken), the page also charts each class's growth
// over them.
func Write(w io.Writer, heaps []analysis.Heap, opts *Options) error {
	if len(heaps) == 0 {
		return fmt.Errorf("report: no heap")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Title == "" {
		o.Title = "heap report"
	}
	if o.Classes <= 0 {
		o.Classes = 500
	}
	if o.Paths <= 0 {
		o.Paths = 5
	}
	if o.Charted <= 0 {
		o.Charted = 8
	}
	h := heaps[len(heaps)-1]
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		return err
	}
	// The summary's figures; the classes from the table the navigator built.
	s := h.Snapshot
	sum := analysis.SnapshotSummary{Nodes: uint64(s.Nodes.Len()), Edges: uint64(s.Edges.Len()),
		SelfSize: s.Nodes.SelfSize.Sum(), ExternalSize: ir.ExternalSize(s)}
	classes, err := nv.ClassStats()
	if err != nil {
		return err
	}
	slices.SortFunc(classes, func(a, b analysis.ClassStat) int {
		if c := cmp.Compare(*b.Retained, *a.Retained); c != 0 {
			return c
		}
		return strings.Compare(a.Label(), b.Label())
	})
	sum.TopClasses = classes
	sum.Classes = uint64(len(classes))
	p := page{Title: o.Title, Format: h.File.Format, Variant: h.File.FormatVersion, Summary: sum, Classes: len(sum.TopClasses)}
	if len(o.Names) == len(heaps) {
		p.Name = text(o.Names[len(heaps)-1])
	}
	p.Title = text(p.Title)
	for _, c := range sum.TopClasses[:min(len(sum.TopClasses), o.Classes)] {
		p.Rows = append(p.Rows, row{Name: label(c), Count: c.Count, Self: c.SelfSize, Retained: *c.Retained})
	}
	p.Treemap = treemapSVG(nv, 1160, 560)
	for _, c := range sum.TopClasses[:min(len(sum.TopClasses), o.Paths)] {
		nodes := nv.ClassNodes(c.Label(), 1)
		if len(nodes) == 0 {
			continue
		}
		p.Paths = append(p.Paths, retainerPath{Class: label(c), Steps: nv.ShortestPath(nodes[0])})
	}
	if len(heaps) > 1 {
		p.Snapshots = len(heaps)
		p.Chart = chartSVG(growth(heaps, classes), o.Charted, o.Names, 1160, 360)
	}
	return pageTemplate.Execute(w, p)
}

// growth is each class's count and self size in each heap, the most grown
// first (analysis.ClassChanges); last are the last heap's classes,
// computed already.
func growth(heaps []analysis.Heap, last []analysis.ClassStat) []analysis.ClassChange {
	perHeap := make([][]analysis.ClassStat, len(heaps))
	for k, h := range heaps[:len(heaps)-1] {
		perHeap[k] = analysis.ClassStats(h.File, h.Snapshot)
	}
	perHeap[len(heaps)-1] = last
	return analysis.ClassChanges(perHeap, analysis.BySelf, false)
}

// label names a class as heapconv info does, with its location, in valid
// UTF-8 (a V8 name may hold a lone surrogate).
func label(c analysis.ClassStat) string { return text(c.Label()) }

// text returns s with U+FFFD for bytes that are not UTF-8.
func text(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// cut shortens s to at most n characters, the last an ellipsis, keeping
// whole characters.
func cut(s string, n int) string {
	s = text(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 1)]) + "…"
}

// cutFront is cut from the front: "…" and the last characters.
func cutFront(s string, n int) string {
	s = text(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-max(n-1, 1):])
}

// objects says how many objects: "1 object", "3 objects".
func objects(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}

type page struct {
	Title, Name, Format, Variant string
	Summary                      analysis.SnapshotSummary
	Classes                      int
	Snapshots                    int
	Rows                         []row
	Treemap                      template.HTML
	Paths                        []retainerPath
	Chart                        template.HTML
}

type row struct {
	Name                  string
	Count, Self, Retained uint64
}

type retainerPath struct {
	Class string
	Steps []analysis.PathStep
}

// color gives a class a stable color of its own.
func color(name string, light int) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("hsl(%d,55%%,%d%%)", h.Sum32()%360, light)
}

// box is a treemap cell: a class's objects at one level of the dominator
// tree, and below them, grouped again by class, what they dominate.
type box struct {
	class    string
	size     uint64
	count    int
	nodes    []int
	children []*box
	x, y     float64
	w, h     float64
}

// treemapSVG draws the dominator tree from the root, grouped by class at
// each level, three levels deep, as nested rectangles whose areas are
// retained sizes.
func treemapSVG(nv *analysis.Navigator, width, height float64) template.HTML {
	t := nv.Tree()
	if t == nil {
		return template.HTML(`<p class="note">The heap has no root: nothing is retained, and there is no dominator tree to draw.</p>`)
	}
	// Each node's children in the dominator tree.
	n := len(t.IDom)
	first := make([]int32, n+1)
	for v, d := range t.IDom {
		if d != ir.NoNode && int(d) != v {
			first[d+1]++
		}
	}
	for i := 1; i <= n; i++ {
		first[i] += first[i-1]
	}
	kids := make([]int32, first[n])
	next := slices.Clone(first[:n])
	for v, d := range t.IDom {
		if d != ir.NoNode && int(d) != v {
			kids[next[d]] = int32(v)
			next[d]++
		}
	}
	total := t.Retained[t.Root]
	if total == 0 {
		return template.HTML(`<p class="note">The heap retains nothing.</p>`)
	}
	var group func(parents []int, depth int) []*box
	group = func(parents []int, depth int) []*box {
		byClass := map[string]*box{}
		var boxes []*box
		for _, p := range parents {
			for _, c := range kids[first[p]:first[p+1]] {
				name := "(root)"
				if int(c) < nv.Nodes() {
					name = text(nv.Class(int(c)))
				}
				b := byClass[name]
				if b == nil {
					b = &box{class: name}
					byClass[name] = b
					boxes = append(boxes, b)
				}
				b.size += t.Retained[c]
				b.count++
				b.nodes = append(b.nodes, int(c))
			}
		}
		slices.SortFunc(boxes, func(a, b *box) int { return cmp.Compare(b.size, a.size) })
		// Small cells are folded into one: they would not be seen.
		var out []*box
		var rest *box
		for _, b := range boxes {
			if float64(b.size) < float64(total)/400 || len(out) >= 60 {
				if rest == nil {
					rest = &box{class: "(smaller classes)"}
				}
				rest.size += b.size
				rest.count += b.count
				continue
			}
			if depth < 3 && float64(b.size) > float64(total)/50 {
				b.children = group(b.nodes, depth+1)
			}
			b.nodes = nil
			out = append(out, b)
		}
		if rest != nil && rest.size > 0 {
			out = append(out, rest)
		}
		return out
	}
	top := group([]int{int(t.Root)}, 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="treemap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="treemap of retained size">`, width, height, width, height)
	var draw func(boxes []*box, x, y, w, h float64, depth int)
	draw = func(boxes []*box, x, y, w, h float64, depth int) {
		var sizes []float64
		var sum float64
		for _, bx := range boxes {
			sizes = append(sizes, float64(bx.size))
			sum += float64(bx.size)
		}
		if sum == 0 || w < 2 || h < 2 {
			return
		}
		// The boxes' own sizes fill what their parent retains beyond
		// itself: scale to the area.
		rects := squarify(sizes, x, y, w, h)
		for i, bx := range boxes {
			r := rects[i]
			fmt.Fprintf(&b, `<g class="cell"><title>%s: %s retained by %s</title>`, template.HTMLEscapeString(bx.class), bytesize.String(bx.size), objects(bx.count))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#fff" stroke-width="%d"/>`,
				r[0], r[1], max(r[2], 0), max(r[3], 0), color(bx.class, 80-10*depth), 4-depth)
			if r[2] > 60 && r[3] > 16 {
				name := cut(bx.class, int(r[2]/7))
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11">%s</text>`, r[0]+3, r[1]+12, template.HTMLEscapeString(name))
			}
			b.WriteString(`</g>`)
			if len(bx.children) > 0 && r[2] > 30 && r[3] > 40 {
				draw(bx.children, r[0]+3, r[1]+16, r[2]-6, r[3]-19, depth+1)
			}
		}
	}
	draw(top, 0, 0, width, height, 1)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// squarify lays out sizes (largest first) in the rectangle (x, y, w, h)
// as rectangles of proportional area whose sides are as even as can be
// (Bruls, Huizing and van Wijk's squarified treemap), and returns each as
// [x, y, w, h].
func squarify(sizes []float64, x, y, w, h float64) [][4]float64 {
	out := make([][4]float64, len(sizes))
	var total float64
	for _, s := range sizes {
		total += s
	}
	scale := w * h / total
	i := 0
	for i < len(sizes) {
		short := min(w, h)
		// Grow the row while its worst aspect ratio improves.
		rowSum, j := 0.0, i
		worst := func(sum float64, lo, hi int) float64 {
			side := sum * scale / short
			r := 0.0
			for k := lo; k < hi; k++ {
				other := sizes[k] * scale / side
				a := max(side/other, other/side)
				r = max(r, a)
			}
			return r
		}
		for j < len(sizes) {
			next := rowSum + sizes[j]
			if j > i && worst(next, i, j+1) > worst(rowSum, i, j) {
				break
			}
			rowSum = next
			j++
		}
		side := rowSum * scale / short // the row's thickness
		pos := 0.0
		for k := i; k < j; k++ {
			length := sizes[k] * scale / side
			if w >= h {
				out[k] = [4]float64{x, y + pos, side, length}
			} else {
				out[k] = [4]float64{x + pos, y, length, side}
			}
			pos += length
		}
		if w >= h {
			x, w = x+side, w-side
		} else {
			y, h = y+side, h-side
		}
		i = j
	}
	return out
}

// chartSVG draws the self size of the classes that grew most over the
// heaps as lines, one point per heap.
func chartSVG(classes []analysis.ClassChange, n int, names []string, width, height float64) template.HTML {
	classes = classes[:min(n, len(classes))]
	if len(classes) == 0 {
		return ""
	}
	points := len(classes[0].SelfSize)
	var top uint64 = 1
	for _, c := range classes {
		for _, v := range c.SelfSize {
			top = max(top, v)
		}
	}
	const left, right, upper, lower = 70.0, 260.0, 10.0, 30.0
	plotW, plotH := width-left-right, height-upper-lower
	xOf := func(k int) float64 {
		if points == 1 {
			return left
		}
		return left + plotW*float64(k)/float64(points-1)
	}
	yOf := func(v uint64) float64 { return upper + plotH*(1-float64(v)/float64(top)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="growth" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="growth per class">`, width, height, width, height)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#888"/>`, left, upper+plotH, left+plotW, upper+plotH)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#888"/>`, left, upper, left, upper+plotH)
	for _, f := range []float64{0, 0.5, 1} {
		v := uint64(float64(top) * f)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, left-6, yOf(v)+4, bytesize.String(v))
	}
	for k := 0; k < points; k++ {
		label := fmt.Sprintf("#%d", k)
		if k < len(names) && names[k] != "" {
			label = cutFront(names[k], 24)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="11" text-anchor="middle">%s</text>`, xOf(k), height-10, template.HTMLEscapeString(label))
	}
	for i, c := range classes {
		col := color(c.Label(), 40)
		var pts []string
		for k, v := range c.SelfSize {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(k), yOf(v)))
		}
		fmt.Fprintf(&b, `<g class="series"><title>%s: %s</title><polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`,
			template.HTMLEscapeString(text(c.Label())), template.HTMLEscapeString(sizesText(c.SelfSize)), col, strings.Join(pts, " "))
		for k, v := range c.SelfSize {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, xOf(k), yOf(v), col)
		}
		name := cut(c.Label(), 34)
		ly := upper + 16*float64(i) + 8
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f" font-size="11">%s</text></g>`,
			left+plotW+16, ly-8, col, left+plotW+30, ly+1, template.HTMLEscapeString(name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func sizesText(v []uint64) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, bytesize.String(x))
	}
	return strings.Join(parts, " → ")
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"human": bytesize.String, "text": text}).Parse(pageHTML))
