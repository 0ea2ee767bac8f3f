package analysis_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestShownV8: a V8 heap's nodes are shown as DevTools' Retainers view
// shows them, each kind dressed its way.
func TestShownV8(t *testing.T) {
	f := &ir.File{Format: "v8", Strings: []string{""}}
	str := irtest.Strings(f, "", "global", "onChange", "hello\nworld", "^a+$", "Object", "Array", "sessions", "users",
		"s", "(object elements)", "system / Context", "Window / https://example.com/a/very/long/path/to/some/page.html", "first", "second", "cd", "sliced")
	empty, global, onChange, hello, re, object, array, sessions, users := str[0], str[1], str[2], str[3], str[4], str[5], str[6], str[7], str[8]
	sName, elements, context, window, first, second, cd, sliced := str[9], str[10], str[11], str[12], str[13], str[14], str[15], str[16]
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	edge := func(k string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k }))
	}
	prop, internal := edge("property"), edge("internal")
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	irtest.Build(s, []irtest.Node{
		{Kind: kind("synthetic"), Name: empty, Edges: []irtest.Edge{{edge("shortcut"), global, 1}}},
		{Kind: kind("object"), Name: global, Size: 8, Edges: []irtest.Edge{{prop, sName, 2}, {prop, sName, 3}, {prop, sName, 4}, {prop, sName, 5}, {prop, sName, 6},
			{prop, sName, 7}, {prop, sName, 8}, {prop, sName, 9}, {prop, sName, 10}, {prop, sName, 11}}},
		{Kind: kind("closure"), Name: onChange, Size: 8},                                                           // 2
		{Kind: kind("string"), Name: hello, Size: 8},                                                               // 3
		{Kind: kind("regexp"), Name: re, Size: 8},                                                                  // 4
		{Kind: kind("object"), Name: object, Size: 8, Edges: []irtest.Edge{{prop, sessions, 1}, {prop, users, 1}}}, // 5
		{Kind: kind("array"), Name: empty, Size: 8},                                                                // 6
		{Kind: kind("array"), Name: elements, Size: 8},                                                             // 7
		{Kind: kind("object"), Name: context, Size: 8},                                                             // 8
		{Kind: kind("object"), Name: window, Size: 8},                                                              // 9
		{Kind: kind("concatenated string"), Name: empty, Size: 8, Edges: []irtest.Edge{{internal, first, 3}, {internal, second, 12}}}, // 10
		{Kind: kind("sliced string"), Name: sliced, Size: 8},                                                                          // 11
		{Kind: kind("string"), Name: cd, Size: 8},                                                                                     // 12
		{Kind: kind("object"), Name: array, Size: 8},                                                                                  // 13
	}, false)
	f.Snapshots = []*ir.Snapshot{s}
	nv, err := analysis.NewNavigator(analysis.Heap{File: f, Snapshot: s})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{
		1:  "global",
		2:  "onChange()",
		3:  "\"hello\nworld\"",
		4:  "/^a+$/",
		5:  "{sessions, users}",
		6:  "(internal array)[]",
		7:  "(object elements)[]",
		8:  "system / Context",
		9:  "Window / example.com/a/very/l…h/to/some/page.html",
		10: "\"hello\nworldcd\"",
		11: "sliced",
		13: "Array",
	} {
		if got := nv.Shown(i); got != want {
			t.Errorf("node %d shown as %q, want %q", i, got, want)
		}
		if got := nv.Step(i).Shown; got != want {
			t.Errorf("node %d's step shown as %q, want %q", i, got, want)
		}
	}
}

// TestShownOtherFormats: a Dart heap's strings are shown by their text,
// its closures by their function's name and its functions and classes by
// theirs; a MoarVM heap's objects by their names.
func TestShownOtherFormats(t *testing.T) {
	h, err := heapconv.ReadHeap("../../testdata/dart/dart-3.7.3-capture.dartheap.zst", nil)
	if err != nil {
		t.Fatal(err)
	}
	nv, err := analysis.NewNavigator(h)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, class := range []string{"_OneByteString", "_Closure", "Function", "Class", "_List"} {
		nodes := nv.ClassNodes(class, 1)
		if len(nodes) == 0 {
			t.Fatalf("no %s", class)
		}
		seen[class] = nv.Shown(nodes[0])
	}
	if s := seen["_OneByteString"]; !strings.HasPrefix(s, `"`) || !strings.HasSuffix(s, `"`) || len(s) < 3 {
		t.Errorf("a Dart string is shown as %q, not its text in quotes", s)
	}
	if s := seen["_Closure"]; !strings.HasSuffix(s, "()") || s == "()" || s == "_Closure()" {
		t.Errorf("a Dart closure is shown as %q, not its function's name", s)
	}
	for _, class := range []string{"Function", "Class"} {
		if s := seen[class]; s == "" || s == class || strings.HasPrefix(s, `"`) {
			t.Errorf("a Dart %s is shown as %q, not its name", class, s)
		}
	}
	if s := seen["_List"]; s != "_List" {
		t.Errorf("a Dart list is shown as %q, want its class", s)
	}

	h, err = heapconv.ReadHeap("../../testdata/moarvm/nqp-1snap.mvmheap", nil)
	if err != nil {
		t.Fatal(err)
	}
	if nv, err = analysis.NewNavigator(h); err != nil {
		t.Fatal(err)
	}
	if got := nv.Shown(int(h.Snapshot.Root)); got != "Root" {
		t.Errorf("MoarVM's root shown as %q", got)
	}
	if nodes := nv.ClassNodes("BOOTHash", 1); len(nodes) == 0 || nv.Shown(nodes[0]) != "BOOTHash" {
		t.Errorf("a MoarVM hash is not shown by its name")
	}
}

func TestAbbreviate(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"a\nb\tc\x01", 0, `a\nb\tc\x01`},
		{"abcdefghij", 5, "abcd…"},
		{`"abcdefghij"`, 6, `"abc…"`},
		{"{aa, bb, cc}", 8, "{aa, b…}"},
		{"onChangeHandler()", 8, "onCha…()"},
		{"(internal array)[]", 10, "(intern…[]"},
		{"bad \xff byte", 0, "bad \uFFFD byte"},
		{"日本語のテキスト", 4, "日本語…"},
	} {
		got := analysis.Abbreviate(c.in, c.width)
		if got != c.want {
			t.Errorf("Abbreviate(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
		if c.width > 0 && utf8.RuneCountInString(got) > c.width {
			t.Errorf("Abbreviate(%q, %d) = %q: longer than %d", c.in, c.width, got, c.width)
		}
	}
}

func TestHolderAndLabel(t *testing.T) {
	for _, c := range []struct {
		st    analysis.PathStep
		width int
		want  string
	}{
		{analysis.PathStep{Class: "Session", Shown: "Session", Ref: "@7"}, 100, "Session @7"},
		{analysis.PathStep{Class: "Function", Shown: "onChange()", Ref: "@7"}, 100, "Function onChange() @7"},
		{analysis.PathStep{Class: "(string)", Shown: `"hi"`, Ref: "@7"}, 100, `"hi" @7`},
		{analysis.PathStep{Class: "(array)", Shown: "(internal array)[]", Ref: "@7"}, 100, "(internal array)[] @7"},
		{analysis.PathStep{Class: "Object", Shown: "{alpha, beta, gamma, delta}", Ref: "@7"}, 100, "Object {alpha, beta, gamma, delta} @7"},
		{analysis.PathStep{Class: "Object", Shown: "{alpha, beta, gamma, delta}", Ref: "@7"}, 20, "Object {alpha, beta, …} @7"},
		{analysis.PathStep{Class: "", Shown: "", Ref: "#3"}, 100, "#3"},
	} {
		if got := c.st.Holder(c.width); got != c.want {
			t.Errorf("Holder(%d) of %+v = %q, want %q", c.width, c.st, got, c.want)
		}
	}
	for _, c := range []struct {
		r    analysis.Reference
		want string
	}{
		{analysis.Reference{Kind: "property", Name: "sessions"}, "sessions"},
		{analysis.Reference{Kind: "element", Name: "3", Indexed: true}, "[3]"},
		{analysis.Reference{Kind: "hidden", Name: "3", Indexed: true}, "3"},
		{analysis.Reference{Kind: "unknown", Name: "0", Indexed: true}, "[0]"},
		{analysis.Reference{Kind: "property", Name: ""}, "(empty)"},
	} {
		if got := c.r.Label(); got != c.want {
			t.Errorf("Label of %+v = %q, want %q", c.r, got, c.want)
		}
	}
}
