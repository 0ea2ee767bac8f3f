package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSquarify checks the treemap layout: every rectangle inside the
// area, the rectangles not overlapping, each one's area in proportion to
// its size.
func TestSquarify(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(40)
		sizes := make([]float64, n)
		var total float64
		for i := range sizes {
			sizes[i] = float64(1 + r.IntN(1000))
			total += sizes[i]
		}
		// Largest first, as the treemap gives them.
		for i := range sizes {
			for j := i + 1; j < n; j++ {
				if sizes[j] > sizes[i] {
					sizes[i], sizes[j] = sizes[j], sizes[i]
				}
			}
		}
		w, h := 100+r.Float64()*900, 100+r.Float64()*500
		rects := squarify(sizes, 10, 20, w, h)
		const eps = 1e-6
		for i, rc := range rects {
			if rc[0] < 10-eps || rc[1] < 20-eps || rc[0]+rc[2] > 10+w+eps || rc[1]+rc[3] > 20+h+eps {
				t.Fatalf("trial %d: rectangle %d %v outside the area %vx%v", trial, i, rc, w, h)
			}
			if want := sizes[i] / total * w * h; math.Abs(rc[2]*rc[3]-want) > 1e-6*w*h {
				t.Fatalf("trial %d: rectangle %d has area %v, want %v", trial, i, rc[2]*rc[3], want)
			}
			for j := 0; j < i; j++ {
				o := rects[j]
				if rc[0]+eps < o[0]+o[2] && o[0]+eps < rc[0]+rc[2] && rc[1]+eps < o[1]+o[3] && o[1]+eps < rc[1]+rc[3] {
					t.Fatalf("trial %d: rectangles %d %v and %d %v overlap", trial, i, rc, j, o)
				}
			}
		}
	}
}

// small is a heap of two classes under a root: A holds two Bs.
func small() analysis.Heap {
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "root", "A", "B<&>", "x")
	s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: 0}
	irtest.Build(s, []irtest.Node{
		{Kind: 0, Name: str[0], Edges: []irtest.Edge{{0, str[3], 1}}},
		{Kind: 1, Name: str[1], Size: 100, Edges: []irtest.Edge{{0, str[3], 2}, {0, str[3], 3}}},
		{Kind: 1, Name: str[2], Size: 300},
		{Kind: 1, Name: str[2], Size: 200},
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	h := small()
	if err := Write(&b, []analysis.Heap{h, h}, &Options{Title: "two <heaps>", Names: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>two &lt;heaps&gt;</title>",
		`<td>B&lt;&amp;&gt;</td><td data-v="2">2</td><td data-v="500">500 B</td><td data-v="500">500 B</td>`,
		`<td>A</td><td data-v="1">1</td><td data-v="100">100 B</td><td data-v="600">600 B</td>`,
		`id="treemap"`, "A: 600 B retained by 1 object", `id="growth"`, "the last of 2 snapshots",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if err := Write(&b, nil, nil); err == nil {
		t.Error("a report of no heap did not fail")
	}
}

func TestCutKeepsCharacters(t *testing.T) {
	long := strings.Repeat("名前", 30) + "\xed\xa0\x80" // and a lone surrogate's WTF-8
	for _, s := range []string{cut(long, 10), cutFront(long, 10), label(analysis.ClassStat{Name: long})} {
		if !utf8.ValidString(s) {
			t.Errorf("%q is not UTF-8", s)
		}
	}
	if got := cut(long, 5); got != "名前名前…" {
		t.Errorf("cut = %q", got)
	}
	if got := cutFront("abcdef", 4); got != "…def" {
		t.Errorf("cutFront = %q", got)
	}
}
