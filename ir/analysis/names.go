package analysis

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
)

// Shown returns the name a person is shown for node i, beside its class.
//
// For a V8 heap it is the text of the node in Chrome DevTools' Retainers
// view (and Summary view), before the "@id": the name DevTools gives the
// node (a concatenated string's text, a plain object's properties as
// "{a, b, …, z}", else the node's own name, which V8 makes a function's
// name for a closure and the text for a string), dressed by its kind as
// the view dresses it: a string or a concatenated string in double quotes
// (a sliced string is not, as in DevTools), a regular expression between
// slashes, a closure's name followed by "()", an array's by "[]" (an
// array without a name is "(internal array)[]"), and a window's URL
// shortened ("Window / example.com/…").
//
// For other formats it is the heap's own name for the node where it has
// one: a string's text in double quotes (with "…" before the closing
// quote when the VM kept only its start), a number's or a boolean's value,
// a Dart function's name, a Dart closure's function name followed by "()",
// else the node's name (which is its class's for most objects), or its
// class when it has no name.
func (nv *Navigator) Shown(i int) string {
	if nv.devtools {
		return nv.devtoolsShown(i)
	}
	return nv.heapShown(i)
}

// devtoolsShown is Shown for a V8 heap.
func (nv *Navigator) devtoolsShown(i int) string {
	name := nv.shownName(i)
	switch nv.g.NodeKindName(i) {
	case ir.KindString, ir.KindConcatenatedString:
		return `"` + name + `"`
	case ir.KindRegexp:
		return "/" + name + "/"
	case ir.KindClosure:
		return name + "()"
	case ir.KindArray:
		if name == "" {
			return "(internal array)[]"
		}
		return name + "[]"
	case ir.KindObject:
		if strings.HasPrefix(name, "Window") {
			return shortenWindowURL(name)
		}
	}
	return name
}

// shortenWindowURL shortens the URL in the name V8 gives a browser
// window's global object ("Window / https://example.com/a/b"), as
// DevTools shows it: from the first "/" on, the URL without its scheme,
// cut in the middle to 40 characters.
func shortenWindowURL(name string) string {
	slash := strings.IndexByte(name, '/')
	if slash < 0 {
		return name
	}
	url := strings.TrimLeft(name[slash+1:], " \t\n\r\v\f")
	for _, scheme := range []string{"https://", "http://", "file://"} {
		if len(url) >= len(scheme) && strings.EqualFold(url[:len(scheme)], scheme) {
			url = url[len(scheme):]
			break
		}
	}
	if r := []rune(url); len(r) > 40 {
		url = string(r[:20]) + "…" + string(r[len(r)-19:])
	}
	head := name[:min(slash+2, len(name))]
	return head + url
}

// heapShown is Shown for a heap of another format than V8.
func (nv *Navigator) heapShown(i int) string {
	f, s := nv.heap.File, nv.heap.Snapshot
	dart := dartir.Of(s) != nil
	if text, ok := nv.valueText(i, dart); ok {
		return text
	}
	if nv.isClosure(i) {
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			if s.EdgeKindOf(e).Indexed || f.String(s.Edges.Name[e]) != "function_" {
				continue
			}
			if name, ok := nv.valueText(int(s.Edges.Target[e]), dart); ok && !strings.HasPrefix(name, `"`) {
				return name + "()"
			}
			break
		}
	}
	if i < s.Nodes.Len() {
		if name := f.String(s.Nodes.Name[i]); name != "" {
			return name
		}
	}
	return nv.Class(i)
}

// valueText returns node i's value as Shown shows it: a string's text in
// double quotes, a Dart name (a function's, a class's) as it is, a
// number's or a boolean's value; false for a node without such a value.
func (nv *Navigator) valueText(i int, dart bool) (string, bool) {
	s := nv.heap.Snapshot
	v := &s.Values
	if i >= s.Nodes.Len() || v.Len() == 0 {
		return "", false
	}
	j, ok := searchUint32(v.Node, uint32(i))
	if !ok {
		return "", false
	}
	bits := v.Bits[j]
	switch v.Kind[j] {
	case ir.ValueString:
		text := nv.heap.File.String(uint32(bits))
		if dart && s.Nodes.Kind[i] == dartir.NameData {
			return text, true
		}
		if v.Aux[j] != 0 {
			text += "…"
		}
		return `"` + text + `"`, true
	case ir.ValueInt:
		return strconv.FormatInt(int64(bits), 10), true
	case ir.ValueFloat:
		return strconv.FormatFloat(math.Float64frombits(bits), 'g', -1, 64), true
	case ir.ValueBool:
		return strconv.FormatBool(bits != 0), true
	case ir.ValueNull:
		return "null", true
	}
	return "", false
}

// searchUint32 finds x in the increasing list a.
func searchUint32(a []uint32, x uint32) (int, bool) {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(a) && a[lo] == x
}

// Holder describes the step's node for a person, in at most about width
// columns: its class, the name it is shown by (Shown) when that says more
// than the class, and its reference ("Function onChange() @50581",
// "Session @78471", `"some text" @42`). The class is left out where the
// shown name already says what the node is: where they are equal, and for
// DevTools' categories in parentheses ("(string)", "(array)"), whose
// objects the quotes or brackets of the name mark. A shown name too long
// for width is cut (Abbreviate), to no fewer than 16 characters.
func (p PathStep) Holder(width int) string {
	class, name := "", p.Class
	if p.Shown != "" && p.Shown != p.Class {
		name = p.Shown
		if p.Class != "" && !(strings.HasPrefix(p.Class, "(") && strings.HasSuffix(p.Class, ")")) {
			class = Abbreviate(p.Class, 0) + " "
		}
	}
	if class == "" && name == "" {
		return p.Ref
	}
	room := width - utf8.RuneCountInString(class) - 1 - utf8.RuneCountInString(p.Ref)
	return class + Abbreviate(name, max(room, 16)) + " " + p.Ref
}

// Label returns the edge as the Retainers view of DevTools names it beside
// its holder: its name, an element's index in brackets ("[3]"; so is any
// indexed edge but V8's hidden ones, which DevTools shows bare), or
// "(empty)" for an edge without a name.
func (r Reference) Label() string {
	switch {
	case r.Indexed && r.Kind != ir.EdgeHidden:
		return "[" + r.Name + "]"
	case r.Name == "":
		return "(empty)"
	}
	return r.Name
}

// Abbreviate makes a name fit a line of text: control characters become
// escapes ("\n", "\x01"), bytes that are no UTF-8 become U+FFFD, and a
// name of more than width characters is cut to width, its end replaced by
// "…" but for a closing quote, bracket or parenthesis that matches its
// first character (`"some te…"`, `{a, b, c…}`, `onCha…()`).
func Abbreviate(s string, width int) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	text := []rune(b.String())
	if width < 1 || len(text) <= width {
		return string(text)
	}
	tail := ""
	closers := map[rune]string{'"': `"`, '\'': "'", '(': ")", '[': "]", '{': "}", '/': "/"}
	switch last := string(text[len(text)-1]); {
	case strings.HasSuffix(string(text), "()") || strings.HasSuffix(string(text), "[]"):
		tail = string(text[len(text)-2:])
	case closers[text[0]] == last:
		tail = last
	}
	keep := width - 1 - utf8.RuneCountInString(tail)
	if keep < 1 {
		return string(text[:width-1]) + "…"
	}
	return string(text[:keep]) + "…" + tail
}
