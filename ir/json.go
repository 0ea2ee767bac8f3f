package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// JSONKind is the type of a JSON value.
type JSONKind uint8

// JSON value kinds.
const (
	JSONNull JSONKind = iota
	JSONBool
	JSONInt // an integer literal that fits in int64
	JSONFloat
	JSONString
	JSONArray
	JSONObject
)

// JSON is a JSON value that keeps the order of object keys. Format sections
// use it for the small structured parts of a file (V8's header object, extra
// keys of other producers) so that they can be written back in file order.
type JSON struct {
	Kind   JSONKind
	Bool   bool
	Int    int64
	Float  float64
	Str    string
	Elems  []JSON      // JSONArray
	Fields []JSONField // JSONObject, in file order
}

// JSONField is one key/value pair of a JSON object.
type JSONField struct {
	Key   string
	Value JSON
}

// Get returns the value of key in an object, or nil.
func (j *JSON) Get(key string) *JSON {
	if j == nil || j.Kind != JSONObject {
		return nil
	}
	for i := range j.Fields {
		if j.Fields[i].Key == key {
			return &j.Fields[i].Value
		}
	}
	return nil
}

// Set replaces the value of key in an object, appending the key if absent.
func (j *JSON) Set(key string, v JSON) {
	for i := range j.Fields {
		if j.Fields[i].Key == key {
			j.Fields[i].Value = v
			return
		}
	}
	j.Fields = append(j.Fields, JSONField{key, v})
}

// Strings returns the elements of an array of strings, or nil when j is not
// such an array.
func (j *JSON) Strings() []string {
	if j == nil || j.Kind != JSONArray {
		return nil
	}
	out := make([]string, 0, len(j.Elems))
	for _, e := range j.Elems {
		if e.Kind != JSONString {
			return nil
		}
		out = append(out, e.Str)
	}
	return out
}

// Uint returns an integer value as uint64; ok is false for anything else.
func (j *JSON) Uint() (v uint64, ok bool) {
	if j == nil || j.Kind != JSONInt || j.Int < 0 {
		return 0, false
	}
	return uint64(j.Int), true
}

// JSONStr returns a string value.
func JSONStr(s string) JSON { return JSON{Kind: JSONString, Str: s} }

// JSONNum returns an integer value.
func JSONNum(n int64) JSON { return JSON{Kind: JSONInt, Int: n} }

// JSONStrs returns an array of strings.
func JSONStrs(ss ...string) JSON {
	a := JSON{Kind: JSONArray, Elems: make([]JSON, len(ss))}
	for i, s := range ss {
		a.Elems[i] = JSONStr(s)
	}
	return a
}

// Equal reports whether two JSON values are the same, key order included.
func (j *JSON) Equal(k *JSON) bool {
	if j.Kind != k.Kind {
		return false
	}
	switch j.Kind {
	case JSONBool:
		return j.Bool == k.Bool
	case JSONInt:
		return j.Int == k.Int
	case JSONFloat:
		return j.Float == k.Float || (math.IsNaN(j.Float) && math.IsNaN(k.Float))
	case JSONString:
		return j.Str == k.Str
	case JSONArray:
		if len(j.Elems) != len(k.Elems) {
			return false
		}
		for i := range j.Elems {
			if !j.Elems[i].Equal(&k.Elems[i]) {
				return false
			}
		}
	case JSONObject:
		if len(j.Fields) != len(k.Fields) {
			return false
		}
		for i := range j.Fields {
			if j.Fields[i].Key != k.Fields[i].Key || !j.Fields[i].Value.Equal(&k.Fields[i].Value) {
				return false
			}
		}
	}
	return true
}

// AppendJSON appends j as compact JSON (no white space), escaping strings
// with esc.
func (j *JSON) AppendJSON(b []byte, esc func([]byte, string) []byte) []byte {
	switch j.Kind {
	case JSONNull:
		b = append(b, "null"...)
	case JSONBool:
		b = strconv.AppendBool(b, j.Bool)
	case JSONInt:
		b = strconv.AppendInt(b, j.Int, 10)
	case JSONFloat:
		// Keep a float a float when read back: 1.0 stays "1.0", not "1".
		n := len(b)
		b = strconv.AppendFloat(b, j.Float, 'g', -1, 64)
		if !strings.ContainsAny(string(b[n:]), ".eEN") {
			b = append(b, ".0"...)
		}
	case JSONString:
		b = esc(b, j.Str)
	case JSONArray:
		b = append(b, '[')
		for i := range j.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.Elems[i].AppendJSON(b, esc)
		}
		b = append(b, ']')
	case JSONObject:
		b = append(b, '{')
		for i := range j.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = esc(b, j.Fields[i].Key)
			b = append(b, ':')
			b = j.Fields[i].Value.AppendJSON(b, esc)
		}
		b = append(b, '}')
	}
	return b
}

// String returns j as compact JSON with Go-quoted strings (for messages and
// the text dump).
func (j *JSON) String() string {
	return string(j.AppendJSON(nil, func(b []byte, s string) []byte { return strconv.AppendQuote(b, s) }))
}

// jsonKindNames is used in error messages.
var jsonKindNames = [...]string{"null", "bool", "integer", "float", "string", "array", "object"}

// String gives the kind's name.
func (k JSONKind) String() string {
	if int(k) < len(jsonKindNames) {
		return jsonKindNames[k]
	}
	return fmt.Sprintf("jsonkind(%d)", uint8(k))
}

// JSONShortEscape returns the letter of a control character's two-character
// JSON escape (\b \f \n \r \t), or 0 when it has none: readers and writers
// of JSON formats must agree on which characters these are.
func JSONShortEscape(c byte) byte {
	switch c {
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}

// AppendJSONString appends s as a JSON string literal, escaping only what
// JSON requires (quote, backslash, control characters).
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			if e := JSONShortEscape(c); e != 0 {
				b = append(b, '\\', e)
			} else {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
