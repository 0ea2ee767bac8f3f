// Package report writes a heap as one self-contained HTML page: its class
// table (sortable), a treemap of retained size over the dominator tree
// that zooms on a click from classes to their objects and what each
// dominates, down to single objects (its data bounded: Options.TreemapNodes
// and TreemapChildren), the shortest retainer paths of the classes that
// retain the most, and, for several snapshots of one program, a chart of
// how much the classes that grew changed since the first snapshot. The page
// loads nothing: its style, script and pictures (SVG) are inside it.
package report

import (
	"cmp"
	"fmt"
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
	// Charted is how many classes the growth chart draws (default 10).
	Charted int
	// TreemapNodes bounds the treemap's data: how many rectangles, over
	// all its levels, the page holds at most (default
	// DefaultTreemapNodes). The largest are expanded first, so a bigger
	// heap gets no bigger a page: each rectangle costs some 40 bytes and
	// its class's name (at most 120 characters, each name once).
	TreemapNodes int
	// TreemapChildren is how many of a rectangle's children the treemap
	// holds, the largest; the rest is one "other" rectangle (default
	// DefaultTreemapChildren).
	TreemapChildren int
	// Suspects is how many leak suspects the leak section lists (default
	// 5): of several heaps, analysis.Compare's; of one, the objects that
	// keep a tenth of it alive (Navigator.HeapSuspects).
	Suspects int
}

// Write writes the report of heaps to w. The last heap is the one the
// table, treemap and paths show; with several (snapshots of one program in
// the order they were taken), the page also charts the change of the
// classes that grew since the first.
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
		o.Charted = 10
	}
	if o.Suspects <= 0 {
		o.Suspects = 5
	}
	if o.TreemapNodes <= 0 {
		o.TreemapNodes = DefaultTreemapNodes
	}
	if o.TreemapChildren <= 0 {
		o.TreemapChildren = DefaultTreemapChildren
	}
	h := heaps[len(heaps)-1]
	// Of several heaps, the comparison's navigator of the last serves the
	// page too: its dominator tree is computed once.
	var c *analysis.Comparison
	var nv *analysis.Navigator
	var err error
	if len(heaps) > 1 {
		if c, err = analysis.Compare(heaps, analysis.CompareOptions{Suspects: o.Suspects}); err != nil {
			return err
		}
		nv = c.Navigator()
	}
	if nv == nil {
		if nv, err = analysis.NewNavigator(h); err != nil {
			return err
		}
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
	p := page{Title: o.Title, Format: h.File.Format, Variant: h.File.FormatVersion, Summary: sum, Classes: len(sum.TopClasses),
		TreemapNodes: o.TreemapNodes, TreemapChildren: o.TreemapChildren}
	if len(o.Names) == len(heaps) {
		p.Name = text(o.Names[len(heaps)-1])
	}
	p.Title = text(p.Title)
	for _, c := range sum.TopClasses[:min(len(sum.TopClasses), o.Classes)] {
		p.Rows = append(p.Rows, row{Name: label(c), Count: c.Count, Self: c.SelfSize, Retained: *c.Retained})
	}
	if nv.Tree() == nil {
		p.TreemapNote = "The heap has no root: nothing is retained, and there is no dominator tree to draw."
	} else if tm := buildTreemap(nv, o.TreemapNodes, o.TreemapChildren); tm == nil {
		p.TreemapNote = "The heap retains nothing."
	} else {
		data, err := treemapJSON(tm)
		if err != nil {
			return err
		}
		p.Treemap = template.JS(data)
	}
	for _, c := range sum.TopClasses[:min(len(sum.TopClasses), o.Paths)] {
		nodes := nv.ClassNodes(c.Label(), 1)
		if len(nodes) == 0 {
			continue
		}
		p.Paths = append(p.Paths, retainerPath{Class: label(c), Steps: nv.ShortestPath(nodes[0])})
	}
	if len(heaps) > 1 {
		p.Snapshots = len(heaps)
		// The engine's own classes (compiled code, say) grow as any
		// program runs: the chart leaves them out.
		charted := slices.DeleteFunc(slices.Clone(c.Classes), func(k analysis.ClassChange) bool {
			return analysis.NoiseClass(h.File.Format, k.Name)
		})
		p.Chart = chartSVG(charted, o.Charted, o.Names, 1160, 360)
		p.Leaks = leakSection(c.Suspects, c.Noise)
		switch c.SuspectsBy {
		case "identity":
			p.Leaks.About = fmt.Sprintf("Objects new in snapshot %d (since snapshot %d) that snapshot %d still has, grouped by the object that accumulates them (the nearest one that holds them all and is not new itself), largest first by what they retain together. Objects are matched between snapshots by %s.",
				c.Step[len(c.Step)-2]+1, c.Step[0]+1, c.Step[len(c.Step)-1]+1, c.Identity)
			if len(c.Step) == 2 {
				p.Leaks.About = fmt.Sprintf("Objects new in the last snapshot, grouped by the object that accumulates them (the nearest one that holds them all and is not new itself), largest first by what they retain together. Objects are matched between snapshots by %s.", c.Identity)
			}
		case "growth":
			p.Leaks.About = "This heap's objects have no identity from one snapshot to the next, so the suspects are the objects (matched between the first and the last snapshot by their path from the roots) under which the classes that grew grew most, by the growth of what they retain."
			p.Leaks.Growth = true
		}
	} else if nv.Tree() != nil {
		p.Leaks = leakSection(nv.HeapSuspects(0.1, o.Suspects, 0), 0)
		p.Leaks.About = "The objects that alone keep a tenth of the heap or more alive, the most specific of them (an object that holds such an object stands aside for it), as Eclipse MAT's Leak Suspects report finds them in one heap; compare snapshots for the objects that grow."
		p.Leaks.Single = true
	}
	return pageTemplate.Execute(w, p)
}

// leaks is the page's leak section.
type leaks struct {
	About    string
	Growth   bool // suspects by growth: figures are changes
	Single   bool // one heap's suspects
	Suspects []suspect
	Noise    uint64
}

type suspect struct {
	analysis.Suspect
	Percent string
	Classes []string // "300 Session (16.8 kB)"
	More    int
}

// leakSection is the leak section of suspects.
func leakSection(ss []analysis.Suspect, noise uint64) *leaks {
	l := &leaks{Noise: noise}
	for _, s := range ss {
		x := suspect{Suspect: s, Percent: fmt.Sprintf("%.0f%%", 100*s.Share)}
		for k, c := range s.Classes {
			if k == 6 {
				x.More = len(s.Classes) - k
				break
			}
			name := label(analysis.ClassStat{Name: c.Class})
			if c.Name != "" {
				name += " " + text(c.Name)
			}
			x.Classes = append(x.Classes, fmt.Sprintf("%s %s (%s)", objects(int(c.Count)), cut(name, 80), bytesize.String(c.SelfSize)))
		}
		l.Suspects = append(l.Suspects, x)
	}
	return l
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
	Treemap                      template.JS // the treemap's data (treemapJSON)
	TreemapNote                  string      // why there is no treemap
	TreemapNodes                 int         // the bounds of its data
	TreemapChildren              int
	Paths                        []retainerPath
	Chart                        template.HTML
	Leaks                        *leaks
}

type row struct {
	Name                  string
	Count, Self, Retained uint64
}

type retainerPath struct {
	Class string
	Steps []analysis.PathStep
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"human": bytesize.String, "text": text}).Parse(pageHTML))
