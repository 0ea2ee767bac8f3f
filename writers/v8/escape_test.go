package v8

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

func TestAppendString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		v8   string // V8 style
		raw  string // raw style
	}{
		{"empty", "", `""`, `""`},
		{"ASCII", "abc XYZ 019", `"abc XYZ 019"`, `"abc XYZ 019"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"other controls uppercase hex", "\x00\x01\x0b\x1a\x1f", `"\u0000\u0001\u000B\u001A\u001F"`, `"\u0000\u0001\u000B\u001A\u001F"`},
		{"DEL, slash and angle brackets raw", "\x7f/</script>", "\"\x7f/</script>\"", "\"\x7f/</script>\""},
		{"2-byte", "Café", `"Caf\u00E9"`, "\"Café\""},
		{"3-byte", "名前", `"\u540D\u524D"`, "\"名前\""},
		{"line separators", "\u2028\u2029\ufeff", `"\u2028\u2029\uFEFF"`, "\"\u2028\u2029\ufeff\""},
		{"V8-truncated astral (BMP)", "\uf600", `"\uF600"`, "\"\uf600\""},
		{"astral from a foreign source", "a😀b", `"a\uD83D\uDE00b"`, "\"a😀b\""},
		{"astral 𝄞 and U+10FFFF", "𝄞\U0010FFFF", `"\uD834\uDD1E\uDBFF\uDFFF"`, "\"𝄞\U0010FFFF\""},
		{"WTF-8 lone high surrogate", "x\xed\xa0\x80y", `"x\uD800y"`, `"x\uD800y"`},
		{"WTF-8 lone low surrogate", "\xed\xbf\xbf", `"\uDFFF"`, `"\uDFFF"`},
		{"WTF-8 surrogates in reverse order", "\xed\xb8\x80\xed\xa0\xbd", `"\uDE00\uD83D"`, `"\uDE00\uD83D"`},
		{"invalid byte", "a\xffb", `"a?b"`, "\"a\xffb\""},
		{"truncated sequence", "a\xe4\xb8", `"a??"`, "\"a\xe4\xb8\""},
		{"lone continuation byte", "\x80", `"?"`, "\"\x80\""},
		{"overlong encoding", "\xc0\xaf", `"??"`, "\"\xc0\xaf\""},
		{"CESU-style pair stays two escapes", "\xed\xa0\xbd\xed\xb8\x80", `"\uD83D\uDE00"`, `"\uD83D\uDE00"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendString([]byte("<"), tc.in, v8ir.EscapeV8)); got != "<"+tc.v8 {
				t.Errorf("V8 style: %s, want %s", got, tc.v8)
			}
			if got := string(appendString(nil, tc.in, v8ir.EscapeRaw)); got != tc.raw {
				t.Errorf("raw style: %q, want %q", got, tc.raw)
			}
		})
	}
}

// TestAppendStringV8IsASCII: V8 style output is pure printable ASCII (plus
// DEL), whatever the input.
func TestAppendStringV8IsASCII(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	inputs := []string{string(all), "é😀\xed\xa0\x80", strings.Repeat("\xf0\x9f", 3)}
	for _, in := range inputs {
		out := appendString(nil, in, v8ir.EscapeV8)
		for i, c := range out {
			if c < 0x20 || c > 0x7f {
				t.Errorf("input %q: byte %d of the output is 0x%02x", in, i, c)
				break
			}
		}
	}
}

// TestStringsReadBack: every valid WTF-8 string written in either style is
// read back by readers/v8 as the same bytes.
func TestStringsReadBack(t *testing.T) {
	strs := []string{"<dummy>", "", "A", "\b\f\n\r\t\"\\/", "\x00\x01\x1f\x7f", "Café 名前", "😀 𝄞", "\xed\xa0\x80", "a\xed\xb0\x80b",
		"\xed\xb8\x80\xed\xa0\xbd", "\uf600", strings.Repeat("é", 3000)}
	for _, esc := range []v8ir.Escape{v8ir.EscapeV8, v8ir.EscapeRaw} {
		t.Run(esc.String(), func(t *testing.T) {
			f := wtMinimal(strs)
			v8ir.Of(f.Snapshots[0]).Escape = esc
			var b strings.Builder
			if _, err := Write(&b, f, Options{}); err != nil {
				t.Fatal(err)
			}
			g, err := rv8.Read(strings.NewReader(b.String()), rv8.Options{})
			if err != nil {
				t.Fatalf("re-read: %v\n%s", err, b.String())
			}
			for i, s := range strs {
				if g.Strings[i] != s {
					t.Errorf("string %d: read back %q, wrote %q", i, g.Strings[i], s)
				}
			}
		})
	}
}

// wtMinimal is a one-node V8-shaped file holding strs as its string table.
func wtMinimal(strs []string) *ir.File {
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set("node_fields", ir.JSONStrs("type", "name", "id", "self_size", "edge_count"))
	meta.Set("node_types", ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONStrs("synthetic")}})
	meta.Set("edge_fields", ir.JSONStrs("type", "name_or_index", "to_node"))
	meta.Set("edge_types", ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONStrs("element")}})
	h := ir.JSON{Kind: ir.JSONObject}
	h.Set("meta", meta)
	h.Set("node_count", ir.JSONNum(1))
	h.Set("edge_count", ir.JSONNum(0))
	s := &ir.Snapshot{
		NodeKinds: []string{"synthetic"},
		EdgeKinds: []ir.EdgeKind{{Name: "element", Indexed: true}},
		Root:      0,
		Nodes:     ir.Nodes{Kind: []uint8{0}, Name: []uint32{1}, ID: ir.UintsOf(1), SelfSize: ir.UintsOf(0), FirstEdge: []uint32{0, 0}},
		Sections:  []ir.Section{&v8ir.Snapshot{Header: h, Keys: []v8ir.Key{{Name: "snapshot"}, {Name: "nodes"}, {Name: "edges"}, {Name: "strings"}}}},
	}
	return &ir.File{Format: v8ir.Format, Strings: strs, Snapshots: []*ir.Snapshot{s}}
}

// utf16Units counts what a browser decodes b to, in UTF-16 units: an
// invalid byte becomes one replacement character.
func utf16Units(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n++
		if r > 0xFFFF {
			n++
		}
		b = b[size:]
	}
	return n
}

// TestStringUnits checks v8ir.StringUnits, which validation bounds the
// strings section by, against what appendString writes, in both styles.
func TestStringUnits(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	pieces := []string{"a", "\"", "\\", "\n", "\x01", "\x7f", "é", "名", "😀", "\xed\xa0\x80", "\xff", "\xe4\xb8", "\uf600"}
	inputs := []string{""}
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := r.Intn(12); j > 0; j-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		for _, esc := range []v8ir.Escape{v8ir.EscapeV8, v8ir.EscapeRaw} {
			if got, want := v8ir.StringUnits(s, esc), utf16Units(appendString(nil, s, esc)); got != want {
				t.Errorf("StringUnits(%q, %v) = %d; the written string is %d units", s, esc, got, want)
			}
		}
	}
}

// TestStringsSectionUnits checks v8ir.StringsUnits against the strings
// section of written files, in both layouts.
func TestStringsSectionUnits(t *testing.T) {
	for _, file := range []string{"compact.heapsnapshot", "rows.heapsnapshot"} {
		in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v8", "small", file))
		if err != nil {
			t.Fatal(err)
		}
		f := wtRead(t, in)
		for _, layout := range []v8ir.Layout{v8ir.LayoutCompact, v8ir.LayoutRows} {
			v := v8ir.Of(f.Snapshots[0])
			v.Layout = layout
			out, _ := wtWrite(t, f)
			i := bytes.Index(out, []byte(`"strings":[`))
			j := bytes.LastIndexByte(out, ']')
			if i < 0 || j < i {
				t.Fatalf("%s: no strings section in\n%s", file, out)
			}
			section := out[i+len(`"strings":`) : j+1]
			if got, want := v8ir.StringsUnits(f.Strings, layout, v.Escape), utf16Units(section); got != want {
				t.Errorf("%s as %v: StringsUnits = %d; the section %q is %d units", file, layout, got, section, want)
			}
		}
	}
}
