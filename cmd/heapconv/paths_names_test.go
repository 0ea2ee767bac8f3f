package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir/analysis"
)

// TestStepText: a step of a path reads as a row of DevTools' Retainers
// view, the edge's label "in" the holder with its class, shown name and
// reference, then the edge's kind and the figures, within lineWidth
// columns however long the names.
func TestStepText(t *testing.T) {
	long := strings.Repeat("very long name ", 20)
	for _, c := range []struct {
		st   analysis.PathStep
		want string // the line, or a regular expression when it starts with ^
	}{
		{analysis.PathStep{Class: "global", Shown: "global", Ref: "@5", SelfSize: 8, Retained: 90, Distance: 1,
			Edge: &analysis.Reference{Kind: "property", Name: "sessions"}},
			"sessions in global @5 (property)  self 8  retained 90  distance 1"},
		{analysis.PathStep{Class: "Function", Shown: "onChange()", Ref: "@7", SelfSize: 64, Retained: 784, Distance: 2,
			Edge: &analysis.Reference{Kind: "internal", Name: "context"}},
			"context in Function onChange() @7 (internal)  self 64  retained 784  distance 2"},
		{analysis.PathStep{Class: "Array", Shown: "Array", Ref: "@9", Distance: analysis.SystemDistance + 3,
			Edge: &analysis.Reference{Kind: "element", Name: "4", Indexed: true}},
			"[4] in Array @9 (element)  self 0  retained 0  distance 3 (system)"},
		{analysis.PathStep{Class: "Session", Shown: "Session", Ref: "@11", SelfSize: 104, Retained: 160, Distance: 5},
			"Session @11  self 104  retained 160  distance 5"},
		{analysis.PathStep{Class: "(string)", Shown: `"` + long + "\n" + `"`, Ref: "@13", Distance: 4,
			Edge: &analysis.Reference{Kind: "internal", Name: long}},
			`^very long name .*… in "very long name .*…" @13 \(internal\)  self 0  retained 0  distance 4$`},
		{analysis.PathStep{Class: "Object", Shown: "{" + long + "}", Ref: "@15", Distance: 4},
			`^Object \{very long name .*…\} @15  self 0  retained 0  distance 4$`},
	} {
		got := stepText(c.st, lineWidth-4)
		if strings.HasPrefix(c.want, "^") {
			if !regexp.MustCompile(c.want).MatchString(got) {
				t.Errorf("step %+v:\n  %q\ndoes not match\n  %s", c.st, got, c.want)
			}
		} else if got != c.want {
			t.Errorf("step %+v:\n  %q\nwant\n  %q", c.st, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > lineWidth-4 {
			t.Errorf("%q: %d columns, more than %d", got, n, lineWidth-4)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%q: a line break in a line", got)
		}
	}
}

// TestPathsShowNames: paths on a real Node heap names each holder as
// DevTools does (a function by its name and "()") and the references by
// which they hold the next, in lines of at most 100 columns, and --json
// gives each step its shown name.
func TestPathsShowNames(t *testing.T) {
	in := filepath.Join(td, "v8", "node26.heapsnapshot.zst")
	code, stdout, stderr := cliRun(t, nil, "paths", "--class", "Map", "--max", "3", in)
	if code != 0 {
		t.Fatalf("paths: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"context in Function fetch() @63579 (internal)",
		"map in Function BuiltinModule() @53013 (property)",
		"require in system / Context @64457 (context)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("paths does not say %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > lineWidth {
			t.Errorf("a line of %d columns:\n%s", n, line)
		}
	}
	code, stdout, stderr = cliRun(t, nil, "paths", "--json", "--class", "Map", "--max", "1", in)
	var p pathsJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || len(p.Objects) != 1 {
		t.Fatalf("paths --json: exit %d, %s\n%.300s", code, stderr, stdout)
	}
	shown := map[string]string{}
	for _, st := range p.Objects[0].Path {
		shown[st.Ref] = st.Shown
	}
	if shown["@53013"] != "BuiltinModule()" || shown["@54387"] != "Map" {
		t.Errorf("--json's shown names: %v", shown)
	}
	if !strings.Contains(stdout, `"shown":"BuiltinModule()"`) {
		t.Errorf("--json has no \"shown\" field:\n%.500s", stdout)
	}
}
