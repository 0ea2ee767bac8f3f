package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestPathNames: the page's retainer paths read as `heapconv paths` prints
// them, each step the reference's name "in" the holder's class and shown
// name: a V8 closure by its function's name and "()".
func TestPathNames(t *testing.T) {
	f := &ir.File{Format: "v8", Strings: []string{""}}
	str := irtest.Strings(f, "", "global", "watcher", "onChange", "context", "system / Context", "handlers", "Leak")
	empty, global, watcher, onChange, context, ctx, handlers, leak := str[0], str[1], str[2], str[3], str[4], str[5], str[6], str[7]
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	edge := func(k string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k }))
	}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	irtest.Build(s, []irtest.Node{
		{Kind: kind("synthetic"), Name: empty, Edges: []irtest.Edge{{edge("shortcut"), global, 1}}},
		{Kind: kind("object"), Name: global, Size: 16, Edges: []irtest.Edge{{edge("property"), watcher, 2}}},
		{Kind: kind("closure"), Name: onChange, Size: 32, Edges: []irtest.Edge{{edge("internal"), context, 3}}},
		{Kind: kind("object"), Name: ctx, Size: 24, Edges: []irtest.Edge{{edge("context"), handlers, 4}}},
		{Kind: kind("object"), Name: leak, Size: 10000},
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	var b bytes.Buffer
	if err := Write(&b, []analysis.Heap{{File: f, Snapshot: s}}, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<span class="edge">watcher</span> in global @3`,
		`<span class="edge">context</span> in Function onChange() @5`,
		`<span class="edge">handlers</span> in system / Context @7`,
		`<li>Leak @9 <span class="note">self`,
	} {
		if !strings.Contains(page, want) {
			i := strings.Index(page, `<ol class="path">`)
			t.Errorf("the page lacks %q:\n%.1500s", want, page[max(i, 0):])
		}
	}
}
