package irtext

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// parseJSON reads a value as ir.JSON.String writes it (compact JSON with
// Go-quoted strings; a float has a point or an exponent, or is NaN or
// ±Inf) and returns what follows it.
func parseJSON(s string) (ir.JSON, string, error) {
	return parseValue(strings.TrimLeft(s, " "), 0)
}

func parseValue(s string, depth int) (ir.JSON, string, error) {
	if depth > 64 {
		return ir.JSON{}, s, fmt.Errorf("nested deeper than 64")
	}
	switch {
	case s == "":
		return ir.JSON{}, s, fmt.Errorf("a value is missing")
	case strings.HasPrefix(s, "null"):
		return ir.JSON{}, s[4:], nil
	case strings.HasPrefix(s, "true"):
		return ir.JSON{Kind: ir.JSONBool, Bool: true}, s[4:], nil
	case strings.HasPrefix(s, "false"):
		return ir.JSON{Kind: ir.JSONBool}, s[5:], nil
	case s[0] == '"':
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return ir.JSON{}, s, fmt.Errorf("bad string")
		}
		v, _ := strconv.Unquote(q)
		return ir.JSONStr(v), s[len(q):], nil
	case s[0] == '[':
		a := ir.JSON{Kind: ir.JSONArray}
		rest := skipSpace(s[1:])
		for !strings.HasPrefix(rest, "]") {
			v, r, err := parseValue(rest, depth+1)
			if err != nil {
				return a, r, err
			}
			a.Elems = append(a.Elems, v)
			if rest = skipSpace(r); strings.HasPrefix(rest, ",") {
				rest = skipSpace(rest[1:])
			} else if !strings.HasPrefix(rest, "]") {
				return a, rest, fmt.Errorf("expected , or ]")
			}
		}
		return a, rest[1:], nil
	case s[0] == '{':
		o := ir.JSON{Kind: ir.JSONObject}
		rest := skipSpace(s[1:])
		for !strings.HasPrefix(rest, "}") {
			k, r, err := parseValue(rest, depth+1)
			if err != nil || k.Kind != ir.JSONString {
				return o, r, fmt.Errorf("an object's key is a string")
			}
			if r = skipSpace(r); !strings.HasPrefix(r, ":") {
				return o, r, fmt.Errorf("expected :")
			}
			v, r, err := parseValue(skipSpace(r[1:]), depth+1)
			if err != nil {
				return o, r, err
			}
			o.Fields = append(o.Fields, ir.JSONField{Key: k.Str, Value: v})
			if rest = skipSpace(r); strings.HasPrefix(rest, ",") {
				rest = skipSpace(rest[1:])
			} else if !strings.HasPrefix(rest, "}") {
				return o, rest, fmt.Errorf("expected , or }")
			}
		}
		return o, rest[1:], nil
	}
	n := strings.IndexAny(s, ",]} ")
	if n < 0 {
		n = len(s)
	}
	num, rest := s[:n], s[n:]
	if i, err := strconv.ParseInt(num, 10, 64); err == nil {
		return ir.JSONNum(i), rest, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return ir.JSON{}, s, fmt.Errorf("bad value %q", num)
	}
	return ir.JSON{Kind: ir.JSONFloat, Float: f}, rest, nil
}

func skipSpace(s string) string { return strings.TrimLeft(s, " ") }
