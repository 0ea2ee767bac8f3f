package ir_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

func jsObj(fields ...ir.JSONField) ir.JSON { return ir.JSON{Kind: ir.JSONObject, Fields: fields} }
func jsArr(elems ...ir.JSON) ir.JSON       { return ir.JSON{Kind: ir.JSONArray, Elems: elems} }
func jsF(k string, v ir.JSON) ir.JSONField {
	return ir.JSONField{Key: k, Value: v}
}

func TestJSONEqual(t *testing.T) {
	nan := ir.JSON{Kind: ir.JSONFloat, Float: math.NaN()}
	tests := []struct {
		name string
		a, b ir.JSON
		want bool
	}{
		{"nulls", ir.JSON{}, ir.JSON{}, true},
		{"bools", ir.JSON{Kind: ir.JSONBool, Bool: true}, ir.JSON{Kind: ir.JSONBool, Bool: true}, true},
		{"bools differ", ir.JSON{Kind: ir.JSONBool, Bool: true}, ir.JSON{Kind: ir.JSONBool}, false},
		{"ints", ir.JSONNum(-3), ir.JSONNum(-3), true},
		{"ints differ", ir.JSONNum(3), ir.JSONNum(4), false},
		{"int vs float", ir.JSONNum(3), ir.JSON{Kind: ir.JSONFloat, Float: 3}, false},
		{"floats", ir.JSON{Kind: ir.JSONFloat, Float: 2.5}, ir.JSON{Kind: ir.JSONFloat, Float: 2.5}, true},
		{"NaN equals NaN", nan, nan, true},
		{"strings", ir.JSONStr("a"), ir.JSONStr("a"), true},
		{"strings differ", ir.JSONStr("a"), ir.JSONStr("b"), false},
		{"string vs null", ir.JSONStr(""), ir.JSON{}, false},
		{"arrays", ir.JSONStrs("a", "b"), ir.JSONStrs("a", "b"), true},
		{"array lengths", ir.JSONStrs("a", "b"), ir.JSONStrs("a"), false},
		{"array element", ir.JSONStrs("a", "b"), ir.JSONStrs("a", "c"), false},
		{"nested arrays", jsArr(jsArr(ir.JSONNum(1))), jsArr(jsArr(ir.JSONNum(1))), true},
		{"nested arrays differ", jsArr(jsArr(ir.JSONNum(1))), jsArr(jsArr(ir.JSONNum(2))), false},
		{"objects", jsObj(jsF("a", ir.JSONNum(1)), jsF("b", ir.JSON{})), jsObj(jsF("a", ir.JSONNum(1)), jsF("b", ir.JSON{})), true},
		{"object key order matters", jsObj(jsF("a", ir.JSONNum(1)), jsF("b", ir.JSON{})), jsObj(jsF("b", ir.JSON{}), jsF("a", ir.JSONNum(1))), false},
		{"object value differs", jsObj(jsF("a", ir.JSONNum(1))), jsObj(jsF("a", ir.JSONNum(2))), false},
		{"object extra key", jsObj(jsF("a", ir.JSONNum(1))), jsObj(jsF("a", ir.JSONNum(1)), jsF("b", ir.JSONNum(1))), false},
		{"empty object vs array", jsObj(), jsArr(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(&tc.b); got != tc.want {
				t.Errorf("a.Equal(b) = %v, want %v", got, tc.want)
			}
			if got := tc.b.Equal(&tc.a); got != tc.want {
				t.Errorf("b.Equal(a) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJSONSetGet(t *testing.T) {
	j := jsObj(jsF("a", ir.JSONNum(1)), jsF("b", ir.JSONNum(2)))
	j.Set("a", ir.JSONStr("x")) // replace keeps position
	j.Set("c", ir.JSONNum(3))   // new key goes last
	want := jsObj(jsF("a", ir.JSONStr("x")), jsF("b", ir.JSONNum(2)), jsF("c", ir.JSONNum(3)))
	if !j.Equal(&want) {
		t.Fatalf("after Set: %s, want %s", j.String(), want.String())
	}
	tests := []struct {
		name string
		j    *ir.JSON
		key  string
		want *ir.JSON
	}{
		{"present", &j, "b", &want.Fields[1].Value},
		{"replaced", &j, "a", &want.Fields[0].Value},
		{"absent", &j, "zz", nil},
		{"nil receiver", nil, "a", nil},
		{"not an object", &ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{ir.JSONStr("a")}}, "a", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.j.Get(tc.key)
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("Get(%q) = %s, want nil", tc.key, got.String())
			case tc.want != nil && (got == nil || !got.Equal(tc.want)):
				t.Errorf("Get(%q) = %v, want %s", tc.key, got, tc.want.String())
			}
		})
	}
	// Get returns a pointer into the object: writing through it changes j.
	j.Get("b").Int = 42
	if v, ok := j.Get("b").Uint(); !ok || v != 42 {
		t.Errorf("write through Get: b = %v %v", v, ok)
	}
}

func TestJSONStringsAndUint(t *testing.T) {
	strs := ir.JSONStrs("a", "b")
	if got := strs.Strings(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Strings of string array = %q", got)
	}
	mixed := jsArr(ir.JSONStr("a"), ir.JSONNum(1))
	if got := mixed.Strings(); got != nil {
		t.Errorf("Strings of mixed array = %q, want nil", got)
	}
	if got := (*ir.JSON)(nil).Strings(); got != nil {
		t.Errorf("Strings of nil = %q", got)
	}
	str := ir.JSONStr("a")
	if got := str.Strings(); got != nil {
		t.Errorf("Strings of a string = %q", got)
	}
	uintTests := []struct {
		j    ir.JSON
		v    uint64
		ok   bool
		name string
	}{
		{ir.JSONNum(7), 7, true, "positive"},
		{ir.JSONNum(0), 0, true, "zero"},
		{ir.JSONNum(-1), 0, false, "negative"},
		{ir.JSON{Kind: ir.JSONFloat, Float: 7}, 0, false, "float"},
		{ir.JSONStr("7"), 0, false, "string"},
	}
	for _, tc := range uintTests {
		v, ok := tc.j.Uint()
		if v != tc.v || ok != tc.ok {
			t.Errorf("%s: Uint = %d %v, want %d %v", tc.name, v, ok, tc.v, tc.ok)
		}
	}
}

func TestJSONAppendJSON(t *testing.T) {
	quote := func(b []byte, s string) []byte { return strconv.AppendQuote(b, s) }
	marker := func(b []byte, s string) []byte { return append(append(append(b, '<'), s...), '>') }
	tests := []struct {
		name string
		j    ir.JSON
		esc  func([]byte, string) []byte
		want string
	}{
		{"null", ir.JSON{}, quote, `null`},
		{"true", ir.JSON{Kind: ir.JSONBool, Bool: true}, quote, `true`},
		{"false", ir.JSON{Kind: ir.JSONBool}, quote, `false`},
		{"negative int", ir.JSONNum(-12), quote, `-12`},
		{"big int", ir.JSONNum(math.MaxInt64), quote, `9223372036854775807`},
		{"float", ir.JSON{Kind: ir.JSONFloat, Float: 2.5}, quote, `2.5`},
		{"string", ir.JSONStr("a\"b"), quote, `"a\"b"`},
		{"empty array", jsArr(), quote, `[]`},
		{"empty object", jsObj(), quote, `{}`},
		{"nested, keys escaped too", jsObj(
			jsF("a", ir.JSON{}), jsF("b", ir.JSON{Kind: ir.JSONBool, Bool: true}), jsF("c", ir.JSONNum(-5)),
			jsF("d", ir.JSON{Kind: ir.JSONFloat, Float: 0.125}), jsF("e", ir.JSONStr("x")),
			jsF("f", jsArr(ir.JSONNum(1), ir.JSONStr("y"), jsArr())), jsF("g", jsObj())),
			marker, `{<a>:null,<b>:true,<c>:-5,<d>:0.125,<e>:<x>,<f>:[1,<y>,[]],<g>:{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(tc.j.AppendJSON([]byte("pre:"), tc.esc))
			if got != "pre:"+tc.want {
				t.Errorf("AppendJSON = %s, want pre:%s", got, tc.want)
			}
		})
	}
}
