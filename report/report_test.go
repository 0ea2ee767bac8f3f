package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

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
		`id="treemap"`, `id="treemap-data"`, `"B\u003c\u0026\u003e"`, `id="growth"`, "the last of 2 snapshots",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The treemap's data: the root, then A (one object, so an object, not
	// a group of one), holding the two B<&>, a group.
	m := regexp.MustCompile(`<script type="application/json" id="treemap-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page holds no treemap data")
	}
	var data struct {
		Names []string
		Nodes [][8]any
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range data.Nodes {
		got = append(got, fmt.Sprintf("%s %v %v %v %v %v %v %v", data.Names[int(n[0].(float64))], n[1], n[2], n[3], n[4], n[5], n[6], n[7]))
	}
	want := []string{
		"(synthetic) 600 0 1 @1 0 -1 1", // the root: kind 0, its children here
		"A 600 100 1 @3 2 0 1",          // A: an object, retaining the Bs
		"B<&> 500 0 2  1 1 1",           // the two Bs: a group
		"B<&> 300 300 1 @5 2 2 0",       // and each B, an object holding nothing
		"B<&> 200 200 1 @7 2 2 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the treemap's data:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := Write(&b, nil, nil); err == nil {
		t.Error("a report of no heap did not fail")
	}
	// A heap without a root has no treemap, and says why.
	b.Reset()
	h.Snapshot.Root = ir.NoNode
	if err := Write(&b, []analysis.Heap{h}, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="treemap-data"`) || !strings.Contains(b.String(), "The heap has no root") {
		t.Error("a heap without a root: no note instead of the treemap")
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
